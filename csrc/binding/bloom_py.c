/*
 * bloom_py.c -- pybcl.BloomFilter over the core's blocked Bloom filter
 * (csrc/containers/bcl_bloom.h).  Only conversion here: keys become 64-bit hashes
 * (raw bytes of a fixed-size key, msgpack bytes of a variable-length one;
 * uint64/int64 Python ints take a fast path with the same hash), and the
 * core does the one atomic per key.
 */
#include "bclpy.h"

#include <math.h>

#include <string.h>

#include "elemtype.h"
#include "containers/bcl_bloom.h"
#include "binding/generated/bloom.h"
#include "binding/generated/io.h"
#include "io_py.h"

enum { FAST_NONE, FAST_U64, FAST_I64 };

typedef struct {
    PyObject_HEAD
    bcl_bloom b;
    bclpy_elemtype kt;
    bclpy_life life;       /* usable? (bclpy.h) */
    int fast;               /* scalar fast path for Python ints             */
    int scratch_busy;
    bcl_mp_writer scratch;  /* serialized key of the current scalar call    */
} BloomObject;

/* ---- keys -> hashes ----------------------------------------------------- */

/* `argname`: the parameter an error names (x, or xs for an element of xs). */
static int hash_generic(BloomObject *self, PyObject *x, uint64_t *h, const char *argname)
{
    bcl_mp_writer local, *w = &self->scratch;
    if (self->scratch_busy) {      /* re-entered from a key's own code */
        bcl_mp_writer_init(&local);
        w = &local;
    } else {
        bcl_mp_writer_reset(w);
    }
    self->scratch_busy++;
    int rc = bclpy_key_serialize(&self->kt, x, w, argname);
    self->scratch_busy--;
    if (rc == 0)
        *h = bcl_bloom_hash(w->buf, w->len);
    if (w == &local)
        bcl_mp_writer_free(&local);
    return rc;
}

static inline int key_hash(BloomObject *self, PyObject *x, uint64_t *h)
{
    if (PyLong_CheckExact(x)) {
        if (self->fast == FAST_U64) {
            unsigned long long v = PyLong_AsUnsignedLongLong(x);
            if (!(v == (unsigned long long)-1 && PyErr_Occurred())) {
                *h = bcl_bloom_hash_u64(v);
                return 0;
            }
            PyErr_Clear();   /* the generic path raises the proper error */
        } else if (self->fast == FAST_I64) {
            long long v = PyLong_AsLongLong(x);
            if (!(v == -1 && PyErr_Occurred())) {
                *h = bcl_bloom_hash_u64((uint64_t)v);
                return 0;
            }
            PyErr_Clear();
        }
    }
    return hash_generic(self, x, h, "x");
}

/* A false-positive rate: a float or int in (0, 1). */
static int fpr_arg(PyObject *o, const char *argname, double *out)
{
    if (!PyFloat_Check(o) && !PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a float, not %.100s", argname,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = PyFloat_AsDouble(o);
    if (*out == -1.0 && PyErr_Occurred())
        return -1;
    if (*out > 0.0 && *out < 1.0)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s must be in (0, 1), got %R", argname, o);
    return -1;
}

/* ---- construction -------------------------------------------------------- */

static int bloom_init_impl(BloomObject *self, long long n, double fpr, PyObject *kt_obj)
{
    if (bclpy_init_once((PyObject *)self, &self->life) < 0)
        return -1;
    if (bclpy_elemtype_init(&self->kt, kt_obj, "uint64", "key_type") < 0 ||
        bclpy_ensure_init() < 0)
        return -1;
    self->fast = FAST_NONE;
    if (self->kt.kind == BCLPY_FIXED && !PyDataType_ISBYTESWAPPED(self->kt.dtype)) {
        if (self->kt.dtype->type_num == NPY_UINT64)
            self->fast = FAST_U64;
        else if (self->kt.dtype->type_num == NPY_INT64)
            self->fast = FAST_I64;
    }
    static const char *const names[] = { "expected_items", "fpr (bits)", "#key_type" };
    int64_t fpr_bits;
    memcpy(&fpr_bits, &fpr, sizeof fpr_bits);
    int64_t vals[] = { (int64_t)n, fpr_bits, bclpy_elemtype_digest(&self->kt) };
    if (bclpy_agree("BloomFilter()", names, vals, 3) < 0)
        return -1;
    bcl_status st = bcl_bloom_create(&self->b, (uint64_t)n, fpr);
    return bclpy_life_started(st, &self->life);
}

BCLPY_FREE_BURIED(bloom_free_buried, bcl_bloom_destroy)

static void bloom_dealloc(BloomObject *self)
{
    /* Peers may still set and test bits in this rank's block: bury it. */
    bclpy_life_dealloc(&self->life, &self->b, sizeof self->b,
                       bloom_free_buried, self->b.offsets);
    bclpy_elemtype_clear(&self->kt);
    bcl_mp_writer_free(&self->scratch);
    bclpy_dealloc_end((PyObject *)self);
}

/* ---- scalar operations --------------------------------------------------- */

/* insert(x) / find(x): `op` on the hash of the one key x; whether it was present. */
static PyObject *one_key(BloomObject *self, PyObject *x,
                         bcl_status (*op)(const bcl_bloom *, uint64_t, int *))
{
    uint64_t h;
    int present;
    if (BCLPY_USABLE(self) < 0 || key_hash(self, x, &h) < 0)
        return NULL;
    bcl_status st = op(&self->b, h, &present);
    if (st != BCL_OK)
        return bclpy_raise(st);
    return PyBool_FromLong(present);
}

static PyObject *bloom_insert_impl(BloomObject *self, PyObject *x)
{
    return one_key(self, x, bcl_bloom_insert_hash);
}

static PyObject *bloom_find_impl(BloomObject *self, PyObject *x)
{
    return one_key(self, x, bcl_bloom_find_hash);
}

static int bloom_contains(BloomObject *self, PyObject *x)
{
    PyObject *r = bloom_find_impl(self, x);
    if (!r)
        return -1;
    int v = r == Py_True;
    Py_DECREF(r);
    return v;
}

static PyObject *bloom_owner_impl(BloomObject *self, PyObject *x)
{
    uint64_t h;
    if (key_hash(self, x, &h) < 0)
        return NULL;
    return PyLong_FromLong(bcl_bloom_word(&self->b, h).rank);
}

/* ---- batches --------------------------------------------------------------- */

/* Variable-length keys: the hash of every key of the sequence xs. */
static int hashes_of(BloomObject *self, PyObject *seq, uint64_t *hs)
{
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
        if (hash_generic(self, PySequence_Fast_GET_ITEM(seq, i), &hs[i], "xs") < 0)
            return -1;
    return 0;
}

/* insert_many / find_many: fixed-size keys go to the core as an array of
 * the key dtype (cast.c's rules), which hashes them; others as hashes. */
static PyObject *bloom_many(BloomObject *self, PyObject *xs, int insert)
{
    int fixed = self->kt.kind == BCLPY_FIXED;
    PyArrayObject *a = fixed ? bclpy_to_array(xs, self->kt.dtype, 0, 0, "xs") : NULL;
    PyObject *seq = fixed ? NULL : PySequence_Fast(xs, "xs must be a sequence of keys");
    if (!a && !seq)
        return NULL;
    npy_intp n = a ? PyArray_SIZE(a) : PySequence_Fast_GET_SIZE(seq);
    PyObject *out = a ? PyArray_SimpleNew(PyArray_NDIM(a), PyArray_DIMS(a), NPY_BOOL)
                      : PyArray_SimpleNew(1, &n, NPY_BOOL);
    uint64_t *hs = seq ? PyMem_Malloc((size_t)(n ? n : 1) * sizeof *hs) : NULL;
    if (seq && !hs)
        PyErr_NoMemory();
    if ((seq && !hs) || (out && seq && hashes_of(self, seq, hs) < 0))
        Py_CLEAR(out);
    if (out) {
        uint8_t *res = PyArray_DATA((PyArrayObject *)out);
        size_t ks = self->kt.slot_size;
        const void *keys = a ? PyArray_DATA(a) : NULL;
        bcl_status st;
        BCLPY_NOGIL(st = a ? (insert ? bcl_bloom_insert_many_keys(&self->b, keys, n, ks, res)
                                     : bcl_bloom_find_many_keys(&self->b, keys, n, ks, res))
                           : (insert ? bcl_bloom_insert_many_hashes(&self->b, hs, n, res)
                                     : bcl_bloom_find_many_hashes(&self->b, hs, n, res)));
        if (st != BCL_OK) {
            Py_CLEAR(out);
            bclpy_raise(st);
        }
    }
    Py_XDECREF(a);
    Py_XDECREF(seq);
    PyMem_Free(hs);
    return out;
}

static PyObject *bloom_insert_many_impl(BloomObject *self, PyObject *xs)
{
    return bloom_many(self, xs, 1);
}

static PyObject *bloom_find_many_impl(BloomObject *self, PyObject *xs)
{
    return bloom_many(self, xs, 0);
}

/* ---- plan (static) ----------------------------------------------------------- */

static PyObject *bloom_plan_impl(PyObject *cls, long long n, double fpr, long long nprocs)
{
    uint64_t nwords;
    double best;
    int k;
    CHECK(bcl_bloom_plan((uint64_t)n, fpr, (int)nprocs, &nwords, &k, &best));
    return Py_BuildValue("{s:K,s:i,s:d,s:d}", "nwords", (unsigned long long)nwords,
                         "k", k, "bits_per_key", 64.0 * (double)nwords / (double)n,
                         "predicted_fpr", best);
}

static PyObject *bloom_predict_impl(PyObject *cls, double n, double nwords, long long k)
{
    /* The formula answers anything (a negative "probability" for n < 0, 1.0 for
     * NaN): refuse what describes no filter.  (PyErr_Format has no %g.) */
    char got[32];
    if (!(n >= 0) || !isfinite(n)) {
        PyOS_snprintf(got, sizeof got, "%g", n);
        return PyErr_Format(PyExc_ValueError, "predict: n must be a finite number >= 0, "
                            "got %s", got);
    }
    if (!(nwords >= 1) || !isfinite(nwords)) {
        PyOS_snprintf(got, sizeof got, "%g", nwords);
        return PyErr_Format(PyExc_ValueError, "predict: nwords must be a finite number "
                            ">= 1, got %s", got);
    }
    return PyFloat_FromDouble(bcl_bloom_predict(n, nwords, (int)k));
}

/* ---- attributes ----------------------------------------------------------------- */

static PyObject *bloom_repr(BloomObject *self)
{
    if (!self->life.live)
        return PyUnicode_FromString("<pybcl.BloomFilter (not created)>");
    PyObject *kr = bclpy_elemtype_repr(&self->kt);
    if (!kr)
        return NULL;
    char fpr[32];
    PyOS_snprintf(fpr, sizeof fpr, "%g", self->b.fpr);
    PyObject *r = PyUnicode_FromFormat(
        "pybcl.BloomFilter(expected_items=%llu, fpr=%s, key_type=%U)",
        (unsigned long long)self->b.expected_items, fpr, kr);
    Py_DECREF(kr);
    return r;
}

int bclpy_bloom_io_target(PyObject *self, bcl_sv_target *t)
{
    BloomObject *b = (BloomObject *)self;
    if (BCLPY_USABLE(b) < 0)
        return -1;
    t->kind = BCL_SV_BLOOM;
    t->bloom = &b->b;
    return 0;
}

BCLPY_SAVE_METHOD(bloom_save, BloomObject, bclpy_bloom_io_target)

BCLPY_CLOSE_METHOD(bloom_close, BloomObject, bcl_bloom_destroy, b)

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bloom_methods_clinic.h"
