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

#endif /* BCLPY_MSGPACK_PY_H */
