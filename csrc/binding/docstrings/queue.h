/*
 * docstrings/queue.h -- docstrings of FastQueue and CircularQueue (queue_py.c);
 * both types share one method table, so the docstrings cover both.
 */
#ifndef BCLPY_DOC_QUEUE_H
#define BCLPY_DOC_QUEUE_H

#include "binding/docstrings/common.h"

/* The constructors' parameters and errors, the same for both queues. */
#define BCLPY_DOC_QUEUE_ARGS \
    BCLPY_PARAMETERS \
    "host : int\n" \
    "    Rank whose segment holds the queue, in [0, nprocs).\n" \
    "capacity : int\n" \
    "    Number of slots (positive).\n" \
    "dtype : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype, or bytes, str or object (msgpack records).\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("ValueError, TypeError") \
    "pybcl.SegmentFull\n" \
    "    When the host's segment has no room.\n"
#define BCLPY_ARGS_QUEUE { "host", "capacity", "dtype" }

/* The `promise` parameter of push, push_many, pop and pop_many. */
#define BCLPY_DOC_QUEUE_PROMISE \
    "promise : pybcl.ConProm.CircularQueue or None, optional\n" \
    "    None (fully atomic) or a flag combination (push, pop, local): only\n" \
    "    those operations run until the next barrier, which selects BCL's\n" \
    "    cheaper Table 4 protocol on a CircularQueue (all pushes, and all\n" \
    "    pops, of a phase must pass the same promise).  FastQueue checks it\n" \
    "    but needs none.\n"

#define BCLPY_DOC_FASTQUEUE \
    BCLPY_SIG("FastQueue(host, capacity, dtype='int64')") \
    "BCL's FastQueue: a ring of `capacity` slots in rank `host`'s segment.\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "Pushes and pops must be in phases separated by barriers; a push is one\n" \
    "fetch-and-add plus one put.  ``len(q)`` is ``q.size()``.\n" \
    BCLPY_DOC_QUEUE_ARGS \
    BCLPY_EXAMPLES \
    ">>> q = pybcl.FastQueue(0, 100)\n" \
    ">>> q.push(pybcl.rank())\n" \
    "True\n" \
    ">>> pybcl.barrier()"

#define BCLPY_DOC_CIRCULARQUEUE \
    BCLPY_SIG("CircularQueue(host, capacity, dtype='int64')") \
    "BCL's CircularQueue: a ring of `capacity` slots in rank `host`'s segment.\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "Concurrent pushes and pops are safe without a promise; a ConProm\n" \
    "promise picks a cheaper protocol.  ``len(q)`` is ``q.size()``.\n" \
    BCLPY_DOC_QUEUE_ARGS \
    BCLPY_EXAMPLES \
    ">>> q = pybcl.CircularQueue(0, 100, dtype=str)\n" \
    ">>> q.push(\"hello\")\n" \
    "True"

#define BCLPY_DOC_Q_PUSH \
    BCLPY_SIG("push($self, value, promise=None)") \
    "Append `value`.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "value : object\n" \
    "    Converted to the queue's dtype without loss.\n" \
    BCLPY_DOC_QUEUE_PROMISE \
    BCLPY_RETURNS \
    "bool\n" \
    "    True, or False if there is no room (nothing is written).\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError, ValueError\n" \
    "    If `value` does not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> q.push(42)\n" \
    "True"
#define BCLPY_ARGS_Q_PUSH { "value", "promise" }

#define BCLPY_DOC_Q_PUSH_MANY \
    BCLPY_SIG("push_many($self, values, promise=None)") \
    "Append all `values` as one contiguous run, or none of them.  Not\n" \
    "collective.\n" \
    BCLPY_PARAMETERS \
    "values : array_like or sequence\n" \
    "    Converted to the queue's dtype (casting='safe').\n" \
    BCLPY_DOC_QUEUE_PROMISE \
    BCLPY_RETURNS \
    "bool\n" \
    "    True, or False if they do not all fit now (nothing is written).\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError, ValueError\n" \
    "    If `values` do not convert, or are more than the capacity (they\n" \
    "    could never fit).\n" \
    BCLPY_EXAMPLES \
    ">>> q.push_many(np.arange(10))\n" \
    "True"
#define BCLPY_ARGS_Q_PUSH_MANY { "values", "promise" }

#define BCLPY_DOC_Q_POP \
    BCLPY_SIG("pop($self, promise=None)") \
    "Remove and return the oldest value.  Not collective.\n" \
    BCLPY_PARAMETERS \
    BCLPY_DOC_QUEUE_PROMISE \
    BCLPY_RETURNS \
    "object\n" \
    "    The value (a NumPy scalar for fixed-size dtypes).\n" \
    BCLPY_RAISES \
    "pybcl.Empty\n" \
    "    If the queue is empty (also a ``queue.Empty``).\n" \
    BCLPY_EXAMPLES \
    ">>> try:\n" \
    "...     x = q.pop()\n" \
    "... except pybcl.Empty:\n" \
    "...     x = None"
#define BCLPY_ARGS_Q_POP { "promise" }

#define BCLPY_DOC_Q_POP_MANY \
    BCLPY_SIG("pop_many($self, n, promise=None)") \
    "Remove and return at most `n` of the oldest values.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "n : int\n" \
    "    Most values to take (non-negative).\n" \
    BCLPY_DOC_QUEUE_PROMISE \
    BCLPY_RETURNS \
    "numpy.ndarray or list\n" \
    "    A NumPy array for fixed-size dtypes, a list otherwise (empty if the\n" \
    "    queue is).\n" \
    BCLPY_RAISES \
    "ValueError, TypeError\n" \
    "    For a negative or non-integer `n`.\n" \
    BCLPY_EXAMPLES \
    ">>> batch = q.pop_many(1024)"
#define BCLPY_ARGS_Q_POP_MANY { "n", "promise" }

#define BCLPY_DOC_Q_LOCAL_NONATOMIC_POP \
    BCLPY_SIG("local_nonatomic_pop($self, /)") \
    "Pop with plain memory operations: host only, while no other rank uses\n" \
    "the queue.\n" \
    BCLPY_RETURNS \
    "object\n" \
    "    The oldest value.\n" \
    BCLPY_RAISES \
    "pybcl.Empty\n" \
    "    If the queue is empty.\n" \
    "ValueError\n" \
    "    On a rank other than the host.\n" \
    BCLPY_EXAMPLES \
    ">>> if pybcl.rank() == q.host and len(q):\n" \
    "...     x = q.local_nonatomic_pop()"

#define BCLPY_DOC_Q_LOCAL \
    BCLPY_SIG("local($self, /)") \
    "A NumPy view of the elements now in the queue, in FIFO order (the ring\n" \
    "is made contiguous first).  Host only, fixed-size dtypes, while no\n" \
    "other rank uses the queue.  Sorting it in place changes the order later\n" \
    "pops return.  Valid until the next resize/migrate.\n" \
    BCLPY_RETURNS \
    "numpy.ndarray\n" \
    "    A writable view (no copy) into the host's segment.\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    On a rank other than the host.\n" \
    "TypeError\n" \
    "    For a variable-length dtype.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.barrier()\n" \
    ">>> if pybcl.rank() == q.host:\n" \
    "...     q.local().sort()"

#define BCLPY_DOC_Q_SIZE \
    BCLPY_SIG("size($self, /)") \
    "The number of elements now in the queue (one remote read); ``len(q)``\n" \
    "is the same.  Not collective.\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> q.size() == len(q)\n" \
    "True"

#define BCLPY_DOC_Q_RESIZE \
    BCLPY_SIG("resize($self, new_capacity)") \
    "Collective: give the queue `new_capacity` slots, keeping contents and\n" \
    "order.\n" \
    BCLPY_PARAMETERS \
    "new_capacity : int\n" \
    "    The same on every rank (checked).\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    On every rank if the contents do not fit or the ranks disagree.\n" \
    "pybcl.SegmentFull\n" \
    "    If the host has no room.\n" \
    BCLPY_EXAMPLES \
    ">>> q.resize(2 * q.capacity)"

#define BCLPY_DOC_Q_MIGRATE \
    BCLPY_SIG("migrate($self, new_host)") \
    "Collective: move the queue to rank `new_host`, keeping contents and\n" \
    "order.\n" \
    BCLPY_PARAMETERS \
    "new_host : int\n" \
    "    A rank in [0, nprocs), the same on every rank (checked).\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    On every rank for a bad or disagreeing host.\n" \
    "pybcl.SegmentFull\n" \
    "    If the new host has no room.\n" \
    BCLPY_EXAMPLES \
    ">>> q.migrate(pybcl.nprocs() - 1)"

#endif /* BCLPY_DOC_QUEUE_H */
