/*
 * docstrings/hashmap.h -- docstrings of HashMap (hashmap_py.c, hashmap_many_py.c)
 * and HashMapBuffer (hmbuffer_py.c).
 */
#ifndef BCLPY_DOC_HASHMAP_H
#define BCLPY_DOC_HASHMAP_H

#define BCLPY_DOC_HASHMAP \
    "HashMap(capacity, key_type='int64', value_type='int64')\n" \
    "--\n" \
    "\n" \
    "BCL's distributed hash table: `capacity` buckets spread block-wise over\n" \
    "the ranks.\n" \
    "\n" \
    "The constructor is collective: every rank passes the same arguments\n" \
    "(checked; ValueError/TypeError on every rank otherwise).  Keys hash\n" \
    "deterministically (XXH64), never with Python's hash().  ``m[k]``,\n" \
    "``m[k] = v``, ``del m[k]`` and ``k in m`` are find/insert/erase without\n" \
    "a promise; ``len(m)`` is size() (collective).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "capacity : int\n" \
    "    Number of buckets (positive); a table accepts inserts until it is\n" \
    "    at least half full.\n" \
    "key_type, value_type : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype (stored inline; NumPy fast paths) or bytes,\n" \
    "    str or object (msgpack, stored out of line).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError, TypeError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for this rank's buckets.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m = pybcl.HashMap(1 << 16, key_type=str, value_type=\"int64\")\n" \
    ">>> m.insert(\"apple\", 3)\n" \
    ">>> pybcl.barrier()\n" \
    ">>> m.find(\"apple\")\n" \
    "3"

#define BCLPY_DOC_HM_INSERT \
    "insert($self, key, value, promise=None)\n" \
    "--\n" \
    "\n" \
    "Insert `key` -> `value`, or overwrite the value of a present key.\n" \
    "Not collective; visible to others after this call returns.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key, value : object\n" \
    "    Converted to the key and value types.\n" \
    "promise : pybcl.ConProm.HashMap or None, optional\n" \
    "    None (fully atomic) or a flag combination asserting which operations\n" \
    "    may run concurrently with this call until the next barrier; it\n" \
    "    selects the cheaper protocol of BCL's Table 3.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "pybcl.ContainerFull\n" \
    "    When no free bucket is found within the probe sequence (nothing is\n" \
    "    written; a collective resize() makes room).\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key or value does not convert to its type without loss.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.insert(\"pear\", 7)"

#define BCLPY_DOC_HM_FIND \
    "find($self, key, default=None, promise=None)\n" \
    "--\n" \
    "\n" \
    "The value stored under `key`, or `default` if it is absent.  Not\n" \
    "collective.  With ConProm.HashMap.find alone it is a single get of the\n" \
    "bucket.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "default : object, optional\n" \
    "    Returned when the key is absent.\n" \
    "promise : pybcl.ConProm.HashMap or None, optional\n" \
    "    None (fully atomic) or a flag combination asserting which operations\n" \
    "    may run concurrently with this call until the next barrier; it\n" \
    "    selects the cheaper protocol of BCL's Table 3.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "object\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.find(\"plum\", 0)\n" \
    "0"

#define BCLPY_DOC_HM_GET \
    "get($self, key, default=None)\n" \
    "--\n" \
    "\n" \
    "The value of `key`, or `default` if absent (dict.get; an atomic find).\n" \
    "Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "default : object, optional\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "object\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.get(\"apple\")\n" \
    "3"

#define BCLPY_DOC_HM_ACCUMULATE \
    "accumulate($self, key, delta=1, promise=None)\n" \
    "--\n" \
    "\n" \
    "Atomically add `delta` to the value of `key`, inserting `delta` if the\n" \
    "key is absent (numeric value types only).  No update is lost when all\n" \
    "ranks hit the same key.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "delta : number, optional\n" \
    "    Converted to the value type.\n" \
    "promise : pybcl.ConProm.HashMap or None, optional\n" \
    "    None (fully atomic) or a flag combination asserting which operations\n" \
    "    may run concurrently with this call until the next barrier; it\n" \
    "    selects the cheaper protocol of BCL's Table 3.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For a non-numeric value type.\n" \
    "OverflowError\n" \
    "    If the sum does not fit the value type.\n" \
    "pybcl.ContainerFull\n" \
    "    When a new key finds no free bucket (nothing written).\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.accumulate(\"apple\")        # every rank: +1 each"

#define BCLPY_DOC_HM_MODIFY \
    "modify($self, key, fn)\n" \
    "--\n" \
    "\n" \
    "Atomically replace the value v of `key` (None if absent) by fn(v) and\n" \
    "return the new value, as BCL's modify.  fn runs while the key's bucket\n" \
    "is locked: it must not use that key of this map.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "fn : callable\n" \
    "    Called with the current value (or None); returns the new one.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "object\n" \
    "    The value stored.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If `fn` is not callable (before the bucket is locked).\n" \
    "RuntimeError\n" \
    "    If `fn` uses the bucket `modify` holds, or a batch call of this map.\n" \
    "pybcl.ContainerFull\n" \
    "    When an absent key finds no free bucket.\n" \
    "Exception\n" \
    "    Whatever `fn` raises; the value is left unchanged.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.modify(\"apple\", lambda v: (v or 0) * 2)\n" \
    "6"

#define BCLPY_DOC_HM_INSERT_MANY \
    "insert_many($self, keys, values, promise=None)\n" \
    "--\n" \
    "\n" \
    "insert() of every (key, value) pair, batched (each protocol step is\n" \
    "issued for a chunk of keys, then one flush).  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "keys, values : array_like or sequence\n" \
    "    Converting to the key/value types with casting='safe'; any sequence\n" \
    "    for variable-length types.  Same length.\n" \
    "promise : pybcl.ConProm.HashMap or None, optional\n" \
    "    None (fully atomic) or a flag combination asserting which operations\n" \
    "    may run concurrently with this call until the next barrier; it\n" \
    "    selects the cheaper protocol of BCL's Table 3.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    If the lengths differ.\n" \
    "pybcl.ContainerFull\n" \
    "    If some keys find no free bucket (the message counts them; all the\n" \
    "    others are stored).\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> n = pybcl.HashMap(1 << 16)\n" \
    ">>> n.insert_many(np.arange(100), np.arange(100) * 2)"

#define BCLPY_DOC_HM_FIND_MANY \
    "find_many($self, keys, promise=None)\n" \
    "--\n" \
    "\n" \
    "find() of every key, batched.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "keys : array_like or sequence\n" \
    "promise : pybcl.ConProm.HashMap or None, optional\n" \
    "    None (fully atomic) or a flag combination asserting which operations\n" \
    "    may run concurrently with this call until the next barrier; it\n" \
    "    selects the cheaper protocol of BCL's Table 3.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "values : numpy.ndarray or list\n" \
    "    Of the value type (a list for variable-length types); zero / None\n" \
    "    where not found.\n" \
    "found : numpy.ndarray of bool\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the keys do not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> values, found = n.find_many(np.arange(200))"

#define BCLPY_DOC_HM_ACCUMULATE_MANY \
    "accumulate_many($self, keys, deltas=1)\n" \
    "--\n" \
    "\n" \
    "accumulate() of every key, batched (duplicate keys are merged first).\n" \
    "Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "keys : array_like or sequence\n" \
    "deltas : number or array_like, optional\n" \
    "    A scalar, or one delta per key.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For a non-numeric value type.\n" \
    "pybcl.ContainerFull\n" \
    "    As insert_many().\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> n.accumulate_many(np.array([1, 1, 2]))"

#define BCLPY_DOC_HM_SIZE \
    "size($self, /)\n" \
    "--\n" \
    "\n" \
    "Collective: the number of keys in the whole map (every rank gets the\n" \
    "same int).  Call it when no rank is modifying the map; ``len(m)`` is the\n" \
    "same.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.barrier()\n" \
    ">>> m.size() == len(m)\n" \
    "True"

#define BCLPY_DOC_HM_LOCAL_ITEMS \
    "local_items($self, /)\n" \
    "--\n" \
    "\n" \
    "This rank's (key, value) pairs (the buckets it holds).  Not collective;\n" \
    "iterate after a barrier so no insert is in flight.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "list of tuple\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.barrier()\n" \
    ">>> mine = dict(m.local_items())"

#define BCLPY_DOC_HM_RESIZE \
    "resize($self, new_capacity)\n" \
    "--\n" \
    "\n" \
    "Collective: rebuild the map with `new_capacity` buckets, keeping every\n" \
    "entry.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "new_capacity : int\n" \
    "    The same on every rank (checked).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    If the entries do not fit, or the ranks disagree.\n" \
    "pybcl.SegmentFull\n" \
    "    If a segment has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.resize(2 * m.capacity)"

#define BCLPY_DOC_HM_OWNER \
    "owner($self, key)\n" \
    "--\n" \
    "\n" \
    "The rank that holds the home bucket of `key` (no communication).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> 0 <= m.owner(\"apple\") < pybcl.nprocs()\n" \
    "True"

/* ---- HashMapBuffer ------------------------------------------------------ */

#define BCLPY_DOC_HMBUFFER \
    "HashMapBuffer(hashmap, queue_size, message_size)\n" \
    "--\n" \
    "\n" \
    "BCL's aggregated inserts into `hashmap` (collective constructor).\n" \
    "Inserts and accumulates are buffered per owner rank and not visible\n" \
    "until flush() (collective).  As a context manager it flushes on a\n" \
    "normal exit.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "hashmap : pybcl.HashMap\n" \
    "queue_size : int\n" \
    "    Capacity, in entries, of the incoming queue each rank hosts.\n" \
    "message_size : int\n" \
    "    Entries buffered per destination before one push_many.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, ValueError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for the queues.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m = pybcl.HashMap(1 << 16)\n" \
    ">>> with pybcl.HashMapBuffer(m, 4096, 256) as buf:\n" \
    "...     buf.accumulate_many(np.arange(1000) % 7)"

#define BCLPY_DOC_HB_INSERT \
    "insert($self, key, value)\n" \
    "--\n" \
    "\n" \
    "Buffer an insert of `key` -> `value`; it is in the map after flush().\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key, value : object\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key or value does not convert to its type without loss.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> buf.insert(5, 50)"

#define BCLPY_DOC_HB_ACCUMULATE \
    "accumulate($self, key, delta=1)\n" \
    "--\n" \
    "\n" \
    "Buffer an accumulate of `delta` into `key` (numeric value types);\n" \
    "combined with the stored value at flush().\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "delta : number, optional\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For a non-numeric value type or a key that does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> buf.accumulate(5)"

#define BCLPY_DOC_HB_INSERT_MANY \
    "insert_many($self, keys, values)\n" \
    "--\n" \
    "\n" \
    "Buffer insert() of every (key, value) pair (NumPy fast path).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "keys, values : array_like or sequence\n" \
    "    Same length.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    If the lengths differ.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> buf.insert_many(np.arange(10), np.ones(10, dtype=np.int64))"

#define BCLPY_DOC_HB_ACCUMULATE_MANY \
    "accumulate_many($self, keys, deltas=1)\n" \
    "--\n" \
    "\n" \
    "Buffer accumulate() of every key.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "keys : array_like or sequence\n" \
    "deltas : number or array_like, optional\n" \
    "    A scalar or one per key.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For a non-numeric value type.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> buf.accumulate_many(np.array([3, 3, 4]))"

#define BCLPY_DOC_HB_FLUSH \
    "flush($self, /)\n" \
    "--\n" \
    "\n" \
    "Collective: afterwards every buffered entry of every rank is in the\n" \
    "hash map.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "pybcl.ContainerFull\n" \
    "    On every rank if the map is full; the entries that did not fit are\n" \
    "    kept, so a later flush() (e.g. after resize()) inserts them.\n" \
    "OverflowError\n" \
    "    On every rank if an accumulate overflowed the value type.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> buf.flush()"

#define BCLPY_DOC_HM_ERASE \
    "erase($self, key)\n" \
    "--\n" \
    "\n" \
    "Remove `key` from the map.  Not collective.  Atomic with respect to\n" \
    "insert, find, accumulate and modify of the same key; the bucket becomes\n" \
    "a tombstone that later inserts reuse, and an out-of-line key or value is\n" \
    "freed.  ``del m[key]`` does the same but raises KeyError when the key is\n" \
    "absent.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "key : object\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "bool\n" \
    "    True if the key was stored, False if not.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> m.erase(\"apple\")\n" \
    "True"

#define BCLPY_DOC_HM_ERASE_MANY \
    "erase_many($self, keys)\n" \
    "--\n" \
    "\n" \
    "Erase every key of `keys`.  Not collective; each key is erased\n" \
    "atomically on its own (a duplicate key is found only once).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "keys : array_like or sequence\n" \
    "    A 1-d array-like of the key type (fixed-size types), or any\n" \
    "    sequence (variable-length key types).\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "found_mask : numpy.ndarray of bool\n" \
    "    True where keys[i] was stored (and is now erased).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the keys do not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> found = n.erase_many(np.arange(10))"

#endif /* BCLPY_DOC_HASHMAP_H */
