/*
 * array_py.h -- the one internal header of the DArray/Array binding files:
 * array_py.c (types, indexing, methods) calls the leaves array_numpy_py.c
 * (np.asarray() and iteration) and array_update_py.c (update_many,
 * DArrayBuffer), which call nothing of array_py.c.  Include after bclpy.h.
 */
#ifndef BCLPY_ARRAY_PY_H
#define BCLPY_ARRAY_PY_H

#include "bclpy.h"
#include "containers/bcl_array.h"

typedef struct {
    PyObject_HEAD
    bcl_array a;
    PyArray_Descr *dtype;
    bclpy_life life;       /* usable? (bclpy.h) */
} ArrayObject;

/* a.__array__(dtype=None, copy=None): the whole array as a new NumPy array
 * (collective for a DArray).  a.__iter__(): its elements, one by one. */
PyObject *bclpy_array_asarray(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames);
PyObject *bclpy_array_iter(PyObject *self);

/* obj is a usable DArray or Array: its core array and dtype (borrowed).
 * -1 with TypeError naming argname (not an array) or pybcl.Error (stale). */
static inline int bclpy_array_unwrap(PyObject *obj, const char *argname,
                                     const bcl_array **a, PyArray_Descr **dtype)
{
    bclpy_state *st = bclpy_type_state(Py_TYPE(obj));
    PyErr_Clear();          /* not a type of ours: the TypeError below */
    if (!st || (Py_TYPE(obj) != st->types[BCLPY_T_DARRAY] &&
                Py_TYPE(obj) != st->types[BCLPY_T_ARRAY])) {
        PyErr_Format(PyExc_TypeError, "%s must be a pybcl.DArray or pybcl.Array, not "
                     "%.100s", argname, Py_TYPE(obj)->tp_name);
        return -1;
    }
    ArrayObject *self = (ArrayObject *)obj;
    BCLPY_LIVE_OR(self, -1);
    *a = &self->a;
    *dtype = self->dtype;
    return 0;
}

/* DArray/Array.update_many (array_update_py.c). */
PyObject *bclpy_array_update_many_impl(ArrayObject *self, PyObject *indices, PyObject *values,
                                       PyObject *op);

#endif /* BCLPY_ARRAY_PY_H */
