/*
 * msgpack_py.h -- Python object <-> msgpack bytes, for the binding files.
 *
 * Containers store keys and values as msgpack; these are the converters they
 * share with pybcl.packb / pybcl.unpackb (same rules, same errors).
 * Include after bclpy.h.
 */
#ifndef BCLPY_MSGPACK_PY_H
#define BCLPY_MSGPACK_PY_H

#include "serial/bcl_msgpack.h"

/* Append the msgpack encoding of `obj` to `w`.  Returns 0, or -1 with a
 * Python exception set (TypeError for an unsupported type, OverflowError for
 * an int outside [-2**63, 2**64-1], ValueError for nesting deeper than
 * BCL_MP_MAX_DEPTH, MemoryError).  On failure `w` may hold a partial
 * encoding after its original length. */
int bclpy_pack(bcl_mp_writer *w, PyObject *obj);

/* Decode exactly one object from data[0..len) (trailing bytes are an
 * error).  Returns a new reference, or NULL with ValueError (malformed,
 * truncated, trailing data, unhashable map key, invalid UTF-8) or
 * MemoryError set. */
PyObject *bclpy_unpack(const unsigned char *data, size_t len);

/* Containers' variants (docs/api.md "Element types" and "Key equality").
 * bclpy_pack_value: as bclpy_pack, but a dict keyed by a list/tuple/dict
 * (which could not be read back) is a TypeError.  bclpy_pack_key: packs the
 * representative of the key's equality class -- True/False and integral
 * floats as ints (1 == 1.0 == True: one key), tuples item by item -- and
 * refuses unhashable lists, bytearrays and dicts (TypeError).
 * bclpy_unpack_key: as bclpy_unpack, arrays decoded as tuples. */
int bclpy_pack_value(bcl_mp_writer *w, PyObject *obj);
int bclpy_pack_key(bcl_mp_writer *w, PyObject *obj);
PyObject *bclpy_unpack_key(const unsigned char *data, size_t len);

#endif /* BCLPY_MSGPACK_PY_H */
