/*
 * gups_py.c -- the GUPS kernels of csrc/kernels/bcl_gups.h for
 * pybcl.apps.gups: the HPCC update stream and the one-atomic-per-update loop,
 * whose table is a DArray of pybcl._core (reached through its C API).
 */
#include "apps/kernels_py.h"

#include "kernels/bcl_gups.h"
#include "apps/generated/gups.h"

static int u64_arg(PyObject *o, const char *name, uint64_t *out)
{
    PyObject *i = bclpy_index(o, name);
    if (!i)
        return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_OverflowError, "%s must be in [0, 2**64), got %R", name, o);
        return -1;
    }
    *out = v;
    return 0;
}

static PyObject *py_gups_starts(PyObject *m, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_GUPS_STARTS;
    PyObject *a_[1];
    long long n;
    if (bclpy_parse("gups_starts", args, nargs, kwnames, names, 1, 1, a_) < 0 ||
        bclpy_int_arg(a_[0], "n", -BCL_GUPS_PERIOD, BCL_GUPS_PERIOD, &n) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(bcl_gups_starts((int64_t)n));
}

static PyObject *py_gups_stream(PyObject *m, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_GUPS_STREAM;
    PyObject *a_[2];
    uint64_t state;
    long long n;
    if (bclpy_parse("gups_stream", args, nargs, kwnames, names, 2, 2, a_) < 0 ||
        u64_arg(a_[0], "state", &state) < 0 ||
        bclpy_int_arg(a_[1], "n", 0, 1LL << 40, &n) < 0)
        return NULL;
    npy_intp dims[1] = { (npy_intp)n };
    PyObject *out = PyArray_SimpleNew(1, dims, NPY_UINT64);
    if (!out)
        return NULL;
    bcl_gups_stream(&state, PyArray_DATA((PyArrayObject *)out), (size_t)n);
    return Py_BuildValue("(NK)", out, (unsigned long long)state);
}

/* The table of bcl_gups_atomic: a DArray of _core (its C API). */
static bcl_status post_xor(const void *table, uint64_t i, uint64_t value)
{
    return bclpy_core->array_post(table, i, BCL_OP_XOR, value);
}

static PyObject *py_gups_atomic(PyObject *m, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_GUPS_ATOMIC;
    PyObject *a_[3];
    const bcl_array *t;
    PyArray_Descr *dtype;
    uint64_t state;
    long long n;
    if (bclpy_parse("gups_atomic", args, nargs, kwnames, names, 3, 3, a_) < 0 ||
        bclpy_core->array_unwrap(a_[0], "table", &t, &dtype) < 0 ||
        u64_arg(a_[1], "state", &state) < 0 ||
        bclpy_int_arg(a_[2], "n", 0, 1LL << 48, &n) < 0)
        return NULL;
    if (dtype->type_num != NPY_UINT64)
        return PyErr_Format(PyExc_TypeError, "table must hold uint64, not %R",
                            (PyObject *)dtype);
    if (t->size == 0 || (t->size & (t->size - 1)))
        return PyErr_Format(PyExc_ValueError, "the GUPS table must hold a power of two "
                            "of 8-byte words, not %llu", (unsigned long long)t->size);
    bcl_gups_table tab = { t, t->size, post_xor, bclpy_core->flush };
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_gups_atomic(&tab, &state, (uint64_t)n);
    Py_END_ALLOW_THREADS
    if (st != BCL_OK)
        return bclpy_core->raise(st);
    return PyLong_FromUnsignedLongLong(state);
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "apps/generated/bclpy_gups_methods_clinic.h"
