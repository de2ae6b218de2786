/*
 * convert.c -- conversions shared by the binding files (and the apps'
 * extension): dtype-likes to descriptors, bytes to NumPy scalars, atomic
 * operands and results, element types in a repr, new 1-d arrays.  The casting rules
 * (Python object -> element bytes without loss) are in cast.c.
 */
#include "bclpy.h"

#include <stdint.h>
#include <string.h>

PyArray_Descr *bclpy_dtype(PyObject *obj, const char *argname)
{
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(obj, &d)) {
        PyErr_Format(PyExc_TypeError, "%s: %R is not a NumPy dtype", argname, obj);
        return NULL;
    }
    if (PyDataType_REFCHK(d) || PyDataType_ELSIZE(d) == 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s: dtype %R is not a fixed-size plain-data type (objects "
                     "and flexible-size types cannot live in a shared segment)",
                     argname, (PyObject *)d);
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *bclpy_from_bytes(const void *data, PyArray_Descr *dtype)
{
    /* PyArray_Scalar may read unaligned data: copy to an aligned buffer. */
    union { double d; long long q; char bytes[64]; } small;
    if ((size_t)PyDataType_ELSIZE(dtype) <= sizeof small) {
        memcpy(small.bytes, data, (size_t)PyDataType_ELSIZE(dtype));
        return PyArray_Scalar(small.bytes, dtype, NULL);
    }
    return PyArray_Scalar((void *)data, dtype, NULL);
}

int bclpy_atomic_width(PyArray_Descr *dtype, const char *argname)
{
    int ok = (dtype->kind == 'i' || dtype->kind == 'u') &&
             (PyDataType_ELSIZE(dtype) == 4 || PyDataType_ELSIZE(dtype) == 8) &&
             !PyDataType_ISBYTESWAPPED(dtype);
    if (!ok) {
        PyErr_Format(PyExc_TypeError,
                     "%s: atomics need a 32- or 64-bit native integer dtype, not %R",
                     argname, (PyObject *)dtype);
        return -1;
    }
    return PyDataType_ELSIZE(dtype);
}

int bclpy_atomic_operand(PyObject *v, PyArray_Descr *dtype, uint64_t *out,
                         const char *argname)
{
    /* The casting rules of every element (cast.c), then the 64-bit pattern
     * the core's atomics take (a 4-byte operand in its low half, as
     * bclpy_atomic_result reads it back). */
    union { int32_t i32; uint32_t u32; uint64_t u64; } x;
    if (bclpy_to_bytes(v, dtype, &x, argname) < 0)
        return -1;
    if (PyDataType_ELSIZE(dtype) == 8)
        *out = x.u64;
    else
        *out = dtype->kind == 'u' ? x.u32 : (uint64_t)(uint32_t)x.i32;
    return 0;
}

PyObject *bclpy_atomic_result(uint64_t bits, PyArray_Descr *dtype)
{
    if (dtype->kind == 'u')
        return PyLong_FromUnsignedLongLong(PyDataType_ELSIZE(dtype) == 4 ? (uint32_t)bits : bits);
    if (PyDataType_ELSIZE(dtype) == 4)
        return PyLong_FromLong((int32_t)(uint32_t)bits);
    return PyLong_FromLongLong((int64_t)bits);
}

int bclpy_elem_of(PyArray_Descr *d, bcl_elem *out)
{
    if (PyDataType_ISBYTESWAPPED(d))
        return -1;
    switch (d->kind) {
    case 'b': *out = BCL_BOOL; return PyDataType_ELSIZE(d) == 1 ? 0 : -1;
    case 'f':
        if (PyDataType_ELSIZE(d) == 4) { *out = BCL_F32; return 0; }
        if (PyDataType_ELSIZE(d) == 8) { *out = BCL_F64; return 0; }
        return -1;
    case 'i': case 'u': {
        static const bcl_elem si[] = { BCL_I8, BCL_I16, 0, BCL_I32, 0, 0, 0, BCL_I64 };
        static const bcl_elem ui[] = { BCL_U8, BCL_U16, 0, BCL_U32, 0, 0, 0, BCL_U64 };
        int e = PyDataType_ELSIZE(d);
        if (e != 1 && e != 2 && e != 4 && e != 8)
            return -1;
        *out = d->kind == 'i' ? si[e - 1] : ui[e - 1];
        return 0;
    }
    default: return -1;
    }
}

/* The repr style of every pybcl object is its constructor call, so element
 * types print as the argument that makes them: 'int64', '|S16', a structured
 * dtype's field list, or the Python type str / bytes / object. */
PyObject *bclpy_spec_repr(PyObject *spec)
{
    if (PyType_Check(spec))
        return PyUnicode_FromString(((PyTypeObject *)spec)->tp_name);
    if (PyArray_DescrCheck(spec) && !PyDataType_HASFIELDS((PyArray_Descr *)spec)) {
        PyObject *name = PyObject_Str(spec);
        if (!name)
            return NULL;
        PyObject *r = PyObject_Repr(name);
        Py_DECREF(name);
        return r;
    }
    return PyObject_Str(spec);
}

PyObject *bclpy_new_1d(npy_intp n, int type)
{
    return PyArray_SimpleNew(1, &n, type);
}

PyObject *bclpy_shrink(PyObject *arr, npy_intp n)
{
    PyArray_Dims dims = { &n, 1 };
    PyObject *r = PyArray_Resize((PyArrayObject *)arr, &dims, 0, NPY_CORDER);
    if (!r) {
        Py_DECREF(arr);
        return NULL;
    }
    Py_DECREF(r);             /* PyArray_Resize returns None */
    return arr;
}

PyObject *bclpy_pair(PyObject *a, PyObject *b)
{
    if (!a || !b) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        return NULL;
    }
    return Py_BuildValue("(NN)", a, b);
}
