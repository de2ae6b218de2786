/*
 * docstrings/hashmap.h -- docstrings of HashMap (hashmap_py.c, hashmap_many_py.c)
 * and HashMapBuffer (hmbuffer_py.c).
 */
#ifndef BCLPY_DOC_HASHMAP_H
#define BCLPY_DOC_HASHMAP_H

#include "binding/docstrings/common.h"

/* The `promise` parameter of the single-key operations. */
#define BCLPY_DOC_HM_PROMISE \
    "promise : pybcl.ConProm.HashMap or None, optional\n" \
    "    None (fully atomic) or a flag combination asserting which operations\n" \
    "    may run concurrently with this call until the next barrier; it\n" \
    "    selects the cheaper protocol of BCL's Table 3.\n"

/* What a single-key operation raises for a key of the wrong type. */
#define BCLPY_DOC_HM_RAISES_KEY \
    BCLPY_RAISES \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key does not convert.\n"

#define BCLPY_DOC_HASHMAP \
    BCLPY_SIG("HashMap(capacity, key_type='int64', value_type='int64')") \
    "BCL's distributed hash table: `capacity` buckets spread block-wise over\n" \
    "the ranks.\n" \
    "\n" \
    "The constructor is collective: every rank passes the same arguments\n" \
    "(checked; ValueError/TypeError on every rank otherwise).  Keys hash\n" \
    "deterministically (XXH64), never with Python's hash().  ``m[k]``,\n" \
    "``m[k] = v``, ``del m[k]`` and ``k in m`` are find/insert/erase without\n" \
    "a promise; ``len(m)`` is size() (collective).\n" \
    BCLPY_PARAMETERS \
    "capacity : int\n" \
    "    Number of buckets (positive); a table accepts inserts until it is\n" \
    "    at least half full.\n" \
    "key_type, value_type : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype (stored inline; NumPy fast paths) or bytes,\n" \
    "    str or object (msgpack, stored out of line).\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("ValueError, TypeError") \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for this rank's buckets.\n" \
    BCLPY_EXAMPLES \
    ">>> m = pybcl.HashMap(1 << 16, key_type=str, value_type=\"int64\")\n" \
    ">>> m.insert(\"apple\", 3)\n" \
    ">>> pybcl.barrier()\n" \
    ">>> m.find(\"apple\")\n" \
    "3"
#define BCLPY_ARGS_HASHMAP { "capacity", "key_type", "value_type" }

#define BCLPY_DOC_HM_INSERT \
    BCLPY_SIG("insert($self, key, value, promise=None)") \
    "Insert `key` -> `value`, or overwrite the value of a present key.\n" \
    "Not collective; visible to others after this call returns.\n" \
    BCLPY_PARAMETERS \
    "key, value : object\n" \
    "    Converted to the key and value types.\n" \
    BCLPY_DOC_HM_PROMISE \
    BCLPY_RAISES \
    "pybcl.ContainerFull\n" \
    "    When no free bucket is found within the probe sequence (nothing is\n" \
    "    written; a collective resize() makes room).\n" \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key or value does not convert to its type without loss.\n" \
    BCLPY_EXAMPLES \
    ">>> m.insert(\"pear\", 7)"
#define BCLPY_ARGS_HM_INSERT { "key", "value", "promise" }

#define BCLPY_DOC_HM_FIND \
    BCLPY_SIG("find($self, key, default=None, promise=None)") \
    "The value stored under `key`, or `default` if it is absent.  Not\n" \
    "collective.  With ConProm.HashMap.find alone it is a single get of the\n" \
    "bucket.\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    "default : object, optional\n" \
    "    Returned when the key is absent.\n" \
    BCLPY_DOC_HM_PROMISE \
    BCLPY_RETURNS \
    "object\n" \
    BCLPY_DOC_HM_RAISES_KEY \
    BCLPY_EXAMPLES \
    ">>> m.find(\"plum\", 0)\n" \
    "0"
#define BCLPY_ARGS_HM_FIND { "key", "default", "promise" }

#define BCLPY_DOC_HM_GET \
    BCLPY_SIG("get($self, key, default=None)") \
    "The value of `key`, or `default` if absent (dict.get; an atomic find).\n" \
    "Not collective.\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    "default : object, optional\n" \
    BCLPY_RETURNS \
    "object\n" \
    BCLPY_DOC_HM_RAISES_KEY \
    BCLPY_EXAMPLES \
    ">>> m.get(\"apple\")\n" \
    "3"
#define BCLPY_ARGS_HM_GET { "key", "default" }

#define BCLPY_DOC_HM_ACCUMULATE \
    BCLPY_SIG("accumulate($self, key, delta=1, promise=None)") \
    "Atomically add `delta` to the value of `key`, inserting `delta` if the\n" \
    "key is absent (numeric value types only).  No update is lost when all\n" \
    "ranks hit the same key.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    "delta : number, optional\n" \
    "    Converted to the value type.\n" \
    BCLPY_DOC_HM_PROMISE \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For a non-numeric value type.\n" \
    "OverflowError\n" \
    "    If the sum does not fit the value type.\n" \
    "pybcl.ContainerFull\n" \
    "    When a new key finds no free bucket (nothing written).\n" \
    BCLPY_EXAMPLES \
    ">>> m.accumulate(\"apple\")        # every rank: +1 each"
#define BCLPY_ARGS_HM_ACCUMULATE { "key", "delta", "promise" }

#define BCLPY_DOC_HM_MODIFY \
    BCLPY_SIG("modify($self, key, fn)") \
    "Atomically replace the value v of `key` (None if absent) by fn(v) and\n" \
    "return the new value, as BCL's modify.  fn runs while the key's bucket\n" \
    "is locked: it must not use that key of this map.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    "fn : callable\n" \
    "    Called with the current value (or None); returns the new one.\n" \
    BCLPY_RETURNS \
    "object\n" \
    "    The value stored.\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    If `fn` is not callable (before the bucket is locked).\n" \
    "RuntimeError\n" \
    "    If `fn` uses the bucket `modify` holds, or a batch call of this map.\n" \
    "pybcl.ContainerFull\n" \
    "    When an absent key finds no free bucket.\n" \
    "Exception\n" \
    "    Whatever `fn` raises; the value is left unchanged.\n" \
    BCLPY_EXAMPLES \
    ">>> m.modify(\"apple\", lambda v: (v or 0) * 2)\n" \
    "6"
#define BCLPY_ARGS_HM_MODIFY { "key", "fn" }

#define BCLPY_DOC_HM_INSERT_MANY \
    BCLPY_SIG("insert_many($self, keys, values, promise=None)") \
    "insert() of every (key, value) pair, batched (each protocol step is\n" \
    "issued for a chunk of keys, then one flush).  Not collective.\n" \
    BCLPY_PARAMETERS \
    "keys, values : array_like or sequence\n" \
    "    Converting to the key/value types with casting='safe'; any sequence\n" \
    "    for variable-length types.  Same length.\n" \
    BCLPY_DOC_HM_PROMISE \
    BCLPY_RAISES \
    "ValueError\n" \
    "    If the lengths differ.\n" \
    "pybcl.ContainerFull\n" \
    "    If some keys find no free bucket (the message counts them; all the\n" \
    "    others are stored).\n" \
    BCLPY_EXAMPLES \
    ">>> n = pybcl.HashMap(1 << 16)\n" \
    ">>> n.insert_many(np.arange(100), np.arange(100) * 2)"
#define BCLPY_ARGS_HM_INSERT_MANY { "keys", "values", "promise" }

#define BCLPY_DOC_HM_FIND_MANY \
    BCLPY_SIG("find_many($self, keys, promise=None, collective=False)") \
    "find() of every key, batched.  Not collective, unless collective=True.\n" \
    BCLPY_PARAMETERS \
    "keys : array_like or sequence\n" \
    BCLPY_DOC_HM_PROMISE \
    "collective : bool, optional\n" \
    "    True: every rank calls it, each with its own keys (any number); the\n" \
    "    keys travel to the ranks that own them, which look them up in their\n" \
    "    own memory and answer, in two alltoallv per 2^20 keys a rank, instead\n" \
    "    of a one-sided get per probe (the fast way over a network).  Fixed-size\n" \
    "    key and value types.  An error raises on every rank.\n" \
    BCLPY_RETURNS \
    "values : numpy.ndarray or list\n" \
    "    Of the value type (a list for variable-length types); zero / None\n" \
    "    where not found.\n" \
    "found : numpy.ndarray of bool\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError, ValueError\n" \
    "    If the keys do not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> values, found = n.find_many(np.arange(200))"
#define BCLPY_ARGS_HM_FIND_MANY { "keys", "promise", "collective" }

#define BCLPY_DOC_HM_ACCUMULATE_MANY \
    BCLPY_SIG("accumulate_many($self, keys, deltas=1)") \
    "accumulate() of every key, batched (duplicate keys are merged first).\n" \
    "Not collective.\n" \
    BCLPY_PARAMETERS \
    "keys : array_like or sequence\n" \
    "deltas : number or array_like, optional\n" \
    "    A scalar, or one delta per key.\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For a non-numeric value type.\n" \
    "pybcl.ContainerFull\n" \
    "    As insert_many().\n" \
    BCLPY_EXAMPLES \
    ">>> n.accumulate_many(np.array([1, 1, 2]))"
#define BCLPY_ARGS_HM_ACCUMULATE_MANY { "keys", "deltas" }

#define BCLPY_DOC_HM_SIZE \
    BCLPY_SIG("size($self, /)") \
    "Collective: the number of keys in the whole map (every rank gets the\n" \
    "same int).  Call it when no rank is modifying the map; ``len(m)`` is the\n" \
    "same.  Every rank must call it on the same map: called on some ranks\n" \
    "only, or with another collective elsewhere, it raises pybcl.Error on\n" \
    "every rank.\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.barrier()\n" \
    ">>> m.size() == len(m)\n" \
    "True"

#define BCLPY_DOC_HM_COLLECTIVE_VIEW \
    "_collective_view($self, what)\n--\n\n" \
    "Internal, collective: the first step of items()/keys()/values()/iter():\n" \
    "complete this rank's operations, then check that every rank is in the\n" \
    "same call `what` (a str) on the same map (pybcl.Error on every rank\n" \
    "otherwise); it synchronises as a barrier."

#define BCLPY_DOC_HM_LOCAL_ITEMS \
    BCLPY_SIG("local_items($self, /)") \
    "This rank's (key, value) pairs (the buckets it holds).  Not collective;\n" \
    "iterate after a barrier so no insert is in flight.\n" \
    BCLPY_RETURNS \
    "list of tuple\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.barrier()\n" \
    ">>> mine = dict(m.local_items())"

#define BCLPY_DOC_HM_LOCAL_ARRAYS \
    BCLPY_SIG("local_arrays($self, /)") \
    "This rank's entries as two NumPy arrays, keys and values (a copy, in\n" \
    "bucket order): local_items() for fixed-size types, without a Python\n" \
    "object per entry.  Not collective; call it after a barrier.\n" \
    BCLPY_RETURNS \
    "tuple of numpy.ndarray\n" \
    "    (keys, values), of the map's key and value dtypes.\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For a bytes/str/object key or value type.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.barrier()\n" \
    ">>> keys, counts = m.local_arrays()\n" \
    ">>> histogram = np.bincount(counts)"

#define BCLPY_DOC_HM_RESIZE \
    BCLPY_SIG("resize($self, new_capacity)") \
    "Collective: rebuild the map with `new_capacity` buckets, keeping every\n" \
    "entry.\n" \
    BCLPY_PARAMETERS \
    "new_capacity : int\n" \
    "    The same on every rank (checked).\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    If the entries do not fit, or the ranks disagree.\n" \
    "pybcl.SegmentFull\n" \
    "    If a segment has no room.\n" \
    BCLPY_EXAMPLES \
    ">>> m.resize(2 * m.capacity)"

#define BCLPY_DOC_HM_OWNER \
    BCLPY_SIG("owner($self, key)") \
    "The rank that holds the home bucket of `key` (no communication).\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> 0 <= m.owner(\"apple\") < pybcl.nprocs()\n" \
    "True"

/* ---- HashMapBuffer ------------------------------------------------------ */

#define BCLPY_DOC_HMBUFFER \
    BCLPY_SIG("HashMapBuffer(hashmap, queue_size, message_size, grow=False)") \
    "BCL's aggregated inserts into `hashmap` (collective constructor).\n" \
    "Inserts and accumulates are buffered per owner rank and not visible\n" \
    "until flush() (collective).  As a context manager it flushes on a\n" \
    "normal exit.\n" \
    BCLPY_PARAMETERS \
    "hashmap : pybcl.HashMap\n" \
    "queue_size : int\n" \
    "    Capacity, in entries, of the incoming queue each rank hosts.\n" \
    "message_size : int\n" \
    "    Entries buffered per destination before one push_many.\n" \
    "grow : bool, default False\n" \
    "    The same on every rank.  True: a flush grows the map (resize,\n" \
    "    collective) until every entry fits, instead of raising ContainerFull.\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("TypeError, ValueError") \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for the queues.\n" \
    BCLPY_EXAMPLES \
    ">>> m = pybcl.HashMap(1 << 16)\n" \
    ">>> with pybcl.HashMapBuffer(m, 4096, 256) as buf:\n" \
    "...     buf.accumulate_many(np.arange(1000) % 7)"
#define BCLPY_ARGS_HMBUFFER { "hashmap", "queue_size", "message_size", "grow" }

#define BCLPY_DOC_HB_INSERT \
    BCLPY_SIG("insert($self, key, value)") \
    "Buffer an insert of `key` -> `value`; it is in the map after flush().\n" \
    BCLPY_PARAMETERS \
    "key, value : object\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError, ValueError\n" \
    "    If the key or value does not convert to its type without loss.\n" \
    BCLPY_EXAMPLES \
    ">>> buf.insert(5, 50)"
#define BCLPY_ARGS_HB_INSERT { "key", "value" }

#define BCLPY_DOC_HB_ACCUMULATE \
    BCLPY_SIG("accumulate($self, key, delta=1)") \
    "Buffer an accumulate of `delta` into `key` (numeric value types);\n" \
    "combined with the stored value at flush().\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    "delta : number, optional\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For a non-numeric value type or a key that does not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> buf.accumulate(5)"
#define BCLPY_ARGS_HB_ACCUMULATE { "key", "delta" }

#define BCLPY_DOC_HB_INSERT_MANY \
    BCLPY_SIG("insert_many($self, keys, values)") \
    "Buffer insert() of every (key, value) pair (NumPy fast path).\n" \
    BCLPY_PARAMETERS \
    "keys, values : array_like or sequence\n" \
    "    Same length.\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    If the lengths differ.\n" \
    BCLPY_EXAMPLES \
    ">>> buf.insert_many(np.arange(10), np.ones(10, dtype=np.int64))"
#define BCLPY_ARGS_HB_INSERT_MANY { "keys", "values" }

#define BCLPY_DOC_HB_ACCUMULATE_MANY \
    BCLPY_SIG("accumulate_many($self, keys, deltas=1)") \
    "Buffer accumulate() of every key.\n" \
    BCLPY_PARAMETERS \
    "keys : array_like or sequence\n" \
    "deltas : number or array_like, optional\n" \
    "    A scalar or one per key.\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For a non-numeric value type.\n" \
    BCLPY_EXAMPLES \
    ">>> buf.accumulate_many(np.array([3, 3, 4]))"
#define BCLPY_ARGS_HB_ACCUMULATE_MANY { "keys", "deltas" }

#define BCLPY_DOC_HB_FLUSH \
    BCLPY_SIG("flush($self, /)") \
    "Collective: afterwards every buffered entry of every rank is in the\n" \
    "hash map.\n" \
    BCLPY_RAISES \
    "pybcl.ContainerFull\n" \
    "    On every rank if the map is full (not with grow=True, which resizes\n" \
    "    the map until every entry fits); the entries that did not fit are\n" \
    "    kept, so a later flush() (e.g. after resize()) inserts them.\n" \
    "pybcl.SegmentFull\n" \
    "    On every rank when grow=True needs a larger map than the segments\n" \
    "    hold (entries kept, as above).\n" \
    "OverflowError\n" \
    "    On every rank if an accumulate overflowed the value type.\n" \
    BCLPY_EXAMPLES \
    ">>> buf.flush()"

#define BCLPY_DOC_HM_ERASE \
    BCLPY_SIG("erase($self, key)") \
    "Remove `key` from the map.  Not collective.  Atomic with respect to\n" \
    "insert, find, accumulate and modify of the same key; the bucket becomes\n" \
    "a tombstone that later inserts reuse, and an out-of-line key or value is\n" \
    "freed.  ``del m[key]`` does the same but raises KeyError when the key is\n" \
    "absent.\n" \
    BCLPY_PARAMETERS \
    "key : object\n" \
    BCLPY_RETURNS \
    "bool\n" \
    "    True if the key was stored, False if not.\n" \
    BCLPY_DOC_HM_RAISES_KEY \
    BCLPY_EXAMPLES \
    ">>> m.erase(\"apple\")\n" \
    "True"

#define BCLPY_DOC_HM_ERASE_MANY \
    BCLPY_SIG("erase_many($self, keys)") \
    "Erase every key of `keys`.  Not collective; each key is erased\n" \
    "atomically on its own (a duplicate key is found only once).\n" \
    BCLPY_PARAMETERS \
    "keys : array_like or sequence\n" \
    "    A 1-d array-like of the key type (fixed-size types), or any\n" \
    "    sequence (variable-length key types).\n" \
    BCLPY_RETURNS \
    "found_mask : numpy.ndarray of bool\n" \
    "    True where keys[i] was stored (and is now erased).\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError, ValueError\n" \
    "    If the keys do not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> found = n.erase_many(np.arange(10))"

#endif /* BCLPY_DOC_HASHMAP_H */
