/*
 * docstrings/msgpack.h -- docstrings of the codec and hash functions (msgpack_py.c).
 */
#ifndef BCLPY_DOC_MSGPACK_H
#define BCLPY_DOC_MSGPACK_H

#define BCLPY_DOC_PACKB \
    "packb(obj)\n--\n\n" \
    "Serialize `obj` to msgpack bytes, identical to\n" \
    "msgpack.packb(obj, use_bin_type=True).  Local.\n\n" \
    "Supports None, bool, int in [-2**63, 2**64-1], float, str, bytes-like (as\n" \
    "bin), list/tuple (as array) and dict (as map).  Raises TypeError for\n" \
    "other types, OverflowError for ints out of range, ValueError for too\n" \
    "deep nesting."

#define BCLPY_DOC_UNPACKB \
    "unpackb(data)\n--\n\n" \
    "Deserialize one msgpack object from a bytes-like `data`: arrays become\n" \
    "lists, maps dicts, bin bytes.  Local.  Raises ValueError on malformed or\n" \
    "truncated input or bytes left over after one object; never crashes."

#define BCLPY_DOC_HASH64 \
    "hash64(data, seed=0)\n--\n\n" \
    "Return XXH64 of the bytes-like `data` with `seed` (int): the key hash of\n" \
    "the pybcl containers, the same on every rank, run and machine.  Local."

#define BCLPY_DOC_HASH_U64 \
    "hash_u64(x, seed=0)\n--\n\n" \
    "Return hash64 of the 8 little-endian bytes of the uint64 `x` (fast path).\n" \
    "Raises OverflowError if x is negative or too large.  Local."

#endif /* BCLPY_DOC_MSGPACK_H */
