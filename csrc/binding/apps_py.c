/*
 * apps_py.c -- binding of the apps' C helpers: FASTA/FASTQ k-mer reading
 * (bcl_kmer), PCG32 / ISx keys (bcl_pcg), read simulation for
 * the demo.  Everything hands whole NumPy arrays to Python; no per-k-mer
 * Python objects.  The GIL is released around parsing, decompression,
 * and generation.
 *
 * Functions added to pybcl._core:
 *   KmerReader(path, k, rank=0, nprocs=1, chunk_bytes=4 MiB, block_shift=20,
 *              hll=False, start=0, end=-1, fmt=None, gz_entry=None)  iterator of uint64
 *                                  arrays (bcl_kmer.h, bytes from bcl_seqsrc.h: strict
 *                                  gzip, byte ranges, gzip record ranges)
 *   bgzf_blocks(path) -> None | (compressed offsets, decompressed offsets)  (bcl_bgzf.h)
 *   KmerTable(capacity=0, bloom_bits=0)  one rank's count table (bcl_kcount.h)
 *   kmer_partition(kmers, nprocs) -> (grouped by owner, counts)
 *   seq_resync(path, size, offset, fmt) -> record boundary at or after offset
 *   kmers_from_bytes(data, k, rank=0, nprocs=1, chunk=0, block_shift=20)
 *   kmer_encode(str) -> int, kmer_decode(uint64 array, k) -> S<k> array
 *   hll_estimate(uint8 registers) -> float, HLL_REGISTERS
 *   pcg32_outputs(initstate, initseq, n) -> uint32 array
 *   isx_keys(rank, n, max_key=2**28) -> int32 array   (ISx make_input)
 *   IsxKeyGen(rank, max_key)           .take(n) -> next n keys of that stream
 *   isx_bucketize(keys, width, nbuckets) -> (keys grouped by bucket, counts)
 *   simulate_reads(genome, n_reads, length, error_rate, seed) -> FASTQ bytes
 */
#include "bclpy.h"

#include <string.h>
#include <errno.h>

#include "kernels/bcl_bgzf.h"
#include "kernels/bcl_kcount.h"
#include "kernels/bcl_kmer.h"
#include "kernels/bcl_seqsrc.h"
#include "kernels/bcl_pcg.h"
#include "binding/docstrings/apps.h"

#define CHECK(expr)                         \
    do {                                    \
        bcl_status st_ = (expr);            \
        if (st_ != BCL_OK)                  \
            return bclpy_raise(st_);        \
    } while (0)

static PyObject *new_u64(npy_intp n)
{
    return PyArray_SimpleNew(1, &n, NPY_UINT64);
}

/* Shrink a 1-d array we own to its first n elements (one realloc). */
static PyObject *shrink(PyObject *arr, npy_intp n)
{
    PyArray_Dims dims = { &n, 1 };
    PyObject *r = PyArray_Resize((PyArrayObject *)arr, &dims, 0, NPY_CORDER);
    if (!r) {
        Py_DECREF(arr);
        return NULL;
    }
    Py_DECREF(r);             /* PyArray_Resize returns None */
    return arr;
}

/* ---- KmerReader ---------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    bcl_seqsrc src;
    int open;
    bcl_kmer_parser parser;
    char *buf;
    size_t chunk;
    int done;
    int use_hll;
    uint8_t hll[BCL_HLL_REGS];
    uint64_t bytes_read;
    PyObject *path;
} KmerReader;

static void KmerReader_dealloc(KmerReader *self)
{
    if (self->open)
        bcl_seqsrc_close(&self->src);
    PyMem_RawFree(self->buf);
    Py_XDECREF(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int KmerReader_init(KmerReader *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "path", "k", "rank", "nprocs", "chunk_bytes", "block_shift",
                              "hll", "start", "end", "fmt", "gz_entry", NULL };
    PyObject *path_obj, *entry = Py_None;
    int k, rank = 0, nprocs = 1, block_shift = BCL_KMER_DEFAULT_BLOCK_SHIFT, hll = 0;
    Py_ssize_t chunk = 4 << 20;
    long long start = 0, end = -1;
    const char *fmt = NULL;
    unsigned long long zoff = 0, uoff = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&i|iinipLLzO:KmerReader", kwlist,
                                     PyUnicode_FSConverter, &path_obj, &k, &rank, &nprocs,
                                     &chunk, &block_shift, &hll, &start, &end, &fmt, &entry))
        return -1;
    bcl_seqfmt f = !fmt ? BCL_FMT_UNKNOWN : strcmp(fmt, "fasta") == 0 ? BCL_FMT_FASTA
                   : strcmp(fmt, "fastq") == 0 ? BCL_FMT_FASTQ : (bcl_seqfmt)-1;
    int ranged = entry != Py_None;
    if (ranged && !PyArg_ParseTuple(entry, "KK;KmerReader: gz_entry must be a pair "
                                    "(compressed offset, stream offset)", &zoff, &uoff)) {
        Py_DECREF(path_obj);
        return -1;
    }
    if (chunk < 1 || start < 0 || (end >= 0 && end < start) || (int)f < 0 ||
        (ranged && f == BCL_FMT_UNKNOWN)) {
        Py_DECREF(path_obj);
        PyErr_Format(PyExc_ValueError, "KmerReader: need chunk_bytes >= 1 (got %zd), "
                     "0 <= start <= end (got %lld, %lld), and fmt 'fasta' or 'fastq' with "
                     "gz_entry (got %s)", chunk, start, end, fmt ? fmt : "None");
        return -1;
    }
    bcl_status st = bcl_kmer_init(&self->parser, k, rank, nprocs, block_shift);
    if (st != BCL_OK) {
        Py_DECREF(path_obj);
        bclpy_raise(st);
        return -1;
    }
    if (self->open) {
        bcl_seqsrc_close(&self->src);
        self->open = 0;
    }
    Py_XSETREF(self->path, path_obj);
    const char *cpath = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS
    if (ranged)
        st = bcl_seqsrc_open_gz_range(&self->src, cpath, zoff, uoff, (uint64_t)start,
                                      end < 0 ? UINT64_MAX : (uint64_t)end, f);
    else
        st = bcl_seqsrc_open(&self->src, cpath, (uint64_t)start,
                             end < 0 ? UINT64_MAX : (uint64_t)end);
    Py_END_ALLOW_THREADS
    if (st != BCL_OK) {
        errno = 0;
        PyErr_Format(PyExc_OSError, "%s", bcl_last_error());
        return -1;
    }
    self->open = 1;
    PyMem_RawFree(self->buf);
    self->buf = PyMem_RawMalloc((size_t)chunk);
    if (!self->buf) {
        PyErr_NoMemory();
        return -1;
    }
    self->chunk = (size_t)chunk;
    self->done = 0;
    self->use_hll = hll;
    memset(self->hll, 0, sizeof self->hll);
    self->bytes_read = 0;
    return 0;
}

static PyObject *KmerReader_next(KmerReader *self)
{
    if (!self->open || self->done)
        return NULL;
    PyObject *arr = new_u64((npy_intp)self->chunk);
    if (!arr)
        return NULL;
    uint64_t *out = PyArray_DATA((PyArrayObject *)arr);
    size_t got = 0, nout = 0;
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_seqsrc_read(&self->src, self->buf, self->chunk, &got);
    if (self->bytes_read == 0)
        self->parser.offset = self->src.first;  /* messages name stream offsets */
    if (st == BCL_OK && got > 0) {
        st = bcl_kmer_feed(&self->parser, self->buf, got, out, &nout);
        if (st == BCL_OK && self->use_hll)
            bcl_kmer_hll_add(self->hll, out, nout);
    } else if (st == BCL_OK) {
        st = bcl_kmer_finish(&self->parser);
    }
    Py_END_ALLOW_THREADS
    if (st != BCL_OK) {
        Py_DECREF(arr);
        self->done = 1;
        const char *msg = bcl_last_error();
        /* the source's messages name the file already, the parser's don't */
        if (strncmp(msg, PyBytes_AS_STRING(self->path), PyBytes_GET_SIZE(self->path)) == 0)
            PyErr_Format(PyExc_ValueError, "%s", msg);
        else
            PyErr_Format(PyExc_ValueError, "%s: %s", PyBytes_AS_STRING(self->path), msg);
        return NULL;
    }
    if (got == 0) {
        self->done = 1;
        Py_DECREF(arr);
        return NULL;                           /* StopIteration */
    }
    self->bytes_read += (uint64_t)got;
    return shrink(arr, (npy_intp)nout);
}

static PyObject *KmerReader_close(KmerReader *self, PyObject *noargs)
{
    if (self->open) {
        bcl_seqsrc_close(&self->src);
        self->open = 0;
    }
    self->done = 1;
    Py_RETURN_NONE;
}

static PyObject *KmerReader_stats(KmerReader *self, PyObject *noargs)
{
    const bcl_kmer_parser *p = &self->parser;
    return Py_BuildValue("{sKsKsKsKsKss}", "records", (unsigned long long)p->records,
                         "bases", (unsigned long long)p->bases,
                         "kmers_total", (unsigned long long)p->kmers_total,
                         "kmers_emitted", (unsigned long long)p->kmers_emitted,
                         "bytes", (unsigned long long)self->bytes_read,
                         "format", p->fmt == BCL_FMT_FASTA   ? "fasta"
                                   : p->fmt == BCL_FMT_FASTQ ? "fastq"
                                                             : "unknown");
}

static PyObject *KmerReader_hll(KmerReader *self, PyObject *noargs)
{
    npy_intp n = BCL_HLL_REGS;
    PyObject *a = PyArray_SimpleNew(1, &n, NPY_UINT8);
    if (a)
        memcpy(PyArray_DATA((PyArrayObject *)a), self->hll, BCL_HLL_REGS);
    return a;
}

static PyMethodDef KmerReader_methods[] = {
    {"close", (PyCFunction)KmerReader_close, METH_NOARGS, BCLPY_DOC_KR_CLOSE},
    {"stats", (PyCFunction)KmerReader_stats, METH_NOARGS, BCLPY_DOC_KR_STATS},
    {"hll_registers", (PyCFunction)KmerReader_hll, METH_NOARGS, BCLPY_DOC_KR_HLL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject KmerReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pybcl._core.KmerReader",
    .tp_basicsize = sizeof(KmerReader),
    .tp_dealloc = (destructor)KmerReader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = BCLPY_DOC_KMERREADER,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)KmerReader_next,
    .tp_methods = KmerReader_methods,
    .tp_init = (initproc)KmerReader_init,
    .tp_new = PyType_GenericNew,
};

/* ---- KmerTable ----------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    bcl_kcount t;
    int live;
} KmerTable;

static void KmerTable_dealloc(KmerTable *self)
{
    if (self->live)
        bcl_kcount_free(&self->t);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int KmerTable_init(KmerTable *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "capacity", "bloom_bits", NULL };
    long long cap = 0, bloom = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|LL:KmerTable", kwlist, &cap, &bloom))
        return -1;
    if (cap < 0 || bloom < 0 || cap > (1LL << 40) || bloom > (1LL << 44)) {
        PyErr_Format(PyExc_ValueError, "KmerTable: capacity must be in [0, 2**40] and "
                     "bloom_bits in [0, 2**44], got %lld, %lld", cap, bloom);
        return -1;
    }
    if (self->live) {
        bcl_kcount_free(&self->t);
        self->live = 0;
    }
    bcl_status st = bcl_kcount_init(&self->t, (uint64_t)cap, (uint64_t)bloom);
    if (st != BCL_OK) {
        bclpy_raise(st);
        return -1;
    }
    self->live = 1;
    return 0;
}

static PyArrayObject *u64_input(PyObject *obj, const char *fn)
{
    if (PyArray_Check(obj) && PyArray_TYPE((PyArrayObject *)obj) != NPY_UINT64) {
        PyErr_Format(PyExc_TypeError, "%s: kmers must be a uint64 array, got %R", fn,
                     (PyObject *)PyArray_DESCR((PyArrayObject *)obj));
        return NULL;
    }
    return (PyArrayObject *)PyArray_FROMANY(obj, NPY_UINT64, 1, 1, NPY_ARRAY_IN_ARRAY);
}

/* k-mers of `obj` (uint64 array, no ~0) counted by `fn` with the GIL released */
static PyObject *table_feed(KmerTable *self, PyObject *obj, const char *name,
                            bcl_status (*fn)(bcl_kcount *, const uint64_t *, size_t))
{
    if (!self->live)
        return PyErr_Format(PyExc_ValueError, "KmerTable is not initialised");
    PyArrayObject *a = u64_input(obj, name);
    if (!a)
        return NULL;
    const uint64_t *k = PyArray_DATA(a);
    size_t n = (size_t)PyArray_SIZE(a);
    for (size_t i = 0; i < n; i++)
        if (k[i] == BCL_KCOUNT_EMPTY) {
            Py_DECREF(a);
            return PyErr_Format(PyExc_ValueError, "%s: 0xffffffffffffffff is not a "
                                "canonical k-mer code", name);
        }
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fn(&self->t, k, n);
    Py_END_ALLOW_THREADS
    Py_DECREF(a);
    if (st != BCL_OK)
        return bclpy_raise(st);
    Py_RETURN_NONE;
}

static PyObject *KmerTable_add(KmerTable *self, PyObject *obj)
{
    return table_feed(self, obj, "KmerTable.add", bcl_kcount_add);
}

static bcl_status count_known(bcl_kcount *t, const uint64_t *kmers, size_t n)
{
    bcl_kcount_count_known(t, kmers, n);
    return BCL_OK;
}

static PyObject *KmerTable_count_known(KmerTable *self, PyObject *obj)
{
    return table_feed(self, obj, "KmerTable.count_known", count_known);
}

static PyObject *KmerTable_restart_counts(KmerTable *self, PyObject *noargs)
{
    if (!self->live)
        return PyErr_Format(PyExc_ValueError, "KmerTable is not initialised");
    Py_BEGIN_ALLOW_THREADS
    bcl_kcount_restart_counts(&self->t);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *KmerTable_items(KmerTable *self, PyObject *noargs)
{
    npy_intp n = self->live ? (npy_intp)self->t.used : 0;
    PyObject *ka = PyArray_SimpleNew(1, &n, NPY_UINT64);
    PyObject *ca = ka ? PyArray_SimpleNew(1, &n, NPY_INT64) : NULL;
    if (!ca) {
        Py_XDECREF(ka);
        return NULL;
    }
    if (n) {
        Py_BEGIN_ALLOW_THREADS
        bcl_kcount_export(&self->t, PyArray_DATA((PyArrayObject *)ka),
                          PyArray_DATA((PyArrayObject *)ca));
        Py_END_ALLOW_THREADS
    }
    return Py_BuildValue("(NN)", ka, ca);
}

static PyObject *KmerTable_histogram(KmerTable *self, PyObject *noargs)
{
    /* counts are almost all small: one pass into 4096 bins, a second only
     * when a larger count exists */
    npy_intp len = 4096;
    for (;;) {
        PyObject *h = PyArray_ZEROS(1, &len, NPY_INT64, 0);
        if (!h)
            return NULL;
        uint64_t top = 0;
        if (self->live) {
            Py_BEGIN_ALLOW_THREADS
            top = bcl_kcount_histogram(&self->t, PyArray_DATA((PyArrayObject *)h),
                                       (size_t)len);
            Py_END_ALLOW_THREADS
        }
        if ((npy_intp)top < len)
            return shrink(h, (npy_intp)top + 1);
        Py_DECREF(h);
        len = (npy_intp)top + 1;
    }
}

static PyObject *KmerTable_top(KmerTable *self, PyObject *arg)
{
    Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0 || n > (1 << 20))
        return PyErr_Format(PyExc_ValueError, "KmerTable.top: n must be in [0, 2**20], "
                            "got %zd", n);
    npy_intp dn = n;
    PyObject *ka = PyArray_SimpleNew(1, &dn, NPY_UINT64);
    PyObject *ca = ka ? PyArray_SimpleNew(1, &dn, NPY_INT64) : NULL;
    if (!ca) {
        Py_XDECREF(ka);
        return NULL;
    }
    size_t got = 0;
    if (self->live) {
        Py_BEGIN_ALLOW_THREADS
        got = bcl_kcount_top(&self->t, (size_t)n, PyArray_DATA((PyArrayObject *)ka),
                             PyArray_DATA((PyArrayObject *)ca));
        Py_END_ALLOW_THREADS
    }
    ka = shrink(ka, (npy_intp)got);
    ca = ka ? shrink(ca, (npy_intp)got) : (Py_DECREF(ca), NULL);
    if (!ca) {
        Py_XDECREF(ka);
        return NULL;
    }
    return Py_BuildValue("(NN)", ka, ca);
}

static PyObject *KmerTable_stats(KmerTable *self, PyObject *noargs)
{
    const bcl_kcount *t = &self->t;
    return Py_BuildValue("{sKsKsKsKsKsKsK}", "distinct", (unsigned long long)t->used,
                         "slots", (unsigned long long)t->cap,
                         "bytes", (unsigned long long)bcl_kcount_bytes(t),
                         "added", (unsigned long long)t->added,
                         "resizes", (unsigned long long)t->resizes,
                         "bloom_bits", (unsigned long long)t->bloom_bits,
                         "saturated", (unsigned long long)t->saturated);
}

static PyObject *KmerTable_free(KmerTable *self, PyObject *noargs)
{
    if (self->live)
        bcl_kcount_free(&self->t);
    self->live = 0;
    Py_RETURN_NONE;
}

static PyMethodDef KmerTable_methods[] = {
    {"add", (PyCFunction)KmerTable_add, METH_O, BCLPY_DOC_KT_ADD},
    {"count_known", (PyCFunction)KmerTable_count_known, METH_O, BCLPY_DOC_KT_COUNT_KNOWN},
    {"restart_counts", (PyCFunction)KmerTable_restart_counts, METH_NOARGS,
     BCLPY_DOC_KT_RESTART_COUNTS},
    {"items", (PyCFunction)KmerTable_items, METH_NOARGS, BCLPY_DOC_KT_ITEMS},
    {"histogram", (PyCFunction)KmerTable_histogram, METH_NOARGS, BCLPY_DOC_KT_HISTOGRAM},
    {"top", (PyCFunction)KmerTable_top, METH_O, BCLPY_DOC_KT_TOP},
    {"stats", (PyCFunction)KmerTable_stats, METH_NOARGS, BCLPY_DOC_KT_STATS},
    {"free", (PyCFunction)KmerTable_free, METH_NOARGS, BCLPY_DOC_KT_FREE},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject KmerTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pybcl._core.KmerTable",
    .tp_basicsize = sizeof(KmerTable),
    .tp_dealloc = (destructor)KmerTable_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = BCLPY_DOC_KMERTABLE,
    .tp_methods = KmerTable_methods,
    .tp_init = (initproc)KmerTable_init,
    .tp_new = PyType_GenericNew,
};

/* kmer_partition(kmers, nprocs) -> (kmers grouped by owner rank, counts int64) */
static PyObject *py_kmer_partition(PyObject *self, PyObject *args)
{
    PyObject *obj;
    int P;
    if (!PyArg_ParseTuple(args, "Oi:kmer_partition", &obj, &P))
        return NULL;
    if (P < 1 || P > (1 << 24))
        return PyErr_Format(PyExc_ValueError, "kmer_partition: nprocs must be in [1, 2**24], "
                            "got %d", P);
    PyArrayObject *a = u64_input(obj, "kmer_partition");
    if (!a)
        return NULL;
    npy_intp n = PyArray_SIZE(a), dp = P;
    PyObject *out = PyArray_SimpleNew(1, &n, NPY_UINT64);
    PyObject *cnt = out ? PyArray_SimpleNew(1, &dp, NPY_INT64) : NULL;
    if (!cnt) {
        Py_XDECREF(out);
        Py_DECREF(a);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    bcl_kcount_partition(PyArray_DATA(a), (size_t)n, P, PyArray_DATA((PyArrayObject *)out),
                         PyArray_DATA((PyArrayObject *)cnt));
    Py_END_ALLOW_THREADS
    Py_DECREF(a);
    return Py_BuildValue("(NN)", out, cnt);
}

/* seq_resync(path, size, offset, fmt 'fasta'|'fastq') -> record boundary >= offset */
static PyObject *py_seq_resync(PyObject *self, PyObject *args)
{
    PyObject *path_obj;
    unsigned long long size, offset;
    const char *fmt;
    if (!PyArg_ParseTuple(args, "O&KKs:seq_resync", PyUnicode_FSConverter, &path_obj, &size,
                          &offset, &fmt))
        return NULL;
    bcl_seqfmt f = strcmp(fmt, "fasta") == 0 ? BCL_FMT_FASTA
                   : strcmp(fmt, "fastq") == 0 ? BCL_FMT_FASTQ : BCL_FMT_UNKNOWN;
    if (f == BCL_FMT_UNKNOWN) {
        Py_DECREF(path_obj);
        return PyErr_Format(PyExc_ValueError, "seq_resync: fmt must be 'fasta' or 'fastq', "
                            "got %R", PyTuple_GET_ITEM(args, 3));
    }
    uint64_t out = 0;
    bcl_status st;
    const char *cpath = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS
    st = bcl_seqsrc_resync(cpath, size, offset, f, &out);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != BCL_OK)
        return bclpy_raise(st);
    return PyLong_FromUnsignedLongLong(out);
}

/* bgzf_blocks(path) -> None (not BGZF) | (coff, uoff): uint64 arrays of
 * nblocks + 1 block starts, compressed and decompressed, the ends last */
static PyObject *py_bgzf_blocks(PyObject *self, PyObject *arg)
{
    PyObject *path_obj;
    if (!PyUnicode_FSConverter(arg, &path_obj))
        return NULL;
    bcl_bgzf_map m;
    int is_bgzf = 0;
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_bgzf_walk(PyBytes_AS_STRING(path_obj), &m, &is_bgzf);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != BCL_OK)
        return bclpy_raise(st);
    if (!is_bgzf)
        Py_RETURN_NONE;
    npy_intp n = (npy_intp)m.nblocks + 1;
    PyObject *c = new_u64(n), *u = c ? new_u64(n) : NULL;
    if (u) {
        memcpy(PyArray_DATA((PyArrayObject *)c), m.coff, (size_t)n * sizeof(uint64_t));
        memcpy(PyArray_DATA((PyArrayObject *)u), m.uoff, (size_t)n * sizeof(uint64_t));
    }
    bcl_bgzf_free(&m);
    if (!u) {
        Py_XDECREF(c);
        return NULL;
    }
    return Py_BuildValue("(NN)", c, u);
}

/* ---- one-shot helpers ---------------------------------------------------- */

static PyObject *py_kmers_from_bytes(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "data", "k", "rank", "nprocs", "chunk", "block_shift", NULL };
    Py_buffer view;
    int k, rank = 0, nprocs = 1, block_shift = BCL_KMER_DEFAULT_BLOCK_SHIFT;
    Py_ssize_t chunk = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*i|iini:kmers_from_bytes", kwlist, &view,
                                     &k, &rank, &nprocs, &chunk, &block_shift))
        return NULL;
    bcl_kmer_parser p;
    bcl_status st = bcl_kmer_init(&p, k, rank, nprocs, block_shift);
    if (st != BCL_OK) {
        PyBuffer_Release(&view);
        return bclpy_raise(st);
    }
    size_t n = (size_t)view.len;
    PyObject *arr = new_u64((npy_intp)n);
    if (!arr) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint64_t *out = PyArray_DATA((PyArrayObject *)arr);
    size_t total = 0, step = chunk > 0 ? (size_t)chunk : (n ? n : 1);
    Py_BEGIN_ALLOW_THREADS
    for (size_t off = 0; off < n && st == BCL_OK; off += step) {
        size_t len = n - off < step ? n - off : step, got = 0;
        st = bcl_kmer_feed(&p, (const char *)view.buf + off, len, out + total, &got);
        total += got;
    }
    if (st == BCL_OK)
        st = bcl_kmer_finish(&p);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (st != BCL_OK) {
        Py_DECREF(arr);
        return bclpy_raise(st);
    }
    return shrink(arr, (npy_intp)total);
}

static PyObject *py_kmer_encode(PyObject *self, PyObject *arg)
{
    Py_ssize_t len;
    const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &len) : NULL;
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
        return PyErr_Format(PyExc_ValueError, "kmer_encode: %R holds a non-ACGT base", arg);
    return PyLong_FromUnsignedLongLong(v);
}

static PyObject *py_kmer_decode(PyObject *self, PyObject *args)
{
    PyObject *obj;
    int k;
    if (!PyArg_ParseTuple(args, "Oi:kmer_decode", &obj, &k))
        return NULL;
    if (k < 1 || k > BCL_KMER_MAX_K)
        return PyErr_Format(PyExc_ValueError, "kmer_decode: k must be in [1, 32], got %d", k);
    PyArrayObject *in = (PyArrayObject *)PyArray_FROMANY(obj, NPY_UINT64, 0, 1,
                                                         NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (!in)
        return NULL;
    npy_intp n = PyArray_SIZE(in);
    PyArray_Descr *d = PyArray_DescrNewFromType(NPY_STRING);
    if (!d) {
        Py_DECREF(in);
        return NULL;
    }
    PyDataType_SET_ELSIZE(d, k);
    PyObject *out = PyArray_NewFromDescr(&PyArray_Type, d, 1, &n, NULL, NULL, 0, NULL);
    if (!out) {
        Py_DECREF(in);
        return NULL;
    }
    const uint64_t *src = PyArray_DATA(in);
    char *dst = PyArray_DATA((PyArrayObject *)out);
    for (npy_intp i = 0; i < n; i++)
        bcl_kmer_decode(src[i], k, dst + (size_t)i * (size_t)k);
    Py_DECREF(in);
    return out;
}

static PyObject *py_hll_estimate(PyObject *self, PyObject *obj)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_UINT8, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY);
    if (!a)
        return NULL;
    if (PyArray_SIZE(a) != BCL_HLL_REGS) {
        Py_DECREF(a);
        return PyErr_Format(PyExc_ValueError, "hll_estimate: need %u registers",
                            BCL_HLL_REGS);
    }
    double e = bcl_kmer_hll_estimate(PyArray_DATA(a));
    Py_DECREF(a);
    return PyFloat_FromDouble(e);
}

/* ---- PCG32 / ISx --------------------------------------------------------- */

static int check_count(Py_ssize_t n, const char *fn)
{
    if (n < 0) {
        PyErr_Format(PyExc_ValueError, "%s: n must be >= 0, got %zd", fn, n);
        return -1;
    }
    return 0;
}

static PyObject *py_pcg32_outputs(PyObject *self, PyObject *args)
{
    unsigned long long initstate, initseq;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "KKn:pcg32_outputs", &initstate, &initseq, &n))
        return NULL;
    if (check_count(n, "pcg32_outputs") < 0)
        return NULL;
    npy_intp dn = n;
    PyObject *a = PyArray_SimpleNew(1, &dn, NPY_UINT32);
    if (!a)
        return NULL;
    uint32_t *o = PyArray_DATA((PyArrayObject *)a);
    bcl_pcg32 rng;
    bcl_pcg32_seed(&rng, initstate, initseq);
    for (Py_ssize_t i = 0; i < n; i++)
        o[i] = bcl_pcg32_next(&rng);
    return a;
}

static int check_max_key(long long max_key)
{
    if (max_key < 1 || max_key > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "max_key must be in [1, 2**31 - 1], got %lld", max_key);
        return -1;
    }
    return 0;
}

static PyObject *py_isx_keys(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "rank", "n", "max_key", NULL };
    long long rank, max_key = 1LL << 28;
    Py_ssize_t n;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Ln|L:isx_keys", kwlist, &rank, &n, &max_key))
        return NULL;
    if (check_count(n, "isx_keys") < 0 || check_max_key(max_key) < 0)
        return NULL;
    npy_intp dn = n;
    PyObject *a = PyArray_SimpleNew(1, &dn, NPY_INT32);
    if (!a)
        return NULL;
    int32_t *o = PyArray_DATA((PyArrayObject *)a);
    bcl_pcg32 rng;
    bcl_pcg32_seed(&rng, (uint64_t)rank, (uint64_t)rank);
    Py_BEGIN_ALLOW_THREADS
    bcl_isx_keys(&rng, (uint32_t)max_key, o, (size_t)n);
    Py_END_ALLOW_THREADS
    return a;
}

typedef struct {
    PyObject_HEAD
    bcl_pcg32 rng;
    uint32_t bound;
} IsxKeyGen;

static int IsxKeyGen_init(IsxKeyGen *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "rank", "max_key", NULL };
    long long rank, max_key = 1LL << 28;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "L|L:IsxKeyGen", kwlist, &rank, &max_key))
        return -1;
    if (check_max_key(max_key) < 0)
        return -1;
    bcl_pcg32_seed(&self->rng, (uint64_t)rank, (uint64_t)rank);
    self->bound = (uint32_t)max_key;
    return 0;
}

static PyObject *IsxKeyGen_take(IsxKeyGen *self, PyObject *arg)
{
    Py_ssize_t n = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (check_count(n, "take") < 0)
        return NULL;
    npy_intp dn = n;
    PyObject *a = PyArray_SimpleNew(1, &dn, NPY_INT32);
    if (!a)
        return NULL;
    bcl_isx_keys(&self->rng, self->bound, PyArray_DATA((PyArrayObject *)a), (size_t)n);
    return a;
}

static PyMethodDef IsxKeyGen_methods[] = {
    {"take", (PyCFunction)IsxKeyGen_take, METH_O, BCLPY_DOC_IKG_TAKE},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject IsxKeyGenType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pybcl._core.IsxKeyGen",
    .tp_basicsize = sizeof(IsxKeyGen),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = BCLPY_DOC_ISXKEYGEN,
    .tp_methods = IsxKeyGen_methods,
    .tp_init = (initproc)IsxKeyGen_init,
    .tp_new = PyType_GenericNew,
};


/* isx_bucketize(keys int32, width, nbuckets) -> (grouped keys, counts int64) */
static PyObject *py_isx_bucketize(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long width;
    int nb;
    if (!PyArg_ParseTuple(args, "OLi:isx_bucketize", &obj, &width, &nb))
        return NULL;
    if (width < 1 || width > UINT32_MAX || nb < 1 || nb > (1 << 24))
        return PyErr_Format(PyExc_ValueError, "isx_bucketize: need width >= 1 and "
                            "1 <= nbuckets <= 2**24");
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT32, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY);
    if (!a)
        return NULL;
    npy_intp n = PyArray_SIZE(a), dnb = nb;
    const int32_t *keys = PyArray_DATA(a);
    for (npy_intp i = 0; i < n; i++)
        if (keys[i] < 0 || (uint64_t)keys[i] / (uint64_t)width >= (uint64_t)nb) {
            Py_DECREF(a);
            return PyErr_Format(PyExc_ValueError, "isx_bucketize: key %d is outside "
                                "[0, width * nbuckets)", keys[i]);
        }
    PyObject *out = PyArray_SimpleNew(1, &n, NPY_INT32);
    PyObject *cnt = out ? PyArray_SimpleNew(1, &dnb, NPY_INT64) : NULL;
    if (!cnt) {
        Py_XDECREF(out);
        Py_DECREF(a);
        return NULL;
    }
    int32_t *o = PyArray_DATA((PyArrayObject *)out);
    int64_t *c = PyArray_DATA((PyArrayObject *)cnt);
    Py_BEGIN_ALLOW_THREADS
    bcl_isx_bucketize(keys, (size_t)n, (uint32_t)width, nb, o, c);
    Py_END_ALLOW_THREADS
    Py_DECREF(a);
    return Py_BuildValue("(NN)", out, cnt);
}

/* isx_count(keys int32, lo, width) -> (int32 counts of width entries, outside):
 * ISx's count_local_keys, the histogram allocated per call as the reference's. */
static PyObject *py_isx_count(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long lo, width;
    if (!PyArg_ParseTuple(args, "OLL:isx_count", &obj, &lo, &width))
        return NULL;
    if (lo < 0 || lo > INT32_MAX || width < 1 || width > (long long)INT32_MAX + 1)
        return PyErr_Format(PyExc_ValueError, "isx_count: need 0 <= lo <= 2**31 - 1 and "
                            "1 <= width <= 2**31, got %lld, %lld", lo, width);
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, NPY_INT32, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY);
    if (!a)
        return NULL;
    npy_intp w = (npy_intp)width;
    PyObject *cnt = PyArray_ZEROS(1, &w, NPY_INT32, 0);
    if (!cnt) {
        Py_DECREF(a);
        return NULL;
    }
    size_t outside;
    Py_BEGIN_ALLOW_THREADS
    outside = bcl_isx_count(PyArray_DATA(a), (size_t)PyArray_SIZE(a), (int32_t)lo,
                            (uint32_t)width, PyArray_DATA((PyArrayObject *)cnt));
    Py_END_ALLOW_THREADS
    Py_DECREF(a);
    return Py_BuildValue("(Nn)", cnt, (Py_ssize_t)outside);
}

/* ---- read simulation (the demo) ------------------------------------------ */

static PyObject *py_simulate_reads(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "genome", "n_reads", "length", "error_rate", "seed", NULL };
    Py_buffer g;
    Py_ssize_t n_reads, L;
    double err;
    unsigned long long seed = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*nnd|K:simulate_reads", kwlist, &g, &n_reads,
                                     &L, &err, &seed))
        return NULL;
    PyObject *res = NULL;
    if (n_reads < 0 || L < 1 || L > g.len || !(err >= 0.0 && err <= 1.0)) {
        PyErr_Format(PyExc_ValueError, "simulate_reads: need n_reads >= 0, 1 <= length <= "
                     "len(genome) (%zd) and 0 <= error_rate <= 1", g.len);
        goto done;
    }
    /* "@sim<i>:<start>:<strand>\n" + seq + "\n+\n" + qual + "\n" */
    size_t per = 48 + 2 * (size_t)L + 4;
    char *buf = PyMem_RawMalloc(per * (size_t)n_reads + 1);
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    static const char comp[4] = { 'T', 'G', 'C', 'A' };
    static const char letters[4] = { 'A', 'C', 'G', 'T' };
    const char *genome = g.buf;
    size_t w = 0;
    bcl_pcg32 rng;
    bcl_pcg32_seed(&rng, seed, 0x5eed);
    const uint32_t span = (uint32_t)(g.len - L + 1);
    const double thresh = err * 4294967296.0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n_reads; r++) {
        uint32_t start = bcl_pcg32_bounded(&rng, span);
        int minus = (int)(bcl_pcg32_next(&rng) & 1);
        w += (size_t)sprintf(buf + w, "@sim%zd:%u:%c\n", r, start, minus ? '-' : '+');
        for (Py_ssize_t i = 0; i < L; i++) {
            char c = minus ? genome[start + L - 1 - i] : genome[start + i];
            int code = c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : c == 'T' ? 3 : -1;
            if (minus && code >= 0)
                c = comp[code], code = 3 - code;
            if ((double)bcl_pcg32_next(&rng) < thresh) {
                int shift = 1 + (int)bcl_pcg32_bounded(&rng, 3);
                c = letters[((code < 0 ? 0 : code) + shift) & 3];
            }
            buf[w++] = c;
        }
        buf[w++] = '\n';
        buf[w++] = '+';
        buf[w++] = '\n';
        memset(buf + w, 'I', (size_t)L);
        w += (size_t)L;
        buf[w++] = '\n';
    }
    Py_END_ALLOW_THREADS
    res = PyBytes_FromStringAndSize(buf, (Py_ssize_t)w);
    PyMem_RawFree(buf);
done:
    PyBuffer_Release(&g);
    return res;
}


static PyObject *py_hll_add(PyObject *self, PyObject *args)
{
    PyObject *robj, *kobj;
    if (!PyArg_ParseTuple(args, "OO:hll_add", &robj, &kobj))
        return NULL;
    if (!PyArray_Check(robj) || PyArray_TYPE((PyArrayObject *)robj) != NPY_UINT8 ||
        PyArray_SIZE((PyArrayObject *)robj) != BCL_HLL_REGS ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)robj) ||
        !PyArray_ISWRITEABLE((PyArrayObject *)robj))
        return PyErr_Format(PyExc_TypeError, "hll_add: registers must be a writable "
                            "contiguous uint8 array of %u", BCL_HLL_REGS);
    PyArrayObject *k = (PyArrayObject *)PyArray_FROMANY(kobj, NPY_UINT64, 0, 1,
                                                        NPY_ARRAY_IN_ARRAY);
    if (!k)
        return NULL;
    uint8_t *regs = PyArray_DATA((PyArrayObject *)robj);
    const uint64_t *kmers = PyArray_DATA(k);
    size_t n = (size_t)PyArray_SIZE(k);
    Py_BEGIN_ALLOW_THREADS
    bcl_kmer_hll_add(regs, kmers, n);
    Py_END_ALLOW_THREADS
    Py_DECREF(k);
    Py_RETURN_NONE;
}

/* kmer_tsv(kmers uint64, counts int64, k) -> bytes of "KMER\tCOUNT\n" lines */
static PyObject *py_kmer_tsv(PyObject *self, PyObject *args)
{
    PyObject *kobj, *cobj;
    int k;
    if (!PyArg_ParseTuple(args, "OOi:kmer_tsv", &kobj, &cobj, &k))
        return NULL;
    if (k < 1 || k > BCL_KMER_MAX_K)
        return PyErr_Format(PyExc_ValueError, "kmer_tsv: k must be in [1, 32], got %d", k);
    PyArrayObject *ka = (PyArrayObject *)PyArray_FROMANY(kobj, NPY_UINT64, 1, 1,
                                                         NPY_ARRAY_IN_ARRAY);
    PyArrayObject *ca = ka ? (PyArrayObject *)PyArray_FROMANY(cobj, NPY_INT64, 1, 1,
                                                              NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST)
                           : NULL;
    PyObject *res = NULL;
    if (!ca)
        goto done;
    npy_intp n = PyArray_SIZE(ka);
    if (PyArray_SIZE(ca) != n) {
        PyErr_SetString(PyExc_ValueError, "kmer_tsv: kmers and counts differ in length");
        goto done;
    }
    size_t cap = (size_t)n * ((size_t)k + 22) + 1;
    char *buf = PyMem_RawMalloc(cap), *w = buf;
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    const uint64_t *km = PyArray_DATA(ka);
    const int64_t *cn = PyArray_DATA(ca);
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < n; i++) {
        bcl_kmer_decode(km[i], k, w);
        w += k;
        w += sprintf(w, "\t%lld\n", (long long)cn[i]);
    }
    Py_END_ALLOW_THREADS
    res = PyBytes_FromStringAndSize(buf, w - buf);
    PyMem_RawFree(buf);
done:
    Py_XDECREF(ka);
    Py_XDECREF(ca);
    return res;
}

#if defined(__has_include)
#if __has_include("hashmap_py.h")
#define BCLPY_HAVE_HASHMAP 1
#endif
#endif

#ifdef BCLPY_HAVE_HASHMAP
#include "hashmap_py.h"

typedef struct {
    uint64_t *keys;
    int64_t *vals;
    size_t n, cap;
} scan_ctx;

static int scan_one(void *vctx, const void *key_slot, const void *val_slot)
{
    scan_ctx *c = vctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4096;
        uint64_t *k = PyMem_RawRealloc(c->keys, cap * sizeof *k);
        if (k)
            c->keys = k;
        int64_t *v = k ? PyMem_RawRealloc(c->vals, cap * sizeof *v) : NULL;
        if (v)
            c->vals = v;
        if (!k || !v)
            return 1;
        c->cap = cap;
    }
    memcpy(&c->keys[c->n], key_slot, 8);
    memcpy(&c->vals[c->n], val_slot, 8);
    c->n++;
    return 0;
}

/* kmer_table_local(hashmap) -> (keys uint64, values int64): this rank's
 * entries of a HashMap(key_type=uint64, value_type=int64), as two arrays
 * (HashMap.local_items() builds one tuple per entry).  After a barrier. */
static PyObject *py_kmer_table_local(PyObject *self, PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, &bclpy_HashMapType))
        return PyErr_Format(PyExc_TypeError, "kmer_table_local: need a pybcl.HashMap");
    bclpy_HashMap *hm = (bclpy_HashMap *)obj;
    if (!bclpy_current(hm->live, hm->epoch))
        return PyErr_Format(PyExc_ValueError, "kmer_table_local: the hash map is gone");
    if (hm->m.key_var || hm->m.val_var || hm->m.key_size != 8 || hm->m.val_size != 8)
        return PyErr_Format(PyExc_TypeError,
                            "kmer_table_local: need 8-byte fixed key and value types");
    scan_ctx c = { NULL, NULL, 0, 0 };
    Py_BEGIN_ALLOW_THREADS
    bcl_hm_local_scan(&hm->m, scan_one, &c);
    Py_END_ALLOW_THREADS
    npy_intp n = (npy_intp)c.n;
    PyObject *ka = PyArray_SimpleNew(1, &n, NPY_UINT64);
    PyObject *va = ka ? PyArray_SimpleNew(1, &n, NPY_INT64) : NULL;
    if (va && c.n) {
        memcpy(PyArray_DATA((PyArrayObject *)ka), c.keys, c.n * 8);
        memcpy(PyArray_DATA((PyArrayObject *)va), c.vals, c.n * 8);
    }
    PyMem_RawFree(c.keys);
    PyMem_RawFree(c.vals);
    if (!va) {
        Py_XDECREF(ka);
        return NULL;
    }
    return Py_BuildValue("(NN)", ka, va);
}
#endif

static PyMethodDef apps_methods[] = {
    {"kmers_from_bytes", (PyCFunction)(void (*)(void))py_kmers_from_bytes,
     METH_VARARGS | METH_KEYWORDS, BCLPY_DOC_KMERS_FROM_BYTES},
    {"kmer_encode", py_kmer_encode, METH_O, BCLPY_DOC_KMER_ENCODE},
    {"kmer_decode", py_kmer_decode, METH_VARARGS, BCLPY_DOC_KMER_DECODE},
    {"hll_estimate", py_hll_estimate, METH_O, BCLPY_DOC_HLL_ESTIMATE},
    {"isx_bucketize", py_isx_bucketize, METH_VARARGS, BCLPY_DOC_ISX_BUCKETIZE},
    {"isx_count", py_isx_count, METH_VARARGS, BCLPY_DOC_ISX_COUNT},
    {"hll_add", py_hll_add, METH_VARARGS, BCLPY_DOC_HLL_ADD},
    {"kmer_tsv", py_kmer_tsv, METH_VARARGS, BCLPY_DOC_KMER_TSV},
#ifdef BCLPY_HAVE_HASHMAP
    {"kmer_table_local", py_kmer_table_local, METH_O, BCLPY_DOC_KMER_TABLE_LOCAL},
#endif
    {"kmer_partition", py_kmer_partition, METH_VARARGS, BCLPY_DOC_KMER_PARTITION},
    {"seq_resync", py_seq_resync, METH_VARARGS, BCLPY_DOC_SEQ_RESYNC},
    {"bgzf_blocks", py_bgzf_blocks, METH_O, BCLPY_DOC_BGZF_BLOCKS},
    {"pcg32_outputs", py_pcg32_outputs, METH_VARARGS, BCLPY_DOC_PCG32_OUTPUTS},
    {"isx_keys", (PyCFunction)(void (*)(void))py_isx_keys, METH_VARARGS | METH_KEYWORDS, BCLPY_DOC_ISX_KEYS},
    {"simulate_reads", (PyCFunction)(void (*)(void))py_simulate_reads,
     METH_VARARGS | METH_KEYWORDS, BCLPY_DOC_SIMULATE_READS},
    {NULL, NULL, 0, NULL}
};

int bclpy_register_apps(PyObject *m)
{
    if (PyType_Ready(&KmerReaderType) < 0 || PyType_Ready(&IsxKeyGenType) < 0 ||
        PyType_Ready(&KmerTableType) < 0)
        return -1;
    if (PyModule_AddObjectRef(m, "KmerReader", (PyObject *)&KmerReaderType) < 0 ||
        PyModule_AddObjectRef(m, "KmerTable", (PyObject *)&KmerTableType) < 0 ||
        PyModule_AddObjectRef(m, "IsxKeyGen", (PyObject *)&IsxKeyGenType) < 0 ||
        PyModule_AddIntConstant(m, "HLL_REGISTERS", BCL_HLL_REGS) < 0)
        return -1;
    return PyModule_AddFunctions(m, apps_methods);
}
