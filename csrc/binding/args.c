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
