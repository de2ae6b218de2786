/*
 * isx_py.c -- binding of the ISx kernels (csrc/kernels/bcl_pcg.h): the
 * reference's PCG32 key stream, the bucket exchange's grouping and the
 * owner's key count, on whole NumPy arrays with the GIL released.
 *
 * Added to pybcl.apps._kernels: pcg32_outputs, isx_keys, IsxKeyGen, isx_bucketize,
 * isx_count.
 */
#include "apps/kernels_py.h"

#include <limits.h>

#include "kernels/bcl_pcg.h"
#include "apps/generated/isx.h"

#define DEFAULT_MAX_KEY (1LL << 28)     /* ISx's MAX_KEY_VAL */

static PyObject *py_pcg32_outputs(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_PCG32_OUTPUTS);
    uint64_t initstate, initseq;
    long long n;
    if (bclpy_parse("pcg32_outputs", args, nargs, kwnames, names, 3, 3, a) < 0 ||
        bclpy_u64_mask_arg(a[0], "initstate", &initstate) < 0 ||
        bclpy_u64_mask_arg(a[1], "initseq", &initseq) < 0 ||
        bclpy_int_arg(a[2], "n", 0, PY_SSIZE_T_MAX, &n) < 0)
        return NULL;
    PyObject *out = bclpy_new_1d(n, NPY_UINT32);
    if (!out)
        return NULL;
    bcl_pcg32 rng;
    bcl_pcg32_seed(&rng, initstate, initseq);
    bcl_pcg32_fill(&rng, PyArray_DATA((PyArrayObject *)out), (size_t)n);
    return out;
}

static int max_key_arg(PyObject *o, long long *out)
{
    return bclpy_opt_int(o, "max_key", 1, INT32_MAX, DEFAULT_MAX_KEY, out);
}

static PyObject *py_isx_keys(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_ISX_KEYS);
    long long rank, n, max_key;
    if (bclpy_parse("isx_keys", args, nargs, kwnames, names, 2, 3, a) < 0 ||
        bclpy_int_arg(a[0], "rank", LLONG_MIN, LLONG_MAX, &rank) < 0 ||
        bclpy_int_arg(a[1], "n", 0, PY_SSIZE_T_MAX, &n) < 0 || max_key_arg(a[2], &max_key) < 0)
        return NULL;
    PyObject *out = bclpy_new_1d(n, NPY_INT32);
    if (!out)
        return NULL;
    bcl_pcg32 rng;
    bcl_pcg32_seed(&rng, (uint64_t)rank, (uint64_t)rank);
    Py_BEGIN_ALLOW_THREADS
    bcl_isx_keys(&rng, (uint32_t)max_key, PyArray_DATA((PyArrayObject *)out), (size_t)n);
    Py_END_ALLOW_THREADS
    return out;
}

/* ---- IsxKeyGen: one rank's key stream, drawn in pieces ---------------------- */

typedef struct {
    PyObject_HEAD
    bcl_pcg32 rng;
    uint32_t bound;
} IsxKeyGen;

static int IsxKeyGen_init(IsxKeyGen *self, PyObject *args, PyObject *kw)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_ISXKEYGEN);
    long long rank, max_key;
    if (bclpy_parse_init("IsxKeyGen", args, kw, names, 1, 2, a) < 0 ||
        bclpy_int_arg(a[0], "rank", LLONG_MIN, LLONG_MAX, &rank) < 0 ||
        max_key_arg(a[1], &max_key) < 0)
        return -1;
    bcl_pcg32_seed(&self->rng, (uint64_t)rank, (uint64_t)rank);
    self->bound = (uint32_t)max_key;
    return 0;
}

static PyObject *IsxKeyGen_take(IsxKeyGen *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_IKG_TAKE);
    long long n;
    if (bclpy_parse("take", args, nargs, kwnames, names, 1, 1, a) < 0 ||
        bclpy_int_arg(a[0], "n", 0, PY_SSIZE_T_MAX, &n) < 0)
        return NULL;
    PyObject *out = bclpy_new_1d(n, NPY_INT32);
    if (out)
        bcl_isx_keys(&self->rng, self->bound, PyArray_DATA((PyArrayObject *)out), (size_t)n);
    return out;
}

/* ---- the exchange's grouping and the owner's count -------------------------- */

static PyObject *py_isx_bucketize(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_ISX_BUCKETIZE);
    long long width, nb;
    if (bclpy_parse("isx_bucketize", args, nargs, kwnames, names, 3, 3, a) < 0 ||
        bclpy_int_arg(a[1], "width", 1, UINT32_MAX, &width) < 0 ||
        bclpy_int_arg(a[2], "nbuckets", 1, 1 << 24, &nb) < 0)
        return NULL;
    PyArrayObject *in = bclpy_1d_of(a[0], NPY_INT32, "keys");
    if (!in)
        return NULL;
    const int32_t *keys = PyArray_DATA(in);
    size_t n = (size_t)PyArray_SIZE(in);
    size_t bad = bcl_isx_first_outside(keys, n, (uint32_t)width, (int)nb);
    PyObject *out = NULL, *cnt = NULL;
    if (bad < n)
        PyErr_Format(PyExc_ValueError, "isx_bucketize: key %d is outside "
                     "[0, width * nbuckets)", keys[bad]);
    else if ((out = bclpy_new_1d((npy_intp)n, NPY_INT32)) &&
             (cnt = bclpy_new_1d(nb, NPY_INT64))) {
        Py_BEGIN_ALLOW_THREADS
        bcl_isx_bucketize(keys, n, (uint32_t)width, (int)nb, PyArray_DATA((PyArrayObject *)out),
                          PyArray_DATA((PyArrayObject *)cnt));
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(in);
    return bclpy_pair(out, cnt);
}

/* ISx's count_local_keys; the histogram is allocated per call, as the
 * reference's is. */
static PyObject *py_isx_count(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_ISX_COUNT);
    long long lo, width;
    if (bclpy_parse("isx_count", args, nargs, kwnames, names, 3, 3, a) < 0 ||
        bclpy_int_arg(a[1], "lo", 0, INT32_MAX, &lo) < 0 ||
        bclpy_int_arg(a[2], "width", 1, (long long)INT32_MAX + 1, &width) < 0)
        return NULL;
    PyArrayObject *in = bclpy_1d_of(a[0], NPY_INT32, "keys");
    if (!in)
        return NULL;
    npy_intp w = (npy_intp)width;
    PyObject *cnt = PyArray_ZEROS(1, &w, NPY_INT32, 0);
    size_t outside = 0;
    if (cnt) {
        Py_BEGIN_ALLOW_THREADS
        outside = bcl_isx_count(PyArray_DATA(in), (size_t)PyArray_SIZE(in), (int32_t)lo,
                                (uint32_t)width, PyArray_DATA((PyArrayObject *)cnt));
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(in);
    if (!cnt)
        return NULL;
    return Py_BuildValue("(Nn)", cnt, (Py_ssize_t)outside);
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "apps/generated/bclpy_isx_methods_clinic.h"
#include "apps/generated/IsxKeyGen_methods_clinic.h"
