/*
 * queue_py.c -- pybcl.FastQueue and pybcl.CircularQueue.
 *
 * Converts Python objects to slot bytes (elemtype.h) and calls the core
 * (csrc/containers/bcl_queue.h); the protocols live there.  Both types share one
 * object layout and one method table; the type decides the queue kind.
 */
#include "bclpy.h"

#include <string.h>

#include "elemtype.h"
#include "containers/bcl_queue.h"
#include "binding/generated/queue.h"
#include "binding/generated/io.h"
#include "io_py.h"

typedef struct {
    PyObject_HEAD
    bcl_queue q;
    bclpy_elemtype et;
    bclpy_life life;       /* usable? (bclpy.h) */
    bcl_mp_writer w;       /* scratch for serializing one element          */
} QueueObject;

/* ---- argument conversion ----------------------------------------------- */

/* None -> 0; a ConProm.CircularQueue flag -> its bits. */
static int queue_promise_arg(QueueObject *self, PyObject *p, const char *argname,
                             unsigned *out)
{
    if (bclpy_promise((PyObject *)self, p, "CircularQueue", out) < 0)
        return -1;
    *out &= BCL_QP_PUSH | BCL_QP_POP | BCL_QP_LOCAL;
    return 0;
}

/* "FastQueue" or "CircularQueue" + `call`: the name of a collective call in
 * its agreement, the same words the core's agreement uses (bcl_queue.c). */
static const char *call_name(QueueObject *self, const char *call, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", bclpy_type_name((PyObject *)self), call);
    return buf;
}

/* The core's queue calls agree inside (bcl_queue.c): once the binding calls
 * one, this rank has joined, whatever the call returns; a rank that raises
 * before it joins as failed (bclpy_collective_end). */
static bcl_status joined(bcl_status st)
{
    bclpy_collective_joined();
    bcl_life_reap();                 /* what the agreement found dropped everywhere */
    return st;
}

/* ---- construction ------------------------------------------------------ */

static int queue_setup(QueueObject *self, bcl_queue_kind kind, long long host, long long cap,
                       PyObject *dtype)
{
    if (bclpy_init_once((PyObject *)self, &self->life) < 0)
        return -1;
    if (bclpy_elemtype_init(&self->et, dtype, "int64", "dtype") < 0)
        return -1;
    size_t slot = bclpy_elemtype_is_var(&self->et) ? BCL_QUEUE_VALUES : self->et.slot_size;
    bcl_status st = joined(bcl_queue_create(&self->q, kind, (int)host, cap, slot,
                                            bclpy_elemtype_digest(&self->et)));
    if (st != BCL_OK)
        bclpy_elemtype_clear(&self->et);
    return bclpy_life_started(st, &self->life);
}

static int fastqueue_init_impl(QueueObject *self, long long host, long long capacity,
                               PyObject *dtype)
{
    return queue_setup(self, BCL_QUEUE_FAST, host, capacity, dtype);
}

static int circularqueue_init_impl(QueueObject *self, long long host, long long capacity,
                                   PyObject *dtype)
{
    return queue_setup(self, BCL_QUEUE_CIRCULAR, host, capacity, dtype);
}

/* The ring and the values in it stay until every rank has dropped the
 * queue: a host dropping its handle must not take the others' elements
 * away.  bcl_queue_destroy frees both (nothing once the runtime is down). */
BCLPY_FREE_BURIED(queue_free_buried, bcl_queue_destroy)

static void queue_dealloc(QueueObject *self)
{
    bclpy_life_bury(&self->life, &self->q, sizeof self->q, queue_free_buried);
    bclpy_elemtype_clear(&self->et);
    bcl_mp_writer_free(&self->w);
    bclpy_dealloc_end((PyObject *)self);
}

BCLPY_CLOSE_METHOD(q_close, QueueObject, bcl_queue_destroy, q)

/* ---- push / pop -------------------------------------------------------- */

/* The elements' bytes back to back in self->w, element i lens[i] long. */
static PyObject *push_bytes(QueueObject *self, const size_t *lens, size_t n, unsigned promise)
{
    int pushed;
    CHECK(bcl_queue_push_elems(&self->q, self->w.buf, lens, n, promise, &pushed));
    return PyBool_FromLong(pushed);
}

static PyObject *q_push_impl(QueueObject *self, PyObject *value, unsigned promise)
{
    bcl_mp_writer_reset(&self->w);
    if (bclpy_elem_serialize(&self->et, value, &self->w, "value") < 0)
        return NULL;
    size_t len = self->w.len;
    return push_bytes(self, &len, 1, promise);
}

/* Fixed dtypes: any array-like converted to a contiguous 1-D array of the
 * dtype (no copy when it already is one), pushed as one block. */
static PyObject *push_many_fixed(QueueObject *self, PyObject *values, unsigned promise)
{
    PyArrayObject *a = bclpy_to_array(values, self->et.dtype, 0, 0, "values");
    if (!a)
        return NULL;
    PyObject *r = NULL;
    int pushed;
    bcl_status st;
    if (PyArray_NDIM(a) == 0)
        PyErr_Format(PyExc_TypeError, "values must be a sequence or array, not a single "
                     "%.100s", Py_TYPE(values)->tp_name);
    else if (PyArray_NDIM(a) != 1)
        PyErr_Format(PyExc_ValueError, "values must be one-dimensional, got %d "
                     "dimension(s)", PyArray_NDIM(a));
    else if ((st = bcl_queue_push(&self->q, PyArray_DATA(a), (size_t)PyArray_SIZE(a), promise,
                                  &pushed)) != BCL_OK)
        bclpy_raise(st);
    else
        r = PyBool_FromLong(pushed);
    Py_DECREF(a);
    return r;
}

/* Var kinds: the values serialized back to back, pushed as one block (all
 * or nothing: the queue stores them, and frees them again on failure). */
static PyObject *push_many_var(QueueObject *self, PyObject *values, unsigned promise)
{
    if (PyUnicode_Check(values) || PyBytes_Check(values) || PyDict_Check(values))
        return PyErr_Format(PyExc_TypeError, "values must be a sequence of elements, "
                            "not a single %.100s", Py_TYPE(values)->tp_name);
    PyObject *seq = PySequence_Fast(values, "values must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    size_t *lens = PyMem_Malloc(n ? (size_t)n * sizeof *lens : 1);
    PyObject *r = NULL;
    if (!lens) {
        PyErr_NoMemory();
        goto out;
    }
    bcl_mp_writer_reset(&self->w);
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t before = self->w.len;
        if (bclpy_elem_serialize(&self->et, PySequence_Fast_GET_ITEM(seq, i), &self->w,
                                 "values") < 0)
            goto out;
        lens[i] = self->w.len - before;
    }
    r = push_bytes(self, lens, (size_t)n, promise);
out:
    PyMem_Free(lens);
    Py_DECREF(seq);
    return r;
}

static PyObject *q_push_many_impl(QueueObject *self, PyObject *values, unsigned promise)
{
    return self->et.kind == BCLPY_FIXED ? push_many_fixed(self, values, promise)
                                        : push_many_var(self, values, promise);
}

/* Pop one element (`local`: the host-only nonatomic pop).  Decoding may run
 * Python code that uses this queue again, so the bytes go to a writer of
 * their own rather than self->w. */
static PyObject *pop_one(QueueObject *self, unsigned promise, int local)
{
    bcl_mp_writer w;
    bcl_mp_writer_init(&w);
    size_t len, got = 0;
    bcl_status st = bcl_queue_pop_elems(&self->q, 1, promise, local, &w, &len, &got);
    PyObject *r = st != BCL_OK ? bclpy_raise(st)
                  : got == 0   ? PyErr_Format(bclpy_exc(BCLPY_E_EMPTY), "pop from an empty queue")
                               : bclpy_elem_decode(&self->et, w.buf, len);
    bcl_mp_writer_free(&w);
    return r;
}

static PyObject *q_pop_impl(QueueObject *self, unsigned promise)
{
    return pop_one(self, promise, 0);
}

static PyObject *q_local_nonatomic_pop_impl(QueueObject *self)
{
    return pop_one(self, 0, 1);
}

static PyObject *pop_many_fixed(QueueObject *self, size_t n, unsigned promise)
{
    npy_intp dim = (npy_intp)n;
    Py_INCREF(self->et.dtype);
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNewFromDescr(1, &dim, self->et.dtype);
    if (!a)
        return NULL;
    size_t got = 0;
    bcl_status st = bcl_queue_pop(&self->q, PyArray_DATA(a), n, promise, &got);
    if (st != BCL_OK) {
        Py_DECREF(a);
        return bclpy_raise(st);
    }
    return got < n ? bclpy_shrink((PyObject *)a, (npy_intp)got) : (PyObject *)a;
}

static PyObject *pop_many_var(QueueObject *self, size_t n, unsigned promise)
{
    size_t *lens = PyMem_Malloc(n ? n * sizeof *lens : 1);
    if (!lens)
        return PyErr_NoMemory();
    bcl_mp_writer w;
    bcl_mp_writer_init(&w);
    size_t got = 0;
    bcl_status st = bcl_queue_pop_elems(&self->q, n, promise, 0, &w, lens, &got);
    PyObject *list = st == BCL_OK ? PyList_New((Py_ssize_t)got) : bclpy_raise(st);
    const unsigned char *bytes = w.buf;
    for (size_t i = 0; list && i < got; bytes += lens[i++]) {
        PyObject *v = bclpy_elem_decode(&self->et, bytes, lens[i]);
        if (!v)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    bcl_mp_writer_free(&w);
    PyMem_Free(lens);
    return list;
}

static PyObject *q_pop_many_impl(QueueObject *self, PyObject *n_o, unsigned promise)
{
    if (!PyIndex_Check(n_o) || PyBool_Check(n_o))
        return PyErr_Format(PyExc_TypeError, "n must be an int, not %.100s",
                            Py_TYPE(n_o)->tp_name);
    /* "at most n": a huge n is clipped (NULL: no OverflowError), and the
     * count below is capped by the capacity anyway. */
    Py_ssize_t n = PyNumber_AsSsize_t(n_o, NULL);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "n must be >= 0, got %R", n_o);
    size_t k = (uint64_t)n > self->q.capacity ? (size_t)self->q.capacity : (size_t)n;
    return self->et.kind == BCLPY_FIXED ? pop_many_fixed(self, k, promise)
                                        : pop_many_var(self, k, promise);
}

/* ---- host-only view, size, collectives --------------------------------- */

static PyObject *q_local_impl(QueueObject *self)
{
    if (self->et.kind != BCLPY_FIXED)
        return PyErr_Format(PyExc_TypeError, "local() needs a fixed-size dtype; this "
                            "queue holds variable-length elements");
    void *addr;
    uint64_t count;
    CHECK(bcl_queue_local_view(&self->q, &addr, &count));
    return bclpy_segment_view(addr, (npy_intp)count, self->et.dtype, (PyObject *)self);
}

static PyObject *q_size_impl(QueueObject *self)
{
    uint64_t s;
    CHECK(bcl_queue_size(&self->q, &s));
    return PyLong_FromUnsignedLongLong(s);
}

/* len(q) is q.size(): the elements in the queue now. */
static Py_ssize_t q_len(QueueObject *self)
{
    if (BCLPY_USABLE(self) < 0)
        return -1;
    uint64_t s;
    bcl_status st = bcl_queue_size(&self->q, &s);
    if (st != BCL_OK) {
        bclpy_raise(st);
        return -1;
    }
    return (Py_ssize_t)s;
}

/* resize() and migrate(): a collective change to one argument, a positive
 * int or (is_rank) a rank; a rank whose argument does not convert joins the
 * core's agreement as failed. */
static PyObject *collective_change(QueueObject *self, PyObject *arg, const char *argname,
                                   int is_rank, const char *call,
                                   bcl_status (*change)(bcl_queue *, long long))
{
    if (BCLPY_USABLE(self) < 0)
        return NULL;
    char what[48];
    long long v;
    bclpy_collective_begin();
    int rc = is_rank ? bclpy_rank_arg(arg, argname, &v)
                     : bclpy_int_arg(arg, argname, 1, LLONG_MAX, &v);
    if (rc == 0) {
        bcl_status st;
        BCLPY_NOGIL(st = change(&self->q, v));
        if (joined(st) != BCL_OK)
            rc = (bclpy_raise(st), -1);
    }
    bclpy_collective_end(rc, call_name(self, call, what, sizeof what));
    return rc < 0 ? NULL : Py_NewRef(Py_None);
}

static bcl_status resize_to(bcl_queue *q, long long cap)
{
    return bcl_queue_resize(q, cap);
}

static bcl_status migrate_to(bcl_queue *q, long long host)
{
    return bcl_queue_migrate(q, (int)host);
}

static PyObject *q_resize_impl(QueueObject *self, PyObject *new_capacity)
{
    return collective_change(self, new_capacity, "new_capacity", 0, ".resize()", resize_to);
}

static PyObject *q_migrate_impl(QueueObject *self, PyObject *new_host)
{
    return collective_change(self, new_host, "new_host", 1, ".migrate()", migrate_to);
}

static PyObject *q_repr(QueueObject *self)
{
    if (!self->life.live)
        return PyUnicode_FromFormat("<%s (not created)>", Py_TYPE(self)->tp_name);
    PyObject *dt = bclpy_elemtype_repr(&self->et);
    if (!dt)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("%s(host=%d, capacity=%llu, dtype=%U)",
                                       Py_TYPE(self)->tp_name, self->q.host,
                                       (unsigned long long)self->q.capacity, dt);
    Py_DECREF(dt);
    return r;
}

int bclpy_queue_io_target(PyObject *self, bcl_sv_target *t)
{
    QueueObject *q = (QueueObject *)self;
    if (BCLPY_USABLE(q) < 0)
        return -1;
    t->kind = q->q.kind == BCL_QUEUE_CIRCULAR ? BCL_SV_CIRCULARQUEUE : BCL_SV_FASTQUEUE;
    t->q = &q->q;
    return 0;
}

BCLPY_SAVE_METHOD(q_save, QueueObject, bclpy_queue_io_target)

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/queue_methods_clinic.h"
