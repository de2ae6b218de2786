/*
 * args.c -- argument parsing shared by the METH_FASTCALL | METH_KEYWORDS
 * methods of the binding: every documented parameter can be passed by the
 * name docs/api.md gives it, as users of mpi4py and NumPy expect; and the
 * checks every binding file makes on its arguments and objects (ints in a
 * range, usable containers), so their messages read the same everywhere.
 */
#include "bclpy.h"

#include <limits.h>

/* Fill out[0..n) from positional args then keywords (NULL = not given). */
int bclpy_parse(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames, const char *const *names, int nreq, int n,
                PyObject **out)
{
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    if (nargs > n)
        return PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)",
                            fname, n, nargs), -1;
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, j);
        int i = 0;
        while (i < n && PyUnicode_CompareWithASCIIString(name, names[i]) != 0)
            i++;
        if (i == n)
            return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword "
                                "argument %R", fname, name), -1;
        if (out[i])
            return PyErr_Format(PyExc_TypeError, "%s() got multiple values for "
                                "argument '%s'", fname, names[i]), -1;
        out[i] = args[nargs + j];
    }
    for (int i = 0; i < nreq; i++)
        if (!out[i])
            return PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'",
                                fname, names[i]), -1;
    return 0;
}

PyObject *bclpy_index(PyObject *o, const char *name)
{
    PyObject *i = PyNumber_Index(o);
    if (!i && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name,
                     Py_TYPE(o)->tp_name);
    }
    return i;
}

int bclpy_int_arg(PyObject *o, const char *name, long long lo, long long hi, long long *out)
{
    if (!PyIndex_Check(o) || PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *i = bclpy_index(o, name);
    if (!i)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < lo || v > hi) {
        if (hi == LLONG_MAX && (lo == 0 || lo == 1))    /* only a lower bound */
            PyErr_Format(PyExc_ValueError, "%s must be a %s int, got %R", name,
                         lo ? "positive" : "non-negative", o);
        else
            PyErr_Format(PyExc_ValueError, "%s must be in [%lld, %lld], got %R", name, lo,
                         hi, o);
        return -1;
    }
    *out = v;
    return 0;
}

int bclpy_stale(const char *tname, int created)
{
    if (!created)
        PyErr_Format(bclpy_Error, "%s was not initialised", tname);
    else if (created == BCLPY_CLOSED)
        PyErr_Format(PyExc_ValueError, "operation on a closed %s", tname);
    else if (!bcl_rt.initialized)
        PyErr_Format(bclpy_Error, "%s cannot be used: pybcl was finalized", tname);
    else
        PyErr_Format(bclpy_Error, "%s was made before pybcl.finalize() and the runtime "
                     "was initialised again: containers do not survive a finalize "
                     "(make a new one)", tname);
    return -1;
}
