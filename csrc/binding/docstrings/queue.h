/*
 * docstrings/queue.h -- docstrings of FastQueue and CircularQueue (queue_py.c);
 * both types share one method table, so the docstrings cover both.
 */
#ifndef BCLPY_DOC_QUEUE_H
#define BCLPY_DOC_QUEUE_H

#define BCLPY_DOC_FASTQUEUE \
    "FastQueue(host, capacity, dtype='int64')\n" \
    "--\n" \
    "\n" \
    "BCL's FastQueue: a ring of `capacity` slots in rank `host`'s segment.\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "Pushes and pops must be in phases separated by barriers; a push is one\n" \
    "fetch-and-add plus one put.  ``len(q)`` is ``q.size()``.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "host : int\n" \
    "    Rank whose segment holds the queue, in [0, nprocs).\n" \
    "capacity : int\n" \
    "    Number of slots (positive).\n" \
    "dtype : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype, or bytes, str or object (msgpack records).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError, TypeError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "pybcl.SegmentFull\n" \
    "    When the host's segment has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q = pybcl.FastQueue(0, 100)\n" \
    ">>> q.push(pybcl.rank())\n" \
    "True\n" \
    ">>> pybcl.barrier()"

#define BCLPY_DOC_CIRCULARQUEUE \
    "CircularQueue(host, capacity, dtype='int64')\n" \
    "--\n" \
    "\n" \
    "BCL's CircularQueue: a ring of `capacity` slots in rank `host`'s segment.\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "Concurrent pushes and pops are safe without a promise; a ConProm\n" \
    "promise picks a cheaper protocol.  ``len(q)`` is ``q.size()``.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "host : int\n" \
    "    Rank whose segment holds the queue, in [0, nprocs).\n" \
    "capacity : int\n" \
    "    Number of slots (positive).\n" \
    "dtype : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype, or bytes, str or object (msgpack records).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError, TypeError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "pybcl.SegmentFull\n" \
    "    When the host's segment has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q = pybcl.CircularQueue(0, 100, dtype=str)\n" \
    ">>> q.push(\"hello\")\n" \
    "True"

#define BCLPY_DOC_Q_PUSH \
    "push($self, value, promise=None)\n" \
    "--\n" \
    "\n" \
    "Append `value`.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "value : object\n" \
    "    Converted to the queue's dtype without loss.\n" \
    "promise : pybcl.ConProm.CircularQueue or None, optional\n" \
    "    None (fully atomic) or a flag combination (push, pop, local): only\n" \
    "    those operations run until the next barrier, which selects BCL's\n" \
    "    cheaper Table 4 protocol on a CircularQueue (all pushes, and all\n" \
    "    pops, of a phase must pass the same promise).  FastQueue checks it\n" \
    "    but needs none.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "bool\n" \
    "    True, or False if there is no room (nothing is written).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If `value` does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q.push(42)\n" \
    "True"

#define BCLPY_DOC_Q_PUSH_MANY \
    "push_many($self, values, promise=None)\n" \
    "--\n" \
    "\n" \
    "Append all `values` as one contiguous run, or none of them.  Not\n" \
    "collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "values : array_like or sequence\n" \
    "    Converted to the queue's dtype (casting='safe').\n" \
    "promise : pybcl.ConProm.CircularQueue or None, optional\n" \
    "    None (fully atomic) or a flag combination (push, pop, local): only\n" \
    "    those operations run until the next barrier, which selects BCL's\n" \
    "    cheaper Table 4 protocol on a CircularQueue (all pushes, and all\n" \
    "    pops, of a phase must pass the same promise).  FastQueue checks it\n" \
    "    but needs none.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "bool\n" \
    "    True, or False if they do not all fit (nothing is written).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If `values` do not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q.push_many(np.arange(10))\n" \
    "True"

#define BCLPY_DOC_Q_POP \
    "pop($self, promise=None)\n" \
    "--\n" \
    "\n" \
    "Remove and return the oldest value.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "promise : pybcl.ConProm.CircularQueue or None, optional\n" \
    "    None (fully atomic) or a flag combination (push, pop, local): only\n" \
    "    those operations run until the next barrier, which selects BCL's\n" \
    "    cheaper Table 4 protocol on a CircularQueue (all pushes, and all\n" \
    "    pops, of a phase must pass the same promise).  FastQueue checks it\n" \
    "    but needs none.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "object\n" \
    "    The value (a NumPy scalar for fixed-size dtypes).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "pybcl.Empty\n" \
    "    If the queue is empty (also a ``queue.Empty``).\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> try:\n" \
    "...     x = q.pop()\n" \
    "... except pybcl.Empty:\n" \
    "...     x = None"

#define BCLPY_DOC_Q_POP_MANY \
    "pop_many($self, n, promise=None)\n" \
    "--\n" \
    "\n" \
    "Remove and return at most `n` of the oldest values.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "n : int\n" \
    "    Most values to take (non-negative).\n" \
    "promise : pybcl.ConProm.CircularQueue or None, optional\n" \
    "    None (fully atomic) or a flag combination (push, pop, local): only\n" \
    "    those operations run until the next barrier, which selects BCL's\n" \
    "    cheaper Table 4 protocol on a CircularQueue (all pushes, and all\n" \
    "    pops, of a phase must pass the same promise).  FastQueue checks it\n" \
    "    but needs none.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray or list\n" \
    "    A NumPy array for fixed-size dtypes, a list otherwise (empty if the\n" \
    "    queue is).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError, TypeError\n" \
    "    For a negative or non-integer `n`.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> batch = q.pop_many(1024)"

#define BCLPY_DOC_Q_LOCAL_NONATOMIC_POP \
    "local_nonatomic_pop($self, /)\n" \
    "--\n" \
    "\n" \
    "Pop with plain memory operations: host only, while no other rank uses\n" \
    "the queue.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "object\n" \
    "    The oldest value.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "pybcl.Empty\n" \
    "    If the queue is empty.\n" \
    "ValueError\n" \
    "    On a rank other than the host.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> if pybcl.rank() == q.host and len(q):\n" \
    "...     x = q.local_nonatomic_pop()"

#define BCLPY_DOC_Q_LOCAL \
    "local($self, /)\n" \
    "--\n" \
    "\n" \
    "A NumPy view of the elements now in the queue, in FIFO order (the ring\n" \
    "is made contiguous first).  Host only, fixed-size dtypes, while no\n" \
    "other rank uses the queue.  Sorting it in place changes the order later\n" \
    "pops return.  Valid until the next resize/migrate.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray\n" \
    "    A writable view (no copy) into the host's segment.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    On a rank other than the host.\n" \
    "TypeError\n" \
    "    For a variable-length dtype.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.barrier()\n" \
    ">>> if pybcl.rank() == q.host:\n" \
    "...     q.local().sort()"

#define BCLPY_DOC_Q_SIZE \
    "size($self, /)\n" \
    "--\n" \
    "\n" \
    "The number of elements now in the queue (one remote read); ``len(q)``\n" \
    "is the same.  Not collective.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q.size() == len(q)\n" \
    "True"

#define BCLPY_DOC_Q_RESIZE \
    "resize($self, new_capacity)\n" \
    "--\n" \
    "\n" \
    "Collective: give the queue `new_capacity` slots, keeping contents and\n" \
    "order.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "new_capacity : int\n" \
    "    The same on every rank (checked).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    On every rank if the contents do not fit or the ranks disagree.\n" \
    "pybcl.SegmentFull\n" \
    "    If the host has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q.resize(2 * q.capacity)"

#define BCLPY_DOC_Q_MIGRATE \
    "migrate($self, new_host)\n" \
    "--\n" \
    "\n" \
    "Collective: move the queue to rank `new_host`, keeping contents and\n" \
    "order.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "new_host : int\n" \
    "    A rank in [0, nprocs), the same on every rank (checked).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    On every rank for a bad or disagreeing host.\n" \
    "pybcl.SegmentFull\n" \
    "    If the new host has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> q.migrate(pybcl.nprocs() - 1)"

#endif /* BCLPY_DOC_QUEUE_H */
