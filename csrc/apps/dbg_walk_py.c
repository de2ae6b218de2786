/*
 * dbg_walk_py.c -- pybcl.apps._kernels.DbgWalk: the unitig walks of one rank
 * (csrc/kernels/bcl_dbg_walk.c), advanced a round at a time:
 *
 *   w = DbgWalk(k, starts, values, limit)
 *   while len(q := w.queries()):
 *       w.advance(*graph.find_many(q, promise=find))
 *   seqs, kmers, count_sums = w.results()      # the copies to keep
 *
 * or, when this process reads the whole map itself (shm), every round in
 * C: w.run(graph).
 */
#include "apps/kernels_py.h"

#include "apps/generated/dbg.h"

#include "kernels/bcl_dbg.h"

typedef struct {
    PyObject_HEAD
    bcl_dbg_walk w;
    int live;
} DbgWalk;

static int walk_init(DbgWalk *self, PyObject *args, PyObject *kw)
{
    static const char *const names[] = BCLPY_ARGS_DBGWALK;
    long long k, limit;
    PyObject *a[4];
    if (bclpy_parse_init("DbgWalk", args, kw, names, 4, 4, a) < 0 ||
        bclpy_int_arg(a[0], "DbgWalk: k", INT_MIN, INT_MAX, &k) < 0 ||
        bclpy_int_arg(a[3], "DbgWalk: limit", 0, LLONG_MAX, &limit) < 0)
        return -1;
    PyObject *so = a[1], *vo = a[2];
    if (!bcl_dbg_k_ok((int)k))
        return PyErr_Format(PyExc_ValueError, "DbgWalk: k must be odd and in [3, 31], got %lld",
                            k), -1;
    PyArrayObject *s = bclpy_1d_of(so, NPY_UINT64, "starts");
    PyArrayObject *v = s ? bclpy_1d_of(vo, NPY_UINT64, "values") : NULL;
    int rc = -1;
    if (v && PyArray_SIZE(v) != PyArray_SIZE(s))
        PyErr_SetString(PyExc_ValueError, "DbgWalk: values must be as long as starts");
    else if (v) {
        if (self->live)
            bcl_dbg_walk_free(&self->w);
        self->live = 0;
        bcl_status st = bcl_dbg_walk_init(&self->w, (int)k, PyArray_DATA(s), PyArray_DATA(v),
                                          (size_t)PyArray_SIZE(s), (uint64_t)limit);
        if (st != BCL_OK)
            bclpy_raise(st);
        else
            rc = 0, self->live = 1;
    }
    Py_XDECREF(s);
    Py_XDECREF(v);
    return rc;
}

static void walk_dealloc(DbgWalk *self)
{
    if (self->live)
        bcl_dbg_walk_free(&self->w);
    bclpy_dealloc_end((PyObject *)self);
}

static int live_or_raise(DbgWalk *self)
{
    if (self->live)
        return 0;
    PyErr_SetString(PyExc_ValueError, "DbgWalk is not initialised");
    return -1;
}

static PyObject *walk_queries(DbgWalk *self, PyObject *unused)
{
    if (live_or_raise(self) < 0)
        return NULL;
    npy_intp n = (npy_intp)self->w.n_active;
    PyArrayObject *q = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_UINT64);
    if (!q)
        return NULL;
    npy_intp m = (npy_intp)bcl_dbg_walk_queries(&self->w, PyArray_DATA(q));
    PyArray_Dims dims = { &m, 1 };
    PyObject *r = PyArray_Resize(q, &dims, 0, NPY_CORDER);
    if (!r) {
        Py_DECREF(q);
        return NULL;
    }
    Py_DECREF(r);
    return (PyObject *)q;
}

static PyObject *walk_advance(DbgWalk *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DW_ADVANCE;
    PyObject *a[2];
    if (live_or_raise(self) < 0 ||
        bclpy_parse("advance", args, nargs, kwnames, names, 2, 2, a) < 0)
        return NULL;
    PyArrayObject *v = bclpy_1d_of(a[0], NPY_UINT64, "values");
    PyArrayObject *f = v ? bclpy_1d_of(a[1], NPY_BOOL, "found") : NULL;
    PyObject *res = NULL;
    if (f && PyArray_SIZE(f) != PyArray_SIZE(v))
        PyErr_SetString(PyExc_ValueError, "advance: found must be as long as values");
    else if (f) {
        bcl_status st = bcl_dbg_walk_advance(&self->w, PyArray_DATA(v), PyArray_DATA(f),
                                             (size_t)PyArray_SIZE(v));
        res = st == BCL_OK ? Py_NewRef(Py_None) : bclpy_raise(st);
    }
    Py_XDECREF(v);
    Py_XDECREF(f);
    return res;
}

/* The lookups of run(): the map's find under the find-only promise.  Its
 * failure is recorded: its message lives in _core's error state, the walk's
 * own in this extension's. */
typedef struct {
    const bcl_hashmap *m;
    int core_failed;
} walk_map;

static bcl_status find_in_map(void *ctx, const uint64_t *keys, size_t n, uint64_t *vals,
                              unsigned char *found)
{
    walk_map *wm = ctx;
    bcl_status st = bclpy_core->hm_find_many(wm->m, keys, n, vals, found, BCL_HM_P_FIND);
    wm->core_failed = st != BCL_OK;
    return st;
}

static PyObject *walk_run(DbgWalk *self, BCLPY_FASTARGS)
{
    static const char *const names[] = BCLPY_ARGS_DW_RUN;
    PyObject *a[1];
    walk_map wm = { NULL, 0 };
    if (live_or_raise(self) < 0 || bclpy_parse("run", args, nargs, kwnames, names, 1, 1, a) < 0 ||
        bclpy_core->hashmap_u64_unwrap(a[0], "graph", &wm.m) < 0)
        return NULL;
    if (self->w.n_asked) {
        PyErr_SetString(PyExc_ValueError, "run: the last queries() await advance()");
        return NULL;
    }
    uint64_t rounds;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_dbg_walk_run(&self->w, find_in_map, &wm, &rounds));
    if (st != BCL_OK)
        return wm.core_failed ? bclpy_core->raise(st) : bclpy_raise(st);
    return PyLong_FromUnsignedLongLong(rounds);
}

/* (list of bytes, kmers uint64, count sums uint64) of the walks to keep */
static PyObject *walk_results(DbgWalk *self, PyObject *unused)
{
    if (live_or_raise(self) < 0)
        return NULL;
    const bcl_dbg_walk *w = &self->w;
    npy_intp m = 0;
    for (size_t i = 0; i < w->n; i++)
        m += bcl_dbg_walk_keep(w, i);
    PyObject *seqs = PyList_New(m);
    PyArrayObject *km = seqs ? (PyArrayObject *)PyArray_SimpleNew(1, &m, NPY_UINT64) : NULL;
    PyArrayObject *cs = km ? (PyArrayObject *)PyArray_SimpleNew(1, &m, NPY_UINT64) : NULL;
    if (!cs)
        goto fail;
    npy_intp j = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (!bcl_dbg_walk_keep(w, i))
            continue;
        PyObject *b = PyBytes_FromStringAndSize(w->seq[i], (Py_ssize_t)(w->k - 1 + w->kmers[i]));
        if (!b)
            goto fail;
        PyList_SET_ITEM(seqs, j, b);
        ((uint64_t *)PyArray_DATA(km))[j] = w->kmers[i];
        ((uint64_t *)PyArray_DATA(cs))[j] = w->count_sum[i];
        j++;
    }
    return Py_BuildValue("(NNN)", seqs, km, cs);
fail:
    Py_XDECREF(seqs);
    Py_XDECREF(km);
    Py_XDECREF(cs);
    return NULL;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "apps/generated/walk_methods_clinic.h"
