/*
 * dbg_py.c -- binding of the contig app's de Bruijn graph kernels
 * (csrc/kernels/bcl_dbg.h): arrays in, arrays out; the graph map itself is
 * a pybcl.HashMap that the Python side looks up between these calls.
 *
 * Functions added to pybcl.apps._kernels:
 *   dbg_overlaps(keys, k) -> (ov, bit) (2 per key: the (k-1)-mers and their mask bits)
 *   dbg_from_overlaps(keys, k, masks) -> (ext uint8, sib_found bool, 6 per key)
 *   dbg_starts_local(keys, ext, k, sib_found) -> (starts, index)
 *   DbgWalk(k, starts, values, limit)  .queries() .advance(values, found) .results()
 *   dbg_overlaps_by_hash(keys, k) -> (ov, bit): dbg_overlaps' in map-hash order
 *   dbg_from_overlaps_by_hash(keys, k, masks) -> dbg_from_overlaps' from masks in that order
 *   hash_sort(keys, values) -> (keys, values) in map-hash order (kernels/bcl_key_order.h)
 */
#include "apps/kernels_py.h"

#include "apps/generated/dbg.h"

#include "kernels/bcl_dbg.h"
#include "kernels/bcl_key_order.h"

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

/* fname(keys, k, ...): the uint64 keys and k; -1 with nothing to release */
static int keys_k(const char *fname, PyObject *const *a, PyArrayObject **keys, int *k)
{
    if (k_arg(a[1], fname, k) < 0)
        return -1;
    *keys = bclpy_1d_of(a[0], NPY_UINT64, "keys");
    return *keys ? 0 : -1;
}

typedef bcl_status (*overlaps_fn)(const uint64_t *keys, size_t n, int k, uint64_t *ov,
                                  uint64_t *bit);

/* fname(keys, k) -> (ov, bit) through fn */
static PyObject *overlaps(const char *fname, const char *const *names, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames, overlaps_fn fn)
{
    PyObject *a[2], *ov = NULL, *bit = NULL, *res = NULL;
    PyArrayObject *keys;
    int k;
    if (bclpy_parse(fname, args, nargs, kwnames, names, 2, 2, a) < 0 ||
        keys_k(fname, a, &keys, &k) < 0)
        return NULL;
    npy_intp n = PyArray_SIZE(keys);
    if ((ov = new_arr(2 * n, NPY_UINT64)) && (bit = new_arr(2 * n, NPY_UINT64))) {
        bcl_status st;
        BCLPY_NOGIL(st = fn(PyArray_DATA(keys), (size_t)n, k, PyArray_DATA((PyArrayObject *)ov),
                            PyArray_DATA((PyArrayObject *)bit)));
        res = st == BCL_OK ? PyTuple_Pack(2, ov, bit) : bclpy_raise(st);
    }
    Py_XDECREF(ov);
    Py_XDECREF(bit);
    Py_DECREF(keys);
    return res;
}

static PyObject *py_overlaps(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DBG_OVERLAPS;
    return overlaps("dbg_overlaps", names, args, nargs, kwnames, bcl_dbg_overlaps);
}

static PyObject *py_overlaps_by_hash(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DBG_OVERLAPS_BY_HASH;
    return overlaps("dbg_overlaps_by_hash", names, args, nargs, kwnames,
                    bcl_dbg_overlaps_by_hash);
}

typedef bcl_status (*from_overlaps_fn)(const uint64_t *keys, size_t n, int k,
                                       const uint64_t *mask, uint8_t *ext,
                                       unsigned char *sib_found);

/* fname(keys, k, masks) -> (ext, sib_found) through fn */
static PyObject *from_overlaps(const char *fname, const char *const *names,
                               PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                               from_overlaps_fn fn)
{
    PyObject *a[3], *ext = NULL, *sib = NULL, *res = NULL;
    PyArrayObject *keys, *masks;
    int k;
    if (bclpy_parse(fname, args, nargs, kwnames, names, 3, 3, a) < 0 ||
        keys_k(fname, a, &keys, &k) < 0)
        return NULL;
    npy_intp n = PyArray_SIZE(keys);
    masks = bclpy_1d_of(a[2], NPY_UINT64, "masks");
    if (masks && PyArray_SIZE(masks) != 2 * n)
        PyErr_Format(PyExc_ValueError, "%s: masks must hold 2 per key", fname);
    else if (masks && (ext = new_arr(n, NPY_UINT8)) && (sib = new_arr(6 * n, NPY_BOOL))) {
        bcl_status st;
        BCLPY_NOGIL(st = fn(PyArray_DATA(keys), (size_t)n, k, PyArray_DATA(masks),
                            PyArray_DATA((PyArrayObject *)ext),
                            PyArray_DATA((PyArrayObject *)sib)));
        res = st == BCL_OK ? PyTuple_Pack(2, ext, sib) : bclpy_raise(st);
    }
    Py_XDECREF(ext);
    Py_XDECREF(sib);
    Py_XDECREF(masks);
    Py_DECREF(keys);
    return res;
}

static PyObject *py_from_overlaps(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DBG_FROM_OVERLAPS;
    return from_overlaps("dbg_from_overlaps", names, args, nargs, kwnames,
                         bcl_dbg_from_overlaps);
}

static PyObject *py_from_overlaps_by_hash(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DBG_FROM_OVERLAPS_BY_HASH;
    return from_overlaps("dbg_from_overlaps_by_hash", names, args, nargs, kwnames,
                         bcl_dbg_from_overlaps_by_hash);
}

/* keys (uint64) and ext (uint8) of the same length, or -1 */
static int keys_ext(PyObject *ko, PyObject *eo, const char *fn, PyArrayObject **keys,
                    PyArrayObject **ext)
{
    *keys = bclpy_1d_of(ko, NPY_UINT64, "keys");
    *ext = *keys ? bclpy_1d_of(eo, NPY_UINT8, "ext") : NULL;
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

static PyObject *py_starts_local(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DBG_STARTS_LOCAL;
    PyObject *a[4];
    PyArrayObject *keys, *ext;
    int k;
    if (bclpy_parse("dbg_starts_local", args, nargs, kwnames, names, 4, 4, a) < 0 ||
        k_arg(a[2], "dbg_starts_local", &k) < 0 ||
        keys_ext(a[0], a[1], "dbg_starts_local", &keys, &ext) < 0)
        return NULL;
    PyArrayObject *f = bclpy_1d_of(a[3], NPY_BOOL, "sib_found");
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

static PyObject *py_hash_sort(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_HASH_SORT;
    PyObject *a[2], *ko = NULL, *vo = NULL, *res = NULL;
    if (bclpy_parse("hash_sort", args, nargs, kwnames, names, 2, 2, a) < 0)
        return NULL;
    PyArrayObject *keys = bclpy_1d_of(a[0], NPY_UINT64, "keys");
    PyArrayObject *vals = keys ? bclpy_1d_of(a[1], NPY_UINT64, "values") : NULL;
    npy_intp n = keys ? PyArray_SIZE(keys) : 0;
    if (vals && PyArray_SIZE(vals) != n)
        PyErr_SetString(PyExc_ValueError, "hash_sort: values must be as long as keys");
    else if (vals && (ko = new_arr(n, NPY_UINT64)) && (vo = new_arr(n, NPY_UINT64))) {
        bcl_status st;
        BCLPY_NOGIL(st = bcl_key_hash_sort(PyArray_DATA(keys), PyArray_DATA(vals), (size_t)n,
                                           PyArray_DATA((PyArrayObject *)ko),
                                           PyArray_DATA((PyArrayObject *)vo)));
        res = st == BCL_OK ? PyTuple_Pack(2, ko, vo) : bclpy_raise(st);
    }
    Py_XDECREF(ko);
    Py_XDECREF(vo);
    Py_XDECREF(keys);
    Py_XDECREF(vals);
    return res;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "apps/generated/bclpy_dbg_methods_clinic.h"
