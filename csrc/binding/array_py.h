/*
 * array_py.h -- what array_py.c (pybcl.DArray / pybcl.Array) shares with the
 * binding files that extend arrays (array_update_py.c).
 */
#ifndef BCLPY_ARRAY_PY_H
#define BCLPY_ARRAY_PY_H

#include "bclpy.h"
#include "containers/bcl_array.h"

/* obj is a usable DArray or Array: its core array and dtype (borrowed).
 * -1 with TypeError naming argname (not an array) or pybcl.Error (stale). */
int bclpy_array_unwrap(PyObject *obj, const char *argname, const bcl_array **a,
                       PyArray_Descr **dtype);

/* DArray/Array.update_many (array_update_py.c). */
PyObject *bclpy_array_update_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames);

#endif /* BCLPY_ARRAY_PY_H */
