/*
 * view.c -- zero-copy NumPy views of segment memory (local() and friends),
 * pinned so that finalize() detaches them instead of unmapping the bytes
 * from under NumPy (runtime/bcl_viewpin.h).
 */
#include "bclpy.h"

#include <stdint.h>

#include "runtime/bcl_viewpin.h"

/* The capsule of a view dies with the view: unpin, release the owner. */
static void unpin(PyObject *keeper)
{
    intptr_t h = (intptr_t)PyCapsule_GetPointer(keeper, "pybcl.view");
    PyObject *owner = PyCapsule_GetContext(keeper);
    if (h >= 2)
        bcl_view_unpin((int)(h - 2));
    Py_XDECREF(owner);
}

PyObject *bclpy_segment_view(void *addr, npy_intp count, PyArray_Descr *dtype,
                             PyObject *owner)
{
    Py_INCREF(dtype);                       /* PyArray_NewFromDescr steals it */
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, dtype, 1, &count, NULL, addr,
                                         NPY_ARRAY_CARRAY, NULL);
    if (!arr)
        return NULL;
    /* The base is a capsule that keeps the owner alive and pins the bytes,
     * so finalize() detaches the view instead of unmapping it from under
     * NumPy (runtime/bcl_viewpin.h). */
    size_t len = (size_t)count * (size_t)PyDataType_ELSIZE(dtype);
    int handle = bcl_view_pin(addr, len);
    PyObject *keeper = PyCapsule_New((void *)(intptr_t)(handle + 2), "pybcl.view", unpin);
    if (!keeper) {
        bcl_view_unpin(handle);
        Py_DECREF(arr);
        return NULL;
    }
    Py_INCREF(owner);                       /* the view keeps its owner alive */
    if (PyCapsule_SetContext(keeper, owner) < 0) {
        Py_DECREF(owner);
        Py_DECREF(keeper);
        Py_DECREF(arr);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, keeper) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}
