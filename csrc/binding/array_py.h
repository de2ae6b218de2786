/*
 * array_py.h -- shared by the DArray/Array binding files: array_py.c (types,
 * indexing, methods) and array_numpy_py.c (np.asarray() and iteration).
 * Include after bclpy.h.
 */
#ifndef BCLPY_ARRAY_PY_H
#define BCLPY_ARRAY_PY_H

#include "containers/bcl_array.h"

typedef struct {
    PyObject_HEAD
    bcl_array a;
    PyArray_Descr *dtype;
    int created;
    uint64_t epoch;         /* runtime epoch it was made in */
} ArrayObject;

/* a.__array__(dtype=None, copy=None): the whole array as a new NumPy array
 * (collective for a DArray).  a.__iter__(): its elements, one by one. */
PyObject *bclpy_array_asarray(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames);
PyObject *bclpy_array_iter(PyObject *self);

#endif /* BCLPY_ARRAY_PY_H */
