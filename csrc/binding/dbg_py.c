/*
 * dbg_py.c -- binding of the contig app's de Bruijn graph kernels
 * (csrc/kernels/bcl_dbg.h): arrays in, arrays out; the graph map itself is
 * a pybcl.HashMap that the Python side looks up between these calls.
 *
 * Functions added to pybcl._core:
 *   dbg_neighbours(keys, k) -> uint64 (8 per key: successors, predecessors)
 *   dbg_ext_bits(found) -> uint8 (one per 8 presence flags)
 *   dbg_siblings(keys, k) -> uint64 (6 per key), dbg_starts_local(keys, ext, k, sib_found)
 *   dbg_bloom_add(bits, keys), dbg_bloom_test(bits, keys) -> bool (replicated filter)
 *   DbgWalk(k, starts, values, limit)  .queries() .advance(values, found) .results()
 */
#include "bclpy.h"

#include "binding/docstrings/dbg.h"

#include "kernels/bcl_dbg.h"

/* A 1-d contiguous array of `type` (converted without loss), or NULL with an
 * exception naming the argument. */
static PyArrayObject *arr_in(PyObject *o, int type, const char *fn, const char *name)
{
    PyArray_Descr *d = PyArray_DescrFromType(type);
    PyArrayObject *a = (PyArrayObject *)PyArray_FromAny(o, d, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST,
                                                        NULL);
    if (!a) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a 1-d array", fn, name);
        return NULL;
    }
    return a;
}

static int k_arg(PyObject *o, const char *fn, int *k)
{
    long long v;
    if (bclpy_int_arg(o, "k", 3, 31, &v) < 0)
        return -1;
    if (!bcl_dbg_k_ok((int)v))
        return PyErr_Format(PyExc_ValueError, "%s: k must be odd, got %lld", fn, v), -1;
    *k = (int)v;
    return 0;
}

static PyObject *new_arr(npy_intp n, int type)
{
    return PyArray_SimpleNew(1, &n, type);
}

/* fname(keys, k): `per` uint64 k-mers computed by `fn` for each key. */
static PyObject *per_key(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames, const char *const *names, npy_intp per,
                         bcl_status (*fn)(const uint64_t *, size_t, int, uint64_t *))
{
    PyObject *a[2];
    int k;
    if (bclpy_parse(fname, args, nargs, kwnames, names, 2, 2, a) < 0 ||
        k_arg(a[1], fname, &k) < 0)
        return NULL;
    PyArrayObject *keys = arr_in(a[0], NPY_UINT64, fname, "keys");
    if (!keys)
        return NULL;
    npy_intp n = PyArray_SIZE(keys);
    PyObject *out = new_arr(per * n, NPY_UINT64);
    if (out && fn(PyArray_DATA(keys), (size_t)n, k,
                  PyArray_DATA((PyArrayObject *)out)) != BCL_OK)
        Py_CLEAR(out);      /* k was checked: cannot happen */
    Py_DECREF(keys);
    return out;
}

static PyObject *py_neighbours(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *const names[] = BCLPY_ARGS_DBG_NEIGHBOURS;
    return per_key("dbg_neighbours", args, nargs, kwnames, names, 8, bcl_dbg_neighbours);
}

static PyObject *py_siblings(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = BCLPY_ARGS_DBG_SIBLINGS;
    return per_key("dbg_siblings", args, nargs, kwnames, names, 6, bcl_dbg_siblings);
}

static PyObject *py_ext_bits(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = BCLPY_ARGS_DBG_EXT_BITS;
    PyObject *a[1];
    if (bclpy_parse("dbg_ext_bits", args, nargs, kwnames, names, 1, 1, a) < 0)
        return NULL;
    PyArrayObject *f = arr_in(a[0], NPY_BOOL, "dbg_ext_bits", "found");
    if (!f)
        return NULL;
    npy_intp n = PyArray_SIZE(f);
    if (n % 8) {
        Py_DECREF(f);
        return PyErr_Format(PyExc_ValueError, "dbg_ext_bits: found must hold 8 flags per "
                            "k-mer, got %zd", (Py_ssize_t)n);
    }
    PyObject *out = new_arr(n / 8, NPY_UINT8);
    if (out)
        bcl_dbg_ext_bits(PyArray_DATA(f), (size_t)n / 8, PyArray_DATA((PyArrayObject *)out));
    Py_DECREF(f);
    return out;
}

/* keys (uint64) and ext (uint8) of the same length, or -1 */
static int keys_ext(PyObject *ko, PyObject *eo, const char *fn, PyArrayObject **keys,
                    PyArrayObject **ext)
{
    *keys = arr_in(ko, NPY_UINT64, fn, "keys");
    *ext = *keys ? arr_in(eo, NPY_UINT8, fn, "ext") : NULL;
    if (*ext && PyArray_SIZE(*ext) == PyArray_SIZE(*keys))
        return 0;
    if (*ext)
        PyErr_Format(PyExc_ValueError, "%s: ext must be as long as keys", fn);
    Py_XDECREF(*keys);
    Py_XDECREF(*ext);
    return -1;
}

/* Cut a 1-d array we own down to its first n elements; -1 (and *arr freed) on error. */
static int shrink(PyObject **arr, npy_intp n)
{
    PyArray_Dims dims = { &n, 1 };
    PyObject *r = PyArray_Resize((PyArrayObject *)*arr, &dims, 0, NPY_CORDER);
    if (!r) {
        Py_CLEAR(*arr);
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

/* a writable 1-d contiguous uint64 array whose length is a power of two */
static PyArrayObject *bloom_bits(PyObject *o, const char *fn, int writable)
{
    if (!PyArray_Check(o) || PyArray_TYPE((PyArrayObject *)o) != NPY_UINT64 ||
        PyArray_NDIM((PyArrayObject *)o) != 1 ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o) ||
        (writable && !PyArray_ISWRITEABLE((PyArrayObject *)o))) {
        PyErr_Format(PyExc_TypeError, "%s: bits must be a %s1-d contiguous uint64 array", fn,
                     writable ? "writable " : "");
        return NULL;
    }
    npy_intp n = PyArray_SIZE((PyArrayObject *)o);
    if (n == 0 || (n & (n - 1))) {
        PyErr_Format(PyExc_ValueError, "%s: bits must hold a power of two of words, got %zd",
                     fn, (Py_ssize_t)n);
        return NULL;
    }
    Py_INCREF(o);
    return (PyArrayObject *)o;
}

/* fname(bits, keys): the filter (writable for adding) and the uint64 keys;
 * -1 with nothing to release. */
static int bloom_args(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames, const char *const *names, int writable,
                      PyArrayObject **bits, PyArrayObject **keys)
{
    PyObject *a[2];
    if (bclpy_parse(fname, args, nargs, kwnames, names, 2, 2, a) < 0)
        return -1;
    *bits = bloom_bits(a[0], fname, writable);
    *keys = *bits ? arr_in(a[1], NPY_UINT64, fname, "keys") : NULL;
    if (*keys)
        return 0;
    Py_XDECREF(*bits);
    return -1;
}

static PyObject *py_bloom_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    static const char *const names[] = BCLPY_ARGS_DBG_BLOOM_ADD;
    PyArrayObject *bits, *keys;
    if (bloom_args("dbg_bloom_add", args, nargs, kwnames, names, 1, &bits, &keys) < 0)
        return NULL;
    bcl_status st = bcl_dbg_bloom_add(PyArray_DATA(bits), (uint64_t)PyArray_SIZE(bits),
                                      PyArray_DATA(keys), (size_t)PyArray_SIZE(keys));
    Py_DECREF(bits);
    Py_DECREF(keys);
    return st == BCL_OK ? Py_NewRef(Py_None) : bclpy_raise(st);
}

static PyObject *py_bloom_test(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *const names[] = BCLPY_ARGS_DBG_BLOOM_TEST;
    PyArrayObject *bits, *keys;
    if (bloom_args("dbg_bloom_test", args, nargs, kwnames, names, 0, &bits, &keys) < 0)
        return NULL;
    PyObject *out = new_arr(PyArray_SIZE(keys), NPY_BOOL);
    if (out) {
        bcl_status st = bcl_dbg_bloom_test(PyArray_DATA(bits), (uint64_t)PyArray_SIZE(bits),
                                           PyArray_DATA(keys), (size_t)PyArray_SIZE(keys),
                                           PyArray_DATA((PyArrayObject *)out));
        if (st != BCL_OK) {
            Py_CLEAR(out);
            bclpy_raise(st);
        }
    }
    Py_DECREF(bits);
    Py_DECREF(keys);
    return out;
}

static PyObject *py_starts_local(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *const names[] = BCLPY_ARGS_DBG_STARTS_LOCAL;
    PyObject *a[4];
    PyArrayObject *keys, *ext;
    int k;
    if (bclpy_parse("dbg_starts_local", args, nargs, kwnames, names, 4, 4, a) < 0 ||
        k_arg(a[2], "dbg_starts_local", &k) < 0 ||
        keys_ext(a[0], a[1], "dbg_starts_local", &keys, &ext) < 0)
        return NULL;
    PyArrayObject *f = arr_in(a[3], NPY_BOOL, "dbg_starts_local", "sib_found");
    npy_intp n = PyArray_SIZE(keys);
    PyObject *starts = NULL, *idx = NULL, *res = NULL;
    if (f && PyArray_SIZE(f) != 6 * n)
        PyErr_SetString(PyExc_ValueError, "dbg_starts_local: sib_found must hold 6 flags "
                        "per key");
    else if (f && (starts = new_arr(n, NPY_UINT64)) && (idx = new_arr(n, NPY_UINT64))) {
        size_t m = 0;
        bcl_status st = bcl_dbg_starts_local(PyArray_DATA(keys), PyArray_DATA(ext), (size_t)n,
                                             k, PyArray_DATA(f),
                                             PyArray_DATA((PyArrayObject *)starts),
                                             PyArray_DATA((PyArrayObject *)idx), &m);
        if (st != BCL_OK)
            bclpy_raise(st);
        else if (shrink(&starts, (npy_intp)m) == 0 && shrink(&idx, (npy_intp)m) == 0)
            res = Py_BuildValue("(OO)", starts, idx);
    }
    Py_XDECREF(starts);
    Py_XDECREF(idx);
    Py_DECREF(keys);
    Py_DECREF(ext);
    Py_XDECREF(f);
    return res;
}

PyMethodDef bclpy_dbg_methods[] = {
    {"dbg_bloom_add", BCLPY_KW_METHOD(py_bloom_add), BCLPY_DOC_DBG_BLOOM_ADD},
    {"dbg_bloom_test", BCLPY_KW_METHOD(py_bloom_test), BCLPY_DOC_DBG_BLOOM_TEST},
    {"dbg_neighbours", BCLPY_KW_METHOD(py_neighbours), BCLPY_DOC_DBG_NEIGHBOURS},
    {"dbg_ext_bits", BCLPY_KW_METHOD(py_ext_bits), BCLPY_DOC_DBG_EXT_BITS},
    {"dbg_siblings", BCLPY_KW_METHOD(py_siblings), BCLPY_DOC_DBG_SIBLINGS},
    {"dbg_starts_local", BCLPY_KW_METHOD(py_starts_local), BCLPY_DOC_DBG_STARTS_LOCAL},
    {NULL, NULL, 0, NULL}
};
