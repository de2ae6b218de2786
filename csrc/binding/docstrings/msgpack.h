/*
 * docstrings/msgpack.h -- docstrings of the codec and hash functions (msgpack_py.c).
 */
#ifndef BCLPY_DOC_MSGPACK_H
#define BCLPY_DOC_MSGPACK_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_PACKB \
    BCLPY_SIG("packb(obj)") \
    "Serialize `obj` to msgpack bytes, identical to\n" \
    "msgpack.packb(obj, use_bin_type=True).  Local.  Supports None, bool,\n" \
    "int in [-2**63, 2**64-1], float, str, bytes-like (as bin), list/tuple\n" \
    "(as array) and dict (as map).\n" \
    BCLPY_PARAMETERS \
    "obj : object\n" \
    BCLPY_RETURNS \
    "bytes\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For other types.\n" \
    "OverflowError\n" \
    "    For ints out of range.\n" \
    "ValueError\n" \
    "    For too deep nesting.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.packb([1, 'a'])\n" \
    "b'\\x92\\x01\\xa1a'"

#define BCLPY_DOC_UNPACKB \
    BCLPY_SIG("unpackb(data)") \
    "Deserialize one msgpack object: arrays become lists, maps dicts, bin\n" \
    "bytes.  Local; never crashes.\n" \
    BCLPY_PARAMETERS \
    "data : bytes-like\n" \
    BCLPY_RETURNS \
    "object\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    On malformed or truncated input or bytes left over after one object.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.unpackb(pybcl.packb({'k': [1, 2]}))\n" \
    "{'k': [1, 2]}"

#define BCLPY_DOC_HASH64 \
    BCLPY_SIG("hash64(data, seed=0)") \
    "XXH64 of the bytes-like `data`: the key hash of the pybcl containers,\n" \
    "the same on every rank, run and machine.  Local.\n" \
    BCLPY_PARAMETERS \
    "data : bytes-like\n" \
    "seed : int, optional\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    If `data` is not bytes-like.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.hash64(b'abc') == pybcl.hash64(b'abc')\n" \
    "True"
#define BCLPY_ARGS_HASH64 { "data", "seed" }

#define BCLPY_DOC_HASH_U64 \
    BCLPY_SIG("hash_u64(x, seed=0)") \
    "hash64 of the 8 little-endian bytes of the uint64 `x` (fast path).\n" \
    "Local.\n" \
    BCLPY_PARAMETERS \
    "x : int\n" \
    "    In [0, 2**64).\n" \
    "seed : int, optional\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_RAISES \
    "OverflowError\n" \
    "    If `x` is negative or too large.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.hash_u64(5) == pybcl.hash64((5).to_bytes(8, 'little'))\n" \
    "True"
#define BCLPY_ARGS_HASH_U64 { "x", "seed" }

#endif /* BCLPY_DOC_MSGPACK_H */
