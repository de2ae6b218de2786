/*
 * args.c -- argument parsing shared by the METH_FASTCALL | METH_KEYWORDS
 * methods of the binding: every documented parameter can be passed by the
 * name docs/api.md gives it, as users of mpi4py and NumPy expect.
 */
#include "bclpy.h"

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

/* bclpy_parse for a type's tp_init (an args tuple and a kw dict or NULL):
 * the keywords are laid out as FASTCALL passes them, so constructors take
 * their parameters by name exactly as methods do.  Borrowed references. */
int bclpy_parse_init(const char *fname, PyObject *args, PyObject *kw,
                     const char *const *names, int nreq, int n, PyObject **out)
{
    Py_ssize_t nargs = PyTuple_GET_SIZE(args), nkw = kw ? PyDict_GET_SIZE(kw) : 0;
    PyObject *const *items = PySequence_Fast_ITEMS(args);
    if (nkw == 0)
        return bclpy_parse(fname, items, nargs, NULL, names, nreq, n, out);
    if (nargs + nkw > n)
        return PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)",
                            fname, n, nargs + nkw), -1;
    PyObject *stack[n], *kwnames = PyTuple_New(nkw), *key, *value;
    if (!kwnames)
        return -1;
    for (Py_ssize_t i = 0; i < nargs; i++)
        stack[i] = items[i];
    Py_ssize_t pos = 0, j = 0;
    while (PyDict_Next(kw, &pos, &key, &value)) {
        PyTuple_SET_ITEM(kwnames, j, Py_NewRef(key));
        stack[nargs + j++] = value;
    }
    int rc = bclpy_parse(fname, stack, nargs, kwnames, names, nreq, n, out);
    Py_DECREF(kwnames);
    return rc;
}
