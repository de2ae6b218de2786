/*
 * elemtype.h -- element types: the one place that decides how a container
 * key/value/element is laid out in a slot (docs/api.md "Element types").
 *
 *   fixed   a fixed-size NumPy dtype; the slot holds its itemsize bytes,
 *           byte-copied; eligible for the NumPy fast paths.
 *   bytes / str / object
 *           variable length; msgpack-serialized (pybcl.packb's format), the
 *           bytes stored out of line in the writer's segment; the slot holds
 *           a 16-byte bcl_objref (BCL's ObjectContainer / serial_ptr).
 *
 * Keys are hashed and compared by their serialized bytes: the raw bytes of
 * a fixed key, the msgpack bytes of a variable-length one.
 */
#ifndef BCLPY_ELEMTYPE_H
#define BCLPY_ELEMTYPE_H

#include "bclpy.h"
#include "msgpack_py.h"
#include "containers/bcl_object.h"

typedef enum { BCLPY_FIXED, BCLPY_BYTES, BCLPY_STR, BCLPY_OBJECT } bclpy_kind;

typedef struct bclpy_elemtype {
    bclpy_kind kind;
    PyArray_Descr *dtype;   /* FIXED: the dtype (owned); else NULL          */
    size_t slot_size;       /* bytes one element takes in a container slot  */
} bclpy_elemtype;

/* spec: a dtype-like, or the Python types bytes / str / object (or the
 * strings "bytes", "str", "object"); NULL (not given): the dtype named
 * `dflt`.  -1 with TypeError naming argname. */
int bclpy_elemtype_init(bclpy_elemtype *t, PyObject *spec, const char *dflt,
                        const char *argname);
void bclpy_elemtype_clear(bclpy_elemtype *t);
static inline int bclpy_elemtype_is_var(const bclpy_elemtype *t)
{
    return t->kind != BCLPY_FIXED;
}

/* The spec as users see it: the np.dtype, or bytes / str / object. */
PyObject *bclpy_elemtype_spec(const bclpy_elemtype *t);
/* ... as the argument that makes it in a repr (bclpy_spec_repr). */
PyObject *bclpy_elemtype_repr(const bclpy_elemtype *t);

/* v -> its serialized bytes, appended to w (reset w first if you want only
 * these): itemsize raw bytes for FIXED, msgpack for the others.  bytes
 * elements take any bytes-like object, str elements only str.  -1 with an
 * exception naming argname. */
int bclpy_elem_serialize(const bclpy_elemtype *t, PyObject *v, bcl_mp_writer *w,
                         const char *argname);

/* Keys: as bclpy_elem_serialize, but object keys pack as the representative
 * of their equality class (1 == 1.0 == True is one key; lists and dicts are
 * refused as unhashable); bclpy_key_load reads a key back (tuples stay
 * tuples).  docs/api.md "Key equality". */
int bclpy_key_serialize(const bclpy_elemtype *t, PyObject *v, bcl_mp_writer *w,
                        const char *argname);
PyObject *bclpy_key_load(const bclpy_elemtype *t, const void *slot);

/* Slot -> Python object (reads out-of-line bytes for var kinds). */
PyObject *bclpy_elem_load(const bclpy_elemtype *t, const void *slot);

/* Serialized bytes -> Python object. */
PyObject *bclpy_elem_decode(const bclpy_elemtype *t, const void *bytes, size_t len);

/* Serialized bytes of the element in `slot` into w (for comparing keys):
 * the slot bytes themselves for FIXED, the out-of-line bytes otherwise. */
int bclpy_elem_slot_bytes(const bclpy_elemtype *t, const void *slot, bcl_mp_writer *w);

#endif /* BCLPY_ELEMTYPE_H */
