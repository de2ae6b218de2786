/*
 * args.c -- argument parsing shared by the METH_FASTCALL | METH_KEYWORDS
 * methods of the binding: every documented parameter can be passed by the
 * name docs/api.md gives it, as users of mpi4py and NumPy expect; and the
 * checks every binding file makes on its arguments (ints in a range, str,
 * float), so their messages read the same everywhere.
 */
#include "bclpy.h"

#include <limits.h>

/* out[i] of the parameter called `name`, or -1 with TypeError. */
static int slot_of(const char *fname, PyObject *name, const char *const *names, int n,
                   PyObject **out)
{
    int i = 0;
    while (i < n && (!PyUnicode_Check(name) ||
                     PyUnicode_CompareWithASCIIString(name, names[i]) != 0))
        i++;
    if (i == n)
        return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
                            fname, name), -1;
    if (out[i])
        return PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
                            fname, names[i]), -1;
    return i;
}

static int positional(const char *fname, PyObject *const *args, Py_ssize_t nargs, int n,
                      PyObject **out)
{
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    if (nargs > n)
        return PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)",
                            fname, n, nargs), -1;
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    return 0;
}

static int required(const char *fname, const char *const *names, int nreq, PyObject **out)
{
    for (int i = 0; i < nreq; i++)
        if (!out[i] && !names)
            return PyErr_Format(PyExc_TypeError, "%s() takes at least %d positional "
                                "arguments (%d given)", fname, nreq, i), -1;
        else if (!out[i])
            return PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'",
                                fname, names[i]), -1;
    return 0;
}

int bclpy_parse_slow(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames, const char *const *names, int nreq, int n,
                     PyObject **out)
{
    if (positional(fname, args, nargs, n, out) < 0)
        return -1;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nkw && !names)
        return PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", fname), -1;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        int i = slot_of(fname, PyTuple_GET_ITEM(kwnames, j), names, n, out);
        if (i < 0)
            return -1;
        out[i] = args[nargs + j];
    }
    return required(fname, names, nreq, out);
}

int bclpy_parse_init(const char *fname, PyObject *args, PyObject *kwds,
                     const char *const *names, int nreq, int n, PyObject **out)
{
    if (positional(fname, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), n, out) < 0)
        return -1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (kwds && PyDict_Next(kwds, &pos, &key, &value)) {
        int i = slot_of(fname, key, names, n, out);
        if (i < 0)
            return -1;
        out[i] = value;
    }
    return required(fname, names, nreq, out);
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

int bclpy_opt_int(PyObject *o, const char *name, long long lo, long long hi, long long dflt,
                  long long *out)
{
    if (!o) {
        *out = dflt;
        return 0;
    }
    return bclpy_int_arg(o, name, lo, hi, out);
}

int bclpy_u64_mask_arg(PyObject *o, const char *name, uint64_t *out)
{
    PyObject *i = bclpy_index(o, name);
    if (!i)
        return -1;
    *out = PyLong_AsUnsignedLongLongMask(i);
    Py_DECREF(i);
    return 0;
}

int bclpy_double_arg(PyObject *o, const char *name, double *out)
{
    if (!PyFloat_Check(o) && !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a number, not %.100s", name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = PyFloat_AsDouble(o);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

int bclpy_truth_arg(PyObject *o, const char *name, int *out)
{
    (void)name;     /* every object has a truth value; the name is the converters' shape */
    *out = PyObject_IsTrue(o);
    return *out < 0 ? -1 : 0;
}

int bclpy_str_arg(PyObject *o, const char *name, int none_ok, const char **out)
{
    if (none_ok && (!o || o == Py_None)) {
        *out = NULL;
        return 0;
    }
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str%s, not %.100s", name,
                     none_ok ? " or None" : "", Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = PyUnicode_AsUTF8(o);
    return *out ? 0 : -1;
}

int bclpy_callable_arg(PyObject *o, const char *name, PyObject **out)
{
    *out = o;
    if (PyCallable_Check(o))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s must be callable, not %.100s", name, Py_TYPE(o)->tp_name);
    return -1;
}

int bclpy_class_arg(PyObject *o, const char *name, PyObject **out)
{
    *out = o;
    if (PyType_Check(o))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s must be a class, not %.100s", name, Py_TYPE(o)->tp_name);
    return -1;
}
