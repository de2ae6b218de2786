/*
 * docstrings/msgpack.h -- docstrings of the codec and hash functions (msgpack_py.c).
 */
#ifndef BCLPY_DOC_MSGPACK_H
#define BCLPY_DOC_MSGPACK_H

#define BCLPY_DOC_PACKB \
    "packb(obj)\n" \
    "--\n" \
    "\n" \
    "Serialize `obj` to msgpack bytes, identical to\n" \
    "msgpack.packb(obj, use_bin_type=True).  Local.  Supports None, bool,\n" \
    "int in [-2**63, 2**64-1], float, str, bytes-like (as bin), list/tuple\n" \
    "(as array) and dict (as map).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "obj : object\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "bytes\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For other types.\n" \
    "OverflowError\n" \
    "    For ints out of range.\n" \
    "ValueError\n" \
    "    For too deep nesting.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.packb([1, 'a'])\n" \
    "b'\\x92\\x01\\xa1a'"

#define BCLPY_DOC_UNPACKB \
    "unpackb(data)\n" \
    "--\n" \
    "\n" \
    "Deserialize one msgpack object: arrays become lists, maps dicts, bin\n" \
    "bytes.  Local; never crashes.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "data : bytes-like\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "object\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    On malformed or truncated input or bytes left over after one object.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.unpackb(pybcl.packb({'k': [1, 2]}))\n" \
    "{'k': [1, 2]}"

#define BCLPY_DOC_HASH64 \
    "hash64(data, seed=0)\n" \
    "--\n" \
    "\n" \
    "XXH64 of the bytes-like `data`: the key hash of the pybcl containers,\n" \
    "the same on every rank, run and machine.  Local.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "data : bytes-like\n" \
    "seed : int, optional\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If `data` is not bytes-like.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.hash64(b'abc') == pybcl.hash64(b'abc')\n" \
    "True"

#define BCLPY_DOC_HASH_U64 \
    "hash_u64(x, seed=0)\n" \
    "--\n" \
    "\n" \
    "hash64 of the 8 little-endian bytes of the uint64 `x` (fast path).\n" \
    "Local.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "x : int\n" \
    "    In [0, 2**64).\n" \
    "seed : int, optional\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "OverflowError\n" \
    "    If `x` is negative or too large.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.hash_u64(5) == pybcl.hash64((5).to_bytes(8, 'little'))\n" \
    "True"

#endif /* BCLPY_DOC_MSGPACK_H */
