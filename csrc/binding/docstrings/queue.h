/*
 * docstrings/queue.h -- docstrings of FastQueue and CircularQueue (queue_py.c);
 * both types share one method table, so the docstrings cover both.
 */
#ifndef BCLPY_DOC_QUEUE_H
#define BCLPY_DOC_QUEUE_H

#define BCLPY_DOC_Q_PROMISE \
    "\n"\
    "promise: None or a pybcl.ConProm.CircularQueue flag (push, pop, local):\n" \
    "  only those operations run until the next barrier, which selects BCL's\n" \
    "  cheaper Table 4 protocol (CircularQueue; all pushes, and all pops, of a\n" \
    "  phase must pass the same promise).  FastQueue checks it but needs none.\n\n"

#define BCLPY_DOC_FASTQUEUE \
    "FastQueue(host, capacity, dtype='int64')\n--\n\n" \
    "BCL's FastQueue: a ring of `capacity` slots in rank `host`'s segment.\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "Pushes and pops must be in phases separated by barriers; a push is one\n" \
    "fetch-and-add plus one put.  dtype: a fixed-size NumPy dtype, or bytes,\n" \
    "str or object."

#define BCLPY_DOC_CIRCULARQUEUE \
    "CircularQueue(host, capacity, dtype='int64')\n--\n\n" \
    "BCL's CircularQueue: a ring of `capacity` slots in rank `host`'s segment.\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "Concurrent pushes and pops are safe without a promise; a ConProm\n" \
    "promise picks a cheaper protocol."

#define BCLPY_DOC_Q_PUSH \
    "push($self, value, promise=None)\n--\n\n" \
    "Append `value`.  Returns True, or False if there is no room (nothing is\n" \
    "written).  Not collective.\n\n" \
    BCLPY_DOC_Q_PROMISE \
    "Raises TypeError/OverflowError/ValueError if value does not convert."

#define BCLPY_DOC_Q_PUSH_MANY \
    "push_many($self, values, promise=None)\n--\n\n" \
    "Append all `values` (array or sequence) as one contiguous run, or none\n" \
    "of them.  Returns True, or False if they do not all fit.  Not collective.\n\n" \
    BCLPY_DOC_Q_PROMISE

#define BCLPY_DOC_Q_POP \
    "pop($self, promise=None)\n--\n\n" \
    "Remove and return the oldest value.  Not collective.\n\n" \
    BCLPY_DOC_Q_PROMISE \
    "Raises pybcl.Empty if the queue is empty."

#define BCLPY_DOC_Q_POP_MANY \
    "pop_many($self, n, promise=None)\n--\n\n" \
    "Remove and return at most `n` of the oldest values: a NumPy array for\n" \
    "fixed-size dtypes, a list otherwise (empty if the queue is).  Not\n" \
    "collective.\n\n" \
    BCLPY_DOC_Q_PROMISE

#define BCLPY_DOC_Q_LOCAL_NONATOMIC_POP \
    "local_nonatomic_pop($self, /)\n--\n\n" \
    "Host only, while no other rank uses the queue: pop with plain memory\n" \
    "operations.  Raises pybcl.Empty if empty, ValueError on another rank."

#define BCLPY_DOC_Q_LOCAL \
    "local($self, /)\n--\n\n" \
    "Host only, fixed-size dtypes, while no other rank uses the queue: a NumPy\n" \
    "view of the elements now in the queue in FIFO order (the ring is made\n" \
    "contiguous first).  Sorting it in place changes the order later pops\n" \
    "return.  Valid until the next resize/migrate.  ValueError elsewhere."

#define BCLPY_DOC_Q_SIZE \
    "size($self, /)\n--\n\n" \
    "Return the number of elements now in the queue (one remote read).\n" \
    "Not collective."

#define BCLPY_DOC_Q_RESIZE \
    "resize($self, new_capacity)\n--\n\n" \
    "Collective: give the queue `new_capacity` slots, keeping contents and\n" \
    "order.  Raises ValueError on every rank if the contents do not fit or\n" \
    "the ranks disagree, SegmentFull if the host has no room."

#define BCLPY_DOC_Q_MIGRATE \
    "migrate($self, new_host)\n--\n\n" \
    "Collective: move the queue to rank `new_host`, keeping contents and\n" \
    "order.  Raises ValueError on every rank for a bad or disagreeing host."

#endif /* BCLPY_DOC_QUEUE_H */
