/*
 * graph_py.c -- the PageRank app's per-target sums (csrc/kernels/bcl_graph.h)
 * for pybcl.apps.pagerank: arrays in, an array out.
 */
#include "apps/kernels_py.h"

#include "apps/generated/graph.h"

#include "kernels/bcl_graph.h"

static PyObject *py_block_sums(PyObject *m, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_GRAPH_BLOCK_SUMS;
    static const char *const arrays[] = { "share", "source", "slot", "bounds" };
    PyObject *a[6], *out = NULL;
    PyArrayObject *arr[4] = { NULL, NULL, NULL, NULL };
    long long ntargets, block;
    if (bclpy_parse("graph_block_sums", args, nargs, kwnames, names, 6, 6, a) < 0 ||
        bclpy_int_arg(a[4], "ntargets", 0, 1LL << 48, &ntargets) < 0 ||
        bclpy_int_arg(a[5], "block", 1, 1LL << 48, &block) < 0)
        return NULL;
    for (int i = 0; i < 4; i++)
        if (!(arr[i] = bclpy_1d_of(a[i], i ? NPY_INT64 : NPY_FLOAT64, arrays[i])))
            goto done;
    npy_intp nbounds = PyArray_SIZE(arr[3]);
    if (PyArray_SIZE(arr[2]) != PyArray_SIZE(arr[1]) || nbounds < 1) {
        PyErr_SetString(PyExc_ValueError, "graph_block_sums: slot must hold one value per "
                        "source, bounds at least one offset");
        goto done;
    }
    npy_intp dims[1] = { (npy_intp)ntargets };
    if (!(out = PyArray_SimpleNew(1, dims, NPY_FLOAT64)))
        goto done;
    bcl_graph_edges g = { PyArray_DATA(arr[1]), PyArray_DATA(arr[2]),
                          (size_t)PyArray_SIZE(arr[1]), PyArray_DATA(arr[3]),
                          (size_t)nbounds - 1, (size_t)block };
    const char *what = NULL;
    size_t at = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = bcl_graph_block_sums(&g, PyArray_DATA(arr[0]), (size_t)PyArray_SIZE(arr[0]),
                              PyArray_DATA((PyArrayObject *)out), (size_t)ntargets, &what, &at);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_Format(PyExc_ValueError, "graph_block_sums: %s[%zu] is out of range", what, at);
        Py_CLEAR(out);
    }
done:
    for (int i = 0; i < 4; i++)
        Py_XDECREF(arr[i]);
    return out;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "apps/generated/bclpy_graph_methods_clinic.h"
