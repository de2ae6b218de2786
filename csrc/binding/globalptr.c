/*
 * globalptr.c -- pybcl.GlobalPtr: (rank, byte offset, dtype).
 *
 * Arithmetic is element-wise, as in C and BCL; ptr[i] / ptr[i:j] are remote
 * get/put through the core; local() is a zero-copy NumPy view.  Pointers
 * pickle as (rank, offset, dtype), so they broadcast and can be stored.
 */
#include "bclpy.h"

#include <limits.h>

#include "runtime/bcl_alloc.h"
#include "binding/generated/globalptr.h"

static PyObject *gptr_alloc_obj(PyTypeObject *type, bcl_gptr p, PyArray_Descr *dtype)
{
    bclpy_GlobalPtr *self = (bclpy_GlobalPtr *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->ptr = p;
    Py_INCREF(dtype);
    self->dtype = dtype;
    self->epoch = bcl_rt.initialized ? bcl_rt.epoch : 0;
    return (PyObject *)self;
}

int bclpy_gptr_check(const bclpy_GlobalPtr *p, uint64_t off, size_t nbytes)
{
    if (p->epoch && p->epoch != bcl_rt.epoch) {
        PyErr_Format(bclpy_exc(BCLPY_E_ERROR), "%R was made before pybcl.finalize(): the "
                     "segment it pointed into is gone (pointers do not survive a finalize)",
                     (PyObject *)p);
        return -1;
    }
    if (p->blk_len && (off < p->blk_off || nbytes > p->blk_len ||
                       off - p->blk_off > p->blk_len - nbytes)) {
        PyErr_Format(PyExc_IndexError, "%zu bytes at offset %llu are outside the "
                     "alloc() block of %R (bytes [%llu, %llu) of rank %d)", nbytes,
                     (unsigned long long)off, (PyObject *)p,
                     (unsigned long long)p->blk_off,
                     (unsigned long long)(p->blk_off + p->blk_len), (int)p->ptr.rank);
        return -1;
    }
    return 0;
}

/* A pointer derived from `from` (arithmetic): same epoch, same block. */
static PyObject *gptr_derived(const bclpy_GlobalPtr *from, uint64_t off)
{
    bclpy_GlobalPtr *r = (bclpy_GlobalPtr *)gptr_alloc_obj(
        Py_TYPE(from), bcl_gptr_make(from->ptr.rank, off), from->dtype);
    if (r) {
        r->epoch = from->epoch;
        r->blk_off = from->blk_off;
        r->blk_len = from->blk_len;
    }
    return (PyObject *)r;
}

PyObject *bclpy_gptr_new(bclpy_state *st, bcl_gptr p, PyArray_Descr *dtype)
{
    return gptr_alloc_obj(st->types[BCLPY_T_GLOBALPTR], p, dtype);
}

static PyObject *gptr_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static const char *const names[] = BCLPY_ARGS_GLOBALPTR;
    long long rank, offset;
    PyObject *a[3];
    if (bclpy_parse_init("GlobalPtr", args, kwds, names, 2, 3, a) < 0 ||
        bclpy_int_arg(a[0], "GlobalPtr: rank", 0, INT32_MAX, &rank) < 0 ||
        bclpy_int_arg(a[1], "GlobalPtr: offset", 0, LLONG_MAX, &offset) < 0)
        return NULL;
    PyObject *dtype_obj = a[2];
    PyArray_Descr *dtype = dtype_obj ? bclpy_dtype(dtype_obj, "dtype")
                                     : PyArray_DescrFromType(NPY_INT64);
    if (!dtype)
        return NULL;
    PyObject *r = gptr_alloc_obj(type, bcl_gptr_make((int)rank, (uint64_t)offset), dtype);
    Py_DECREF(dtype);
    return r;
}

static void gptr_dealloc(bclpy_GlobalPtr *self)
{
    Py_XDECREF(self->dtype);
    bclpy_dealloc_end((PyObject *)self);
}

static PyObject *gptr_repr(bclpy_GlobalPtr *self)
{
    PyObject *dt = bclpy_spec_repr((PyObject *)self->dtype);
    if (!dt)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("pybcl.GlobalPtr(rank=%d, offset=%llu, dtype=%U)",
                                       (int)self->ptr.rank,
                                       (unsigned long long)self->ptr.offset, dt);
    Py_DECREF(dt);
    return r;
}

static Py_hash_t gptr_hash(bclpy_GlobalPtr *self)
{
    Py_hash_t h = (Py_hash_t)(self->ptr.offset * 0x9E3779B97F4A7C15ull ^
                              (uint64_t)self->ptr.rank * 0xC2B2AE3D27D4EB4Full);
    return h == -1 ? -2 : h;
}

/* Offset moved by `n` elements; -1 with an exception if it leaves [0, 2^63). */
static int moved_offset(bclpy_GlobalPtr *p, long long n, uint64_t *out)
{
    long long bytes;
    if (__builtin_mul_overflow(n, (long long)PyDataType_ELSIZE(p->dtype), &bytes))
        goto overflow;
    long long off;
    if (__builtin_add_overflow((long long)p->ptr.offset, bytes, &off) || off < 0)
        goto overflow;
    *out = (uint64_t)off;
    return 0;
overflow:
    PyErr_Format(PyExc_OverflowError, "pointer arithmetic: %R + %lld elements leaves "
                 "the address space", (PyObject *)p, n);
    return -1;
}

int bclpy_gptr_elems(const bclpy_GlobalPtr *p, uint64_t off, long long count, size_t *nbytes)
{
    /* IndexError naming the count when its bytes overflow size_t (the range
     * check would see a wrapped, small size and pass) */
    if (count < 0 || __builtin_mul_overflow((size_t)count,
                                            (size_t)PyDataType_ELSIZE(p->dtype), nbytes)) {
        PyErr_Format(PyExc_IndexError, "count %lld elements of %d bytes from %R is past "
                     "the end of any segment", count, (int)PyDataType_ELSIZE(p->dtype),
                     (PyObject *)p);
        return -1;
    }
    return bclpy_gptr_check(p, off, *nbytes);
}

PyObject *bclpy_gptr_get(bcl_gptr p, PyArray_Descr *dtype, long long count, size_t nbytes)
{
    CHECK(bcl_check_range(p, nbytes));
    npy_intp dims[1] = { (npy_intp)count };
    Py_INCREF(dtype);
    PyObject *arr = PyArray_SimpleNewFromDescr(1, dims, dtype);
    if (!arr)
        return NULL;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_get(PyArray_DATA((PyArrayObject *)arr), p, nbytes));
    if (st != BCL_OK) {
        Py_DECREF(arr);
        return bclpy_raise(st);
    }
    return arr;
}

static PyObject *gptr_offset_by(bclpy_GlobalPtr *p, PyObject *n_obj, int sign)
{
    long long n = PyLong_AsLongLong(n_obj);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    uint64_t off;
    if (moved_offset(p, sign * n, &off) < 0)
        return NULL;
    return gptr_derived(p, off);
}

/* o is a GlobalPtr: in the binary slots, where either operand may be one,
 * the type is known by its deallocator (no subclasses: not a base type),
 * with no look-up of the module state on arithmetic's hot path. */
#define IS_GPTR(o) (Py_TYPE(o)->tp_dealloc == (destructor)gptr_dealloc)

static PyObject *gptr_add(PyObject *a, PyObject *b)
{
    if (IS_GPTR(a) && PyIndex_Check(b))
        return gptr_offset_by((bclpy_GlobalPtr *)a, b, 1);
    if (IS_GPTR(b) && PyIndex_Check(a))
        return gptr_offset_by((bclpy_GlobalPtr *)b, a, 1);
    Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *gptr_sub(PyObject *a, PyObject *b)
{
    if (!IS_GPTR(a))
        Py_RETURN_NOTIMPLEMENTED;
    bclpy_GlobalPtr *p = (bclpy_GlobalPtr *)a;
    if (PyIndex_Check(b))
        return gptr_offset_by(p, b, -1);
    if (!IS_GPTR(b))
        Py_RETURN_NOTIMPLEMENTED;
    bclpy_GlobalPtr *q = (bclpy_GlobalPtr *)b;
    if (p->ptr.rank != q->ptr.rank)
        return PyErr_Format(PyExc_ValueError, "cannot subtract pointers into different "
                            "ranks' segments (%d and %d)", (int)p->ptr.rank,
                            (int)q->ptr.rank);
    long long diff = (long long)p->ptr.offset - (long long)q->ptr.offset;
    if (diff % PyDataType_ELSIZE(p->dtype))
        return PyErr_Format(PyExc_ValueError, "pointer difference of %lld bytes is not "
                            "a whole number of %d-byte elements", diff,
                            (int)PyDataType_ELSIZE(p->dtype));
    return PyLong_FromLongLong(diff / PyDataType_ELSIZE(p->dtype));
}

static int gptr_bool(bclpy_GlobalPtr *self) { return !bcl_gptr_is_null(self->ptr); }

static PyObject *gptr_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!IS_GPTR(a) || !IS_GPTR(b))
        Py_RETURN_NOTIMPLEMENTED;
    bcl_gptr x = ((bclpy_GlobalPtr *)a)->ptr, y = ((bclpy_GlobalPtr *)b)->ptr;
    /* Order by (rank, offset); null pointers are equal whatever the rank. */
    long long c;
    if (bcl_gptr_is_null(x) && bcl_gptr_is_null(y))
        c = 0;
    else if (x.rank != y.rank)
        c = x.rank < y.rank ? -1 : 1;
    else
        c = x.offset == y.offset ? 0 : (x.offset < y.offset ? -1 : 1);
    Py_RETURN_RICHCOMPARE(c, 0, op);
}

/* ---- ptr[i], ptr[i:j] -------------------------------------------------- */

/* Parse ptr[i:j] bounds (start defaults to 0, stop is required, step 1). */
static int slice_bounds(PyObject *key, long long *start, long long *count)
{
    PySliceObject *s = (PySliceObject *)key;
    if (s->step != Py_None && PyLong_AsLong(s->step) != 1) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "pointer slices take no step");
        return -1;
    }
    if (s->stop == Py_None) {
        PyErr_SetString(PyExc_ValueError, "pointer slices need a stop: a pointer has "
                        "no length");
        return -1;
    }
    long long a = 0, b;
    if ((s->start != Py_None &&
         bclpy_int_arg(s->start, "slice start", LLONG_MIN, LLONG_MAX, &a) < 0) ||
        bclpy_int_arg(s->stop, "slice stop", LLONG_MIN, LLONG_MAX, &b) < 0)
        return -1;
    if (b < a) {
        PyErr_Format(PyExc_ValueError, "slice [%lld:%lld] is reversed", a, b);
        return -1;
    }
    *start = a;
    *count = b - a;
    return 0;
}

/* ptr[key]'s elements: the pointer to the first, their count and bytes,
 * checked (pointer arithmetic, epoch, alloc() block); the runtime is up. */
static int item_target(bclpy_GlobalPtr *self, PyObject *key, bcl_gptr *p, long long *count,
                       size_t *nbytes)
{
    long long index;
    uint64_t off;
    *count = 1;
    if (bclpy_ensure_init() < 0 ||
        (PySlice_Check(key) ? slice_bounds(key, &index, count)
                            : bclpy_int_arg(key, "index", LLONG_MIN, LLONG_MAX, &index)) < 0 ||
        moved_offset(self, index, &off) < 0 || bclpy_gptr_elems(self, off, *count, nbytes) < 0)
        return -1;
    *p = bcl_gptr_make(self->ptr.rank, off);
    return 0;
}

/* One element small enough for the stack takes one get/put, no array. */
#define SMALL_ELEM 256

static PyObject *gptr_getitem(bclpy_GlobalPtr *self, PyObject *key)
{
    bcl_gptr p;
    long long count;
    size_t nbytes;
    if (item_target(self, key, &p, &count, &nbytes) < 0)
        return NULL;
    if (!PySlice_Check(key) && nbytes <= SMALL_ELEM) {
        unsigned char buf[SMALL_ELEM];
        bcl_status st = bcl_get(buf, p, nbytes);
        return st == BCL_OK ? bclpy_from_bytes(buf, self->dtype) : bclpy_raise(st);
    }
    PyObject *arr = bclpy_gptr_get(p, self->dtype, count, nbytes);
    if (!arr || PySlice_Check(key))
        return arr;
    PyObject *scalar = bclpy_from_bytes(PyArray_DATA((PyArrayObject *)arr), self->dtype);
    Py_DECREF(arr);
    return scalar;
}

static int gptr_setitem(bclpy_GlobalPtr *self, PyObject *key, PyObject *value)
{
    bcl_gptr p;
    long long count;
    size_t nbytes;
    bcl_status st;
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "cannot delete through a GlobalPtr");
        return -1;
    }
    if (item_target(self, key, &p, &count, &nbytes) < 0)
        return -1;
    if (!PySlice_Check(key) && nbytes <= SMALL_ELEM) {
        unsigned char buf[SMALL_ELEM];
        if (bclpy_to_bytes(value, self->dtype, buf, "value") < 0)
            return -1;
        st = bcl_put(p, buf, nbytes);
        return st == BCL_OK ? 0 : (bclpy_raise(st), -1);
    }
    PyArrayObject *arr = bclpy_to_array(value, self->dtype, 0, 1, "value");
    if (!arr)
        return -1;
    if (PyArray_SIZE(arr) != count) {
        PyErr_Format(PyExc_ValueError, "value has %zd elements, the target range %lld",
                     (Py_ssize_t)PyArray_SIZE(arr), count);
        Py_DECREF(arr);
        return -1;
    }
    BCLPY_NOGIL(st = bcl_put(p, PyArray_DATA(arr), nbytes));
    Py_DECREF(arr);
    return st == BCL_OK ? 0 : (bclpy_raise(st), -1);
}

/* ---- methods ------------------------------------------------------------ */

static PyObject *gptr_local_impl(bclpy_GlobalPtr *self, PyObject *count_obj)
{
    if (self->ptr.rank != bcl_rt.rank)
        return PyErr_Format(PyExc_ValueError, "ptr.local(): %R is owned by rank %d, not "
                            "by this rank (%d)", (PyObject *)self, (int)self->ptr.rank,
                            bcl_rt.rank);
    long long count;
    if (!count_obj || count_obj == Py_None) {
        /* A pointer to the start of a block views the whole block. */
        count = bcl_alloc_is_block(self->ptr.offset)
                    ? (long long)(bcl_alloc_block_size(self->ptr.offset) /
                                  (size_t)PyDataType_ELSIZE(self->dtype))
                    : 1;
    } else {
        if (bclpy_int_arg(count_obj, "count", 0, LLONG_MAX, &count) < 0)
            return NULL;
    }
    size_t nbytes;
    if (bclpy_gptr_elems(self, self->ptr.offset, count, &nbytes) < 0)
        return NULL;
    bcl_status st = bcl_check_range(self->ptr, nbytes);
    if (st != BCL_OK)
        return bclpy_raise(st);
    return bclpy_segment_view(bcl_local_addr(self->ptr), (npy_intp)count, self->dtype,
                              (PyObject *)self);
}

/* Pickles as GlobalPtr(rank, offset, dtype), plus its alloc() block when
 * known, so a broadcast pointer keeps its bounds. */
static PyObject *gptr_reduce(bclpy_GlobalPtr *self, PyObject *noargs)
{
    if (!self->blk_len)
        return Py_BuildValue("O(iKO)", (PyObject *)Py_TYPE(self), (int)self->ptr.rank,
                             (unsigned long long)self->ptr.offset, (PyObject *)self->dtype);
    return Py_BuildValue("O(iKO)(KK)", (PyObject *)Py_TYPE(self), (int)self->ptr.rank,
                         (unsigned long long)self->ptr.offset, (PyObject *)self->dtype,
                         (unsigned long long)self->blk_off,
                         (unsigned long long)self->blk_len);
}

static PyObject *gptr_setstate_impl(bclpy_GlobalPtr *self, PyObject *state)
{
    long long off, len;
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 2)
        return PyErr_Format(PyExc_TypeError, "__setstate__: state must be a tuple "
                            "(offset, length), not %R", state);
    if (bclpy_int_arg(PyTuple_GET_ITEM(state, 0), "__setstate__: offset", 0, LLONG_MAX,
                      &off) < 0 ||
        bclpy_int_arg(PyTuple_GET_ITEM(state, 1), "__setstate__: length", 0, LLONG_MAX,
                      &len) < 0)
        return NULL;
    if (len && ((uint64_t)off > self->ptr.offset || self->ptr.offset - (uint64_t)off > (uint64_t)len))
        return PyErr_Format(PyExc_ValueError, "__setstate__: block [%lld, +%lld) does not "
                            "hold %R", off, len, (PyObject *)self);
    self->blk_off = off;
    self->blk_len = len;
    Py_RETURN_NONE;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/gptr_methods_clinic.h"
