/*
 * docstrings/hashmap.h -- docstrings of HashMap (hashmap_py.c, hashmap_many_py.c)
 * and HashMapBuffer (hmbuffer_py.c).
 */
#ifndef BCLPY_DOC_HASHMAP_H
#define BCLPY_DOC_HASHMAP_H

#define BCLPY_DOC_HM_PROMISE \
    "\n"\
    "promise: None (fully atomic) or a pybcl.ConProm.HashMap flag combination\n" \
    "  asserting which operations may run concurrently with this call until\n" \
    "  the next barrier; it selects the cheaper protocol of BCL's Table 3.\n\n"

#define BCLPY_DOC_HASHMAP \
    "HashMap(capacity, key_type='int64', value_type='int64')\n--\n\n" \
    "BCL's distributed hash table: `capacity` buckets spread block-wise over\n" \
    "the ranks.  The constructor is collective: every rank passes the same\n" \
    "arguments (checked; ValueError/TypeError on every rank otherwise).\n\n" \
    "key_type, value_type: a fixed-size NumPy dtype (stored inline; NumPy fast\n" \
    "  paths) or bytes, str or object (msgpack, stored out of line).\n\n" \
    "Keys hash deterministically (XXH64), never with Python's hash().\n" \
    "m[k], m[k] = v and `k in m` are find/insert without a promise."

#define BCLPY_DOC_HM_INSERT \
    "insert($self, key, value, promise=None)\n--\n\n" \
    "Insert `key` -> `value`, or overwrite the value of a present key.\n" \
    "Not collective; visible to others after this call returns.\n\n" \
    BCLPY_DOC_HM_PROMISE \
    "Raises ContainerFull when no free bucket is found within the probe\n" \
    "sequence (nothing is written; a collective resize() makes room; a table\n" \
    "accepts inserts until it is at least half full), TypeError/OverflowError/\n" \
    "ValueError when key or value does not convert to its type without loss."

#define BCLPY_DOC_HM_FIND \
    "find($self, key, default=None, promise=None)\n--\n\n" \
    "Return the value stored under `key`, or `default` if it is absent.\n" \
    "Not collective.\n\n" \
    BCLPY_DOC_HM_PROMISE \
    "With ConProm.HashMap.find alone it is a single get of the bucket.\n" \
    "Raises TypeError/OverflowError/ValueError if key does not convert."

#define BCLPY_DOC_HM_GET \
    "get($self, key, default=None)\n--\n\n" \
    "Return the value of `key`, or `default` if absent (dict.get; an atomic\n" \
    "find).  Not collective."

#define BCLPY_DOC_HM_ACCUMULATE \
    "accumulate($self, key, delta=1, promise=None)\n--\n\n" \
    "Atomically add `delta` to the value of `key`, inserting `delta` if the\n" \
    "key is absent (numeric value types only).  No update is lost when all\n" \
    "ranks hit the same key.  Returns None.  Not collective.\n\n" \
    BCLPY_DOC_HM_PROMISE \
    "Raises TypeError for a non-numeric value type, ContainerFull when a new\n" \
    "key finds no free bucket (nothing written)."

#define BCLPY_DOC_HM_MODIFY \
    "modify($self, key, fn)\n--\n\n" \
    "Atomically replace the value v of `key` (None if absent) by fn(v) and\n" \
    "return the new value, as BCL's modify.  fn runs while the key's bucket is\n" \
    "locked: it must not use that key of this map.  An exception from fn\n" \
    "propagates and leaves the value unchanged.  Not collective.\n" \
    "Raises ContainerFull when an absent key finds no free bucket."

#define BCLPY_DOC_HM_INSERT_MANY \
    "insert_many($self, keys, values, promise=None)\n--\n\n" \
    "insert() of every (key, value) pair, batched (each protocol step is\n" \
    "issued for a chunk of keys, then one flush).  Returns None.  Not\n" \
    "collective.\n\n" \
    "keys, values: NumPy arrays (or sequences) converting to the key/value\n" \
    "  types with casting='safe'; any sequence for variable-length types.\n\n" \
    BCLPY_DOC_HM_PROMISE \
    "Raises ValueError if the lengths differ, ContainerFull if some keys find\n" \
    "no free bucket (the message counts them; all the others are stored)."

#define BCLPY_DOC_HM_FIND_MANY \
    "find_many($self, keys, promise=None)\n--\n\n" \
    "find() of every key, batched.  Not collective.\n\n" \
    "Returns (values, found): values an array of the value type (a list for\n" \
    "variable-length types; zero / None where not found), found a bool array.\n" \
    BCLPY_DOC_HM_PROMISE

#define BCLPY_DOC_HM_ACCUMULATE_MANY \
    "accumulate_many($self, keys, deltas=1)\n--\n\n" \
    "accumulate() of every key, batched; `deltas` a scalar or one delta per\n" \
    "key (duplicate keys are merged first).  Returns None.  Not collective.\n" \
    "Raises TypeError for a non-numeric value type, ContainerFull as insert."

#define BCLPY_DOC_HM_SIZE \
    "size($self, /)\n--\n\n" \
    "Collective: return the number of keys in the whole map (every rank gets\n" \
    "the same int).  Call it when no rank is modifying the map.  Every rank\n" \
    "must call it on the same map: called on some ranks only, or with\n" \
    "another collective elsewhere, it raises pybcl.Error on every rank."

#define BCLPY_DOC_HM_COLLECTIVE_VIEW \
    "_collective_view($self, what)\n--\n\n" \
    "Internal, collective: the first step of items()/keys()/values()/iter():\n" \
    "complete this rank's operations, then check that every rank is in the\n" \
    "same call `what` (a str) on the same map (pybcl.Error on every rank\n" \
    "otherwise); it synchronises as a barrier."

#define BCLPY_DOC_HM_LOCAL_ITEMS \
    "local_items($self, /)\n--\n\n" \
    "Return a list of this rank's (key, value) pairs (the buckets it holds).\n" \
    "Not collective; iterate after a barrier so no insert is in flight."

#define BCLPY_DOC_HM_RESIZE \
    "resize($self, new_capacity)\n--\n\n" \
    "Collective: rebuild the map with `new_capacity` buckets, keeping every\n" \
    "entry.  All ranks must pass the same value (checked).  Raises ValueError\n" \
    "if the entries do not fit, SegmentFull if the segment has no room."

#define BCLPY_DOC_HM_OWNER \
    "owner($self, key)\n--\n\n" \
    "Return the rank that holds the home bucket of `key` (no communication)."

/* ---- HashMapBuffer ------------------------------------------------------ */

#define BCLPY_DOC_HMBUFFER \
    "HashMapBuffer(hashmap, queue_size, message_size)\n--\n\n" \
    "BCL's aggregated inserts into `hashmap` (collective constructor).\n" \
    "queue_size: capacity, in entries, of the incoming queue each rank hosts;\n" \
    "message_size: entries buffered per destination before one push_many.\n" \
    "Inserts and accumulates are buffered and not visible until flush()."

#define BCLPY_DOC_HB_INSERT \
    "insert($self, key, value)\n--\n\n" \
    "Buffer an insert of key -> value; it is in the map after flush().\n" \
    "Raises TypeError/OverflowError/ValueError if key or value does not convert."

#define BCLPY_DOC_HB_ACCUMULATE \
    "accumulate($self, key, delta=1)\n--\n\n" \
    "Buffer an accumulate of `delta` into `key` (numeric value types); combined\n" \
    "with the stored value at flush()."

#define BCLPY_DOC_HB_INSERT_MANY \
    "insert_many($self, keys, values)\n--\n\n" \
    "Buffer insert() of every (key, value) pair (NumPy fast path)."

#define BCLPY_DOC_HB_ACCUMULATE_MANY \
    "accumulate_many($self, keys, deltas=1)\n--\n\n" \
    "Buffer accumulate() of every key; deltas a scalar or one per key."

#define BCLPY_DOC_HB_FLUSH \
    "flush($self, /)\n--\n\n" \
    "Collective: afterwards every buffered entry of every rank is in the hash\n" \
    "map.  If the map is full it raises ContainerFull on every rank and keeps\n" \
    "the entries that did not fit, so a later flush() (e.g. after resize())\n" \
    "inserts them."

#endif /* BCLPY_DOC_HASHMAP_H */
