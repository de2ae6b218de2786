/*
 * kmer_py.c -- binding of the k-mer app's kernels (csrc/kernels: bcl_kreader,
 * bcl_kmer, bcl_kmer_text, bcl_bgzf, bcl_seqsrc, bcl_readsim): whole NumPy
 * arrays in and out, no per-k-mer Python object, the GIL released around
 * parsing, decompression and formatting.  This
 * file only converts arguments and results; the loops are in the kernels.
 *
 * Added to pybcl.apps._kernels:
 *   KmerReader(path, k, ...)   iterator of uint64 k-mer arrays, one per piece
 *   seq_resync, bgzf_blocks, kmers_from_bytes, kmer_encode,
 *   kmer_decode, hll_estimate, hll_add, kmer_tsv, simulate_reads, HLL_REGISTERS
 */
#include "apps/kernels_py.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "kernels/bcl_bgzf.h"
#include "kernels/bcl_kmer.h"
#include "kernels/bcl_kmer_text.h"
#include "kernels/bcl_kreader.h"
#include "kernels/bcl_seqsrc.h"
#include "kernels/bcl_readsim.h"
#include "apps/generated/kmer.h"

/* ---- argument and result conversion --------------------------------------- */

/* A C int argument (the kernels check the value's range and name it). */
static int c_int(PyObject *o, const char *name, int dflt, int *out)
{
    long long v;
    if (bclpy_opt_int(o, name, INT_MIN, INT_MAX, dflt, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* 'fasta' / 'fastq' -> its bcl_seqfmt; None (when allowed) -> BCL_FMT_UNKNOWN;
 * -1 with ValueError naming `fn`'s fmt otherwise. */
static int fmt_arg(PyObject *o, const char *fn, int none_ok, bcl_seqfmt *out)
{
    const char *s = o && PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    if ((!o || o == Py_None) && none_ok) {
        *out = BCL_FMT_UNKNOWN;
        return 0;
    }
    if (s && strcmp(s, "fasta") == 0)
        *out = BCL_FMT_FASTA;
    else if (s && strcmp(s, "fastq") == 0)
        *out = BCL_FMT_FASTQ;
    else
        return PyErr_Format(PyExc_ValueError, "%s: fmt must be 'fasta' or 'fastq', got %R",
                            fn, o), -1;
    return 0;
}

/* ---- KmerReader ---------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    bcl_kreader r;
} KmerReader;

static void KmerReader_dealloc(KmerReader *self)
{
    bcl_kreader_free(&self->r);
    bclpy_dealloc_end((PyObject *)self);
}

/* gz_entry: None, or (compressed offset, stream offset) of a gzip member. */
static int gz_entry_arg(PyObject *o, bcl_kreader_range *rg)
{
    rg->ranged = o && o != Py_None;
    if (!rg->ranged)
        return 0;
    unsigned long long v[2];
    for (int i = 0; i < 2 && PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2; i++) {
        PyObject *idx = PyNumber_Index(PyTuple_GET_ITEM(o, i));
        v[i] = idx ? PyLong_AsUnsignedLongLong(idx) : (unsigned long long)-1;
        Py_XDECREF(idx);
        if (v[i] == (unsigned long long)-1 && PyErr_Occurred())
            break;
        if (i == 1) {
            rg->zoff = v[0];
            rg->uoff = v[1];
            return 0;
        }
    }
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "KmerReader: gz_entry must be a pair "
                    "(compressed offset, stream offset) of ints >= 0");
    return -1;
}

/* The range arguments: 0 <= start <= end (end -1: to the end), and a fmt
 * with gz_entry. */
static int range_args(PyObject *const *a, long long chunk, bcl_kreader_range *rg)
{
    long long start, end;
    if (bclpy_opt_int(a[7], "start", LLONG_MIN, LLONG_MAX, 0, &start) < 0 ||
        bclpy_opt_int(a[8], "end", LLONG_MIN, LLONG_MAX, -1, &end) < 0 ||
        fmt_arg(a[9], "KmerReader", 1, &rg->fmt) < 0 || gz_entry_arg(a[10], rg) < 0)
        return -1;
    if (chunk < 1 || start < 0 || (end >= 0 && end < start) ||
        (rg->ranged && rg->fmt == BCL_FMT_UNKNOWN))
        return PyErr_Format(PyExc_ValueError, "KmerReader: need chunk_bytes >= 1 (got %lld), "
                            "0 <= start <= end (got %lld, %lld), and fmt 'fasta' or 'fastq' "
                            "with gz_entry (got %R)", chunk, start, end,
                            a[9] ? a[9] : Py_None), -1;
    rg->start = (uint64_t)start;
    rg->end = end < 0 ? UINT64_MAX : (uint64_t)end;
    return 0;
}

static int KmerReader_init(KmerReader *self, PyObject *args, PyObject *kw)
{
    static const char *const names[] = BCLPY_ARGS_KMERREADER;
    PyObject *a[BCLPY_NNAMES(names)], *path = NULL;
    int k, rank, nprocs, shift, hll;
    long long chunk;
    bcl_kreader_range rg = { 0 };
    if (bclpy_parse_init("KmerReader", args, kw, names, 2, BCLPY_NNAMES(names), a) < 0 ||
        c_int(a[1], "k", 0, &k) < 0 || c_int(a[2], "rank", 0, &rank) < 0 ||
        c_int(a[3], "nprocs", 1, &nprocs) < 0 ||
        bclpy_opt_int(a[4], "chunk_bytes", LLONG_MIN, PY_SSIZE_T_MAX, 4 << 20, &chunk) < 0 ||
        c_int(a[5], "block_shift", BCL_KMER_DEFAULT_BLOCK_SHIFT, &shift) < 0 ||
        (hll = a[6] ? PyObject_IsTrue(a[6]) : 0) < 0 || range_args(a, chunk, &rg) < 0 ||
        !PyUnicode_FSConverter(a[0], &path))
        return -1;
    bcl_status st = bcl_kreader_init(&self->r, k, rank, nprocs, shift, (size_t)chunk, hll);
    if (st != BCL_OK) {
        Py_DECREF(path);
        bclpy_raise(st);
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    st = bcl_kreader_open(&self->r, PyBytes_AS_STRING(path), &rg);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st == BCL_OK)
        return 0;
    errno = 0;          /* the message says why; an old errno would mislead */
    PyErr_Format(st == BCL_ERR_NOMEM ? PyExc_MemoryError : PyExc_OSError, "%s",
                 bcl_last_error());
    return -1;
}

static PyObject *KmerReader_next(KmerReader *self)
{
    if (!self->r.open || self->r.done)
        return NULL;                                   /* StopIteration */
    PyObject *arr = bclpy_new_1d((npy_intp)self->r.chunk, NPY_UINT64);
    if (!arr)
        return NULL;
    size_t nout, got;
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_kreader_next(&self->r, PyArray_DATA((PyArrayObject *)arr), &nout, &got);
    Py_END_ALLOW_THREADS
    if (st != BCL_OK || got == 0) {
        Py_DECREF(arr);
        if (st != BCL_OK)       /* input errors, whatever the layer that found them */
            PyErr_SetString(PyExc_ValueError, bcl_last_error());
        return NULL;
    }
    return bclpy_shrink(arr, (npy_intp)nout);
}

static PyObject *KmerReader_close(KmerReader *self, PyObject *noargs)
{
    bcl_kreader_close(&self->r);
    Py_RETURN_NONE;
}

static PyObject *KmerReader_stats(KmerReader *self, PyObject *noargs)
{
    const bcl_kmer_parser *p = &self->r.parser;
    return Py_BuildValue("{sKsKsKsKsKss}", "records", (unsigned long long)p->records,
                         "bases", (unsigned long long)p->bases,
                         "kmers_total", (unsigned long long)p->kmers_total,
                         "kmers_emitted", (unsigned long long)p->kmers_emitted,
                         "bytes", (unsigned long long)self->r.bytes_read,
                         "format", p->fmt == BCL_FMT_FASTA   ? "fasta"
                                   : p->fmt == BCL_FMT_FASTQ ? "fastq"
                                                             : "unknown");
}

static PyObject *KmerReader_hll(KmerReader *self, PyObject *noargs)
{
    PyObject *a = bclpy_new_1d(BCL_HLL_REGISTERS, NPY_UINT8);
    if (a)
        memcpy(PyArray_DATA((PyArrayObject *)a), self->r.hll.reg, BCL_HLL_REGISTERS);
    return a;
}

/* ---- functions: splitting and reading the input ---------------------------- */

static PyObject *py_seq_resync(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_SEQ_RESYNC;
    PyObject *a[BCLPY_NNAMES(names)], *path = NULL;
    long long size, offset;
    bcl_seqfmt f;
    if (bclpy_parse("seq_resync", args, nargs, kwnames, names, 4, 4, a) < 0 ||
        bclpy_int_arg(a[1], "size", 0, LLONG_MAX, &size) < 0 ||
        bclpy_int_arg(a[2], "offset", 0, LLONG_MAX, &offset) < 0 ||
        fmt_arg(a[3], "seq_resync", 0, &f) < 0 || !PyUnicode_FSConverter(a[0], &path))
        return NULL;
    uint64_t out = 0;
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_seqsrc_resync(PyBytes_AS_STRING(path), (uint64_t)size, (uint64_t)offset, f, &out);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != BCL_OK)
        return bclpy_raise(st);
    return PyLong_FromUnsignedLongLong(out);
}

/* A copy of n uint64 values as a new array. */
static PyObject *u64_copy(const uint64_t *src, npy_intp n)
{
    PyObject *a = bclpy_new_1d(n, NPY_UINT64);
    if (a)
        memcpy(PyArray_DATA((PyArrayObject *)a), src, (size_t)n * sizeof(uint64_t));
    return a;
}

static PyObject *py_bgzf_blocks(PyObject *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_BGZF_BLOCKS;
    PyObject *a[BCLPY_NNAMES(names)], *path = NULL;
    if (bclpy_parse("bgzf_blocks", args, nargs, kwnames, names, 1, 1, a) < 0 ||
        !PyUnicode_FSConverter(a[0], &path))
        return NULL;
    bcl_bgzf_map m;
    int is_bgzf = 0;
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_bgzf_walk(PyBytes_AS_STRING(path), &m, &is_bgzf);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != BCL_OK)
        return bclpy_raise(st);
    if (!is_bgzf)
        Py_RETURN_NONE;
    npy_intp n = (npy_intp)m.nblocks + 1;          /* the block starts and the ends */
    PyObject *c = u64_copy(m.coff, n), *u = c ? u64_copy(m.uoff, n) : NULL;
    bcl_bgzf_free(&m);
    return bclpy_pair(c, u);
}

static PyObject *py_kmers_from_bytes(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_KMERS_FROM_BYTES);
    int k, rank, nprocs, shift;
    long long chunk;
    if (bclpy_parse("kmers_from_bytes", args, nargs, kwnames, names, 2,
                    BCLPY_NNAMES(names), a) < 0 ||
        c_int(a[1], "k", 0, &k) < 0 || c_int(a[2], "rank", 0, &rank) < 0 ||
        c_int(a[3], "nprocs", 1, &nprocs) < 0 ||
        bclpy_opt_int(a[4], "chunk", LLONG_MIN, LLONG_MAX, 0, &chunk) < 0 ||
        c_int(a[5], "block_shift", BCL_KMER_DEFAULT_BLOCK_SHIFT, &shift) < 0)
        return NULL;
    bcl_kmer_parser p;
    bcl_status st = bcl_kmer_init(&p, k, rank, nprocs, shift);
    if (st != BCL_OK)
        return bclpy_raise(st);
    Py_buffer view;
    if (PyObject_GetBuffer(a[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    /* a byte ends at most one k-mer */
    PyObject *arr = bclpy_new_1d((npy_intp)view.len, NPY_UINT64);
    size_t total = 0;
    if (arr) {
        Py_BEGIN_ALLOW_THREADS
        st = bcl_kmer_parse_pieces(&p, view.buf, (size_t)view.len,
                                   chunk > 0 ? (size_t)chunk : 0,
                                   PyArray_DATA((PyArrayObject *)arr), &total);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    if (!arr)
        return NULL;
    if (st != BCL_OK) {
        Py_DECREF(arr);
        return bclpy_raise(st);
    }
    return bclpy_shrink(arr, (npy_intp)total);
}

/* ---- functions: codes, sketches and output --------------------------------- */

/* k in [1, 32] */
static int k_arg(PyObject *o, int *k)
{
    long long v;
    if (bclpy_int_arg(o, "k", 1, BCL_KMER_MAX_K, &v) < 0)
        return -1;
    *k = (int)v;
    return 0;
}

static PyObject *py_kmer_encode(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_KMER_ENCODE);
    if (bclpy_parse("kmer_encode", args, nargs, kwnames, names, 1, 1, a) < 0)
        return NULL;
    Py_ssize_t len;
    const char *s = PyUnicode_Check(a[0]) ? PyUnicode_AsUTF8AndSize(a[0], &len) : NULL;
    if (!s) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "kmer_encode: kmer must be a str");
        return NULL;
    }
    if (len < 1 || len > BCL_KMER_MAX_K)
        return PyErr_Format(PyExc_ValueError, "kmer_encode: length must be in [1, 32], got %zd",
                            len);
    uint64_t v;
    if (bcl_kmer_encode(s, (int)len, &v) < 0)
        return PyErr_Format(PyExc_ValueError, "kmer_encode: %R holds a non-ACGT base", a[0]);
    return PyLong_FromUnsignedLongLong(v);
}

static PyObject *py_kmer_decode(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_KMER_DECODE);
    int k;
    if (bclpy_parse("kmer_decode", args, nargs, kwnames, names, 2, 2, a) < 0 ||
        k_arg(a[1], &k) < 0)
        return NULL;
    PyArrayObject *in = (PyArrayObject *)PyArray_FROMANY(a[0], NPY_UINT64, 0, 1,
                                                         NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!in)
        return NULL;
    npy_intp n = PyArray_SIZE(in);
    PyArray_Descr *d = PyArray_DescrNewFromType(NPY_STRING);
    PyObject *out = NULL;
    if (d) {
        PyDataType_SET_ELSIZE(d, k);
        out = PyArray_NewFromDescr(&PyArray_Type, d, 1, &n, NULL, NULL, 0, NULL);
    }
    if (out)
        bcl_kmer_decode_many(PyArray_DATA(in), (size_t)n, k,
                             PyArray_DATA((PyArrayObject *)out));
    Py_DECREF(in);
    return out;
}

static PyObject *py_hll_estimate(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_HLL_ESTIMATE);
    if (bclpy_parse("hll_estimate", args, nargs, kwnames, names, 1, 1, a) < 0)
        return NULL;
    PyArrayObject *regs = (PyArrayObject *)PyArray_FROMANY(a[0], NPY_UINT8, 1, 1,
                                                           NPY_ARRAY_IN_ARRAY);
    if (!regs)
        return NULL;
    if (PyArray_SIZE(regs) != BCL_HLL_REGISTERS) {
        Py_DECREF(regs);
        return PyErr_Format(PyExc_ValueError, "hll_estimate: need %u registers",
                            BCL_HLL_REGISTERS);
    }
    double e = bcl_hll_estimate((const bcl_hll *)PyArray_DATA(regs));
    Py_DECREF(regs);
    return PyFloat_FromDouble(e);
}

static PyObject *py_hll_add(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_HLL_ADD);
    if (bclpy_parse("hll_add", args, nargs, kwnames, names, 2, 2, a) < 0)
        return NULL;
    PyArrayObject *regs = (PyArrayObject *)a[0];
    if (!PyArray_Check(a[0]) || PyArray_TYPE(regs) != NPY_UINT8 ||
        PyArray_SIZE(regs) != BCL_HLL_REGISTERS || !PyArray_IS_C_CONTIGUOUS(regs) ||
        !PyArray_ISWRITEABLE(regs))
        return PyErr_Format(PyExc_TypeError, "hll_add: registers must be a writable "
                            "contiguous uint8 array of %u", BCL_HLL_REGISTERS);
    PyArrayObject *k = (PyArrayObject *)PyArray_FROMANY(a[1], NPY_UINT64, 0, 1,
                                                        NPY_ARRAY_IN_ARRAY);
    if (!k)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    bcl_kmer_hll_add((bcl_hll *)PyArray_DATA(regs), PyArray_DATA(k), (size_t)PyArray_SIZE(k));
    Py_END_ALLOW_THREADS
    Py_DECREF(k);
    Py_RETURN_NONE;
}

/* A bytes object of what the kernel `fill` writes, with the GIL released,
 * into a buffer of `cap` bytes (0: the size overflowed: MemoryError). */
static PyObject *text_result(size_t cap, size_t (*fill)(void *ctx, char *out), void *ctx)
{
    char *buf = cap ? PyMem_RawMalloc(cap) : NULL;
    if (!buf)
        return PyErr_NoMemory();
    size_t n;
    Py_BEGIN_ALLOW_THREADS
    n = fill(ctx, buf);
    Py_END_ALLOW_THREADS
    PyObject *res = PyBytes_FromStringAndSize(buf, (Py_ssize_t)n);
    PyMem_RawFree(buf);
    return res;
}

typedef struct {
    const uint64_t *kmers;
    const int64_t *counts;
    size_t n;
    int k;
} tsv_job;

static size_t tsv_fill(void *ctx, char *out)
{
    tsv_job *j = ctx;
    return bcl_kmer_tsv(j->kmers, j->counts, j->n, j->k, out);
}

static PyObject *py_kmer_tsv(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_KMER_TSV);
    int k;
    if (bclpy_parse("kmer_tsv", args, nargs, kwnames, names, 3, 3, a) < 0 ||
        k_arg(a[2], &k) < 0)
        return NULL;
    PyArrayObject *ka = (PyArrayObject *)PyArray_FROMANY(a[0], NPY_UINT64, 1, 1,
                                                         NPY_ARRAY_IN_ARRAY);
    PyArrayObject *ca = ka ? (PyArrayObject *)PyArray_FROMANY(
                                 a[1], NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST)
                           : NULL;
    PyObject *res = NULL;
    if (ca && PyArray_SIZE(ca) != PyArray_SIZE(ka))
        PyErr_SetString(PyExc_ValueError, "kmer_tsv: kmers and counts differ in length");
    else if (ca) {
        tsv_job j = { PyArray_DATA(ka), PyArray_DATA(ca), (size_t)PyArray_SIZE(ka), k };
        res = text_result(bcl_kmer_tsv_bound(j.n, k), tsv_fill, &j);
    }
    Py_XDECREF(ka);
    Py_XDECREF(ca);
    return res;
}

typedef struct {
    Py_buffer g;
    long long n_reads, length;
    double err;
    uint64_t seed;
} sim_job;

static size_t sim_fill(void *ctx, char *out)
{
    sim_job *j = ctx;
    return bcl_simulate_reads(j->g.buf, (size_t)j->g.len, (size_t)j->n_reads,
                              (size_t)j->length, j->err, j->seed, out);
}

static PyObject *py_simulate_reads(PyObject *self, BCLPY_FASTARGS)
{
    BCLPY_ARG_TABLE(BCLPY_ARGS_SIMULATE_READS);
    sim_job j = { .seed = 1 };
    if (bclpy_parse("simulate_reads", args, nargs, kwnames, names, 4, 5, a) < 0 ||
        bclpy_int_arg(a[1], "n_reads", LLONG_MIN, LLONG_MAX, &j.n_reads) < 0 ||
        bclpy_int_arg(a[2], "length", LLONG_MIN, LLONG_MAX, &j.length) < 0 ||
        ((j.err = PyFloat_AsDouble(a[3])) == -1.0 && PyErr_Occurred()) ||
        (a[4] && bclpy_u64_mask_arg(a[4], "seed", &j.seed) < 0))
        return NULL;
    if (PyObject_GetBuffer(a[0], &j.g, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *res = NULL;
    if (j.n_reads < 0 || j.length < 1 || j.length > j.g.len || j.g.len > UINT32_MAX ||
        !(j.err >= 0.0 && j.err <= 1.0))
        PyErr_Format(PyExc_ValueError, "simulate_reads: need n_reads >= 0, 1 <= length <= "
                     "len(genome) (%zd) <= 2**32 - 1 and 0 <= error_rate <= 1", j.g.len);
    else
        res = text_result(bcl_readsim_bound((size_t)j.n_reads, (size_t)j.length), sim_fill,
                          &j);
    PyBuffer_Release(&j.g);
    return res;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "apps/generated/bclpy_kmer_methods_clinic.h"
#include "apps/generated/KmerReader_methods_clinic.h"
