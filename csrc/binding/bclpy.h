/*
 * bclpy.h -- shared declarations of the CPython binding layer (pybcl._core).
 *
 * The binding only converts Python objects and calls the C core (csrc/core);
 * it never calls MPI itself.  Every binding file includes this header first.
 * NumPy's C API table is shared across the files of the one extension module:
 * module.c defines BCLPY_IMPORT_ARRAY before including this header and calls
 * import_array(); the other files see NO_IMPORT_ARRAY.
 */
#ifndef BCLPY_H
#define BCLPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL bclpy_ARRAY_API
#ifndef BCLPY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "../core/bcl_error.h"

/* Exception classes, created in module.c (pybcl.Error and subclasses). */
extern PyObject *bclpy_Error;        /* base: pybcl.Error                   */
extern PyObject *bclpy_SegmentFull;  /* MemoryError + Error                 */
extern PyObject *bclpy_ContainerFull;
extern PyObject *bclpy_Empty;

/* Raise the Python exception matching a core failure `st` (with the core's
 * message) and return NULL, so call sites read `return bclpy_raise(st);`. */
PyObject *bclpy_raise(bcl_status st);

/* Method tables contributed by the binding files; module.c adds each of them
 * to the module with PyModule_AddFunctions(). */
extern PyMethodDef bclpy_msgpack_methods[];

#endif /* BCLPY_H */
