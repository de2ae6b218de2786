/*
 * array_py.c -- pybcl.DArray (block-distributed) and pybcl.Array (hosted on
 * one rank) over csrc/containers/bcl_array.h.  Indexing follows NumPy: negative
 * indices count from the end, slices are clipped, any step works (step 1 is
 * one pipelined access per owner, other steps one per element); a[i:j] = v
 * takes an array of the slice's length or one value to broadcast.
 */
#include "bclpy.h"

#include <string.h>

#include "binding/array_py.h"
#include "binding/generated/array.h"
#include "binding/generated/array_update.h"
#include "binding/generated/io.h"
#include "io_py.h"

static const char *tname(ArrayObject *self) { return bclpy_type_name((PyObject *)self); }


/* ---- construction -------------------------------------------------------- */

static PyArray_Descr *array_dtype(PyObject *spec, const char *tn)
{
    int var = spec == (PyObject *)&PyBytes_Type || spec == (PyObject *)&PyUnicode_Type ||
              spec == (PyObject *)&PyBaseObject_Type;
    if (!var && PyUnicode_Check(spec)) {
        const char *s = PyUnicode_AsUTF8(spec);
        if (!s)
            return NULL;
        var = !strcmp(s, "bytes") || !strcmp(s, "str") || !strcmp(s, "object") ||
              !strcmp(s, "O");
    }
    if (var) {
        PyErr_Format(PyExc_TypeError, "dtype: %s holds fixed-size NumPy dtypes only "
                     "(e.g. 'int64', 'float64', 'S16', a structured dtype), not the "
                     "variable-length %R", tn, spec);
        return NULL;
    }
    return bclpy_dtype(spec, "dtype");
}

static int array_setup(ArrayObject *self, int host, long long size, PyObject *dt_obj)
{
    if (bclpy_init_once((PyObject *)self, &self->life) < 0)
        return -1;
    PyArray_Descr *dt = dt_obj ? array_dtype(dt_obj, tname(self))
                               : PyArray_DescrFromType(NPY_INT64);
    if (!dt)
        return -1;
    Py_XSETREF(self->dtype, dt);
    if (bclpy_ensure_init() < 0)
        return -1;
    static const char *const names[] = { "host", "size", "#dtype" };
    int64_t vals[] = { host, size, bclpy_dtype_digest(dt) };
    if (bclpy_agree(host < 0 ? "DArray()" : "Array()", names, vals, 3) < 0)
        return -1;
    bcl_status st = host < 0
        ? bcl_darray_create(&self->a, (uint64_t)size, (size_t)PyDataType_ELSIZE(dt))
        : bcl_array_create(&self->a, host, (uint64_t)size, (size_t)PyDataType_ELSIZE(dt));
    return bclpy_life_started(st, &self->life);
}

static int darray_init_impl(ArrayObject *self, long long size, PyObject *dtype)
{
    return array_setup(self, -1, size, dtype);
}

static int harray_init_impl(ArrayObject *self, long long host, long long size, PyObject *dtype)
{
    return array_setup(self, (int)host, size, dtype);
}

BCLPY_FREE_BURIED(array_free_buried, bcl_array_destroy)

static void array_dealloc(ArrayObject *self)
{
    /* Peers may still read and write this rank's block: bury it. */
    bclpy_life_dealloc(&self->life, &self->a, sizeof self->a,
                       array_free_buried, self->a.offsets);
    Py_XDECREF(self->dtype);
    bclpy_dealloc_end((PyObject *)self);
}

/* ---- indices --------------------------------------------------------------- */

/* Python index (negative counts from the end) -> element number, or -1 with
 * IndexError / TypeError. */
static int get_index(ArrayObject *self, PyObject *key, uint64_t *out)
{
    if (!PyIndex_Check(key)) {
        PyErr_Format(PyExc_TypeError, "%s indices must be integers or slices, not %.100s",
                     tname(self), Py_TYPE(key)->tp_name);
        return -1;
    }
    Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return -1;
    long long n = (long long)self->a.size;
    long long j = i < 0 ? (long long)i + n : (long long)i;
    if (j < 0 || j >= n) {
        PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for %s of size %lld",
                     i, tname(self), n);
        return -1;
    }
    *out = (uint64_t)j;
    return 0;
}

static int get_slice(ArrayObject *self, PyObject *key, Py_ssize_t *start,
                     Py_ssize_t *step, Py_ssize_t *count)
{
    Py_ssize_t stop;
    if (PySlice_Unpack(key, start, &stop, step) < 0)
        return -1;
    *count = PySlice_AdjustIndices((Py_ssize_t)self->a.size, start, &stop, *step);
    return 0;
}

/* ---- a[...] ---------------------------------------------------------------- */

/* a[key]'s elements: the first, the step between them and their count (a
 * slice's, or the one element of an index). */
static int item_range(ArrayObject *self, PyObject *key, Py_ssize_t *start, Py_ssize_t *step,
                      Py_ssize_t *count)
{
    uint64_t i;
    if (PySlice_Check(key))
        return get_slice(self, key, start, step, count);
    if (get_index(self, key, &i) < 0)
        return -1;
    *start = (Py_ssize_t)i;
    *step = *count = 1;
    return 0;
}

/* One element small enough for the stack takes one access, no array. */
#define SMALL_ELEM 256

static PyObject *array_getitem(ArrayObject *self, PyObject *key)
{
    Py_ssize_t start, step, count;
    bcl_status st;
    if (BCLPY_USABLE(self) < 0 || item_range(self, key, &start, &step, &count) < 0)
        return NULL;
    if (!PySlice_Check(key) && self->a.elem_size <= SMALL_ELEM) {
        unsigned char buf[SMALL_ELEM];
        st = bcl_array_get(&self->a, (uint64_t)start, 1, buf);
        return st == BCL_OK ? bclpy_from_bytes(buf, self->dtype) : bclpy_raise(st);
    }
    Py_INCREF(self->dtype);
    PyObject *arr = PyArray_SimpleNewFromDescr(1, &count, self->dtype);
    void *data = arr ? PyArray_DATA((PyArrayObject *)arr) : NULL;
    if (!arr || count == 0)
        return arr;
    BCLPY_NOGIL(st = step == 1 ? bcl_array_get(&self->a, (uint64_t)start, (uint64_t)count, data)
                               : bcl_array_get_strided(&self->a, start, step, (uint64_t)count,
                                                       data));
    if (st != BCL_OK || !PySlice_Check(key)) {
        PyObject *r = st != BCL_OK ? bclpy_raise(st) : bclpy_from_bytes(data, self->dtype);
        Py_DECREF(arr);
        return r;
    }
    return arr;
}

static int array_setitem(ArrayObject *self, PyObject *key, PyObject *value)
{
    Py_ssize_t start, step, count;
    bcl_status st;
    if (!value) {
        PyErr_Format(PyExc_TypeError, "%s elements cannot be deleted", tname(self));
        return -1;
    }
    if (BCLPY_USABLE(self) < 0 || item_range(self, key, &start, &step, &count) < 0)
        return -1;
    if (!PySlice_Check(key) && self->a.elem_size <= SMALL_ELEM) {
        unsigned char buf[SMALL_ELEM];
        if (bclpy_to_bytes(value, self->dtype, buf, "value") < 0)
            return -1;
        st = bcl_array_put(&self->a, (uint64_t)start, 1, buf);
        return st == BCL_OK ? 0 : (bclpy_raise(st), -1);
    }
    PyArrayObject *arr = bclpy_values_for(value, self->dtype, count, "value",
                                          "elements of the slice");
    if (!arr)
        return -1;
    const void *src = PyArray_DATA(arr);
    BCLPY_NOGIL(st = count == 0 ? BCL_OK
                     : step == 1 ? bcl_array_put(&self->a, (uint64_t)start, (uint64_t)count, src)
                                 : bcl_array_put_strided(&self->a, start, step, (uint64_t)count,
                                                         src));
    Py_DECREF(arr);
    return st == BCL_OK ? 0 : (bclpy_raise(st), -1);
}

static Py_ssize_t array_len(ArrayObject *self)
{
    if (BCLPY_USABLE(self) < 0)
        return -1;
    return (Py_ssize_t)self->a.size;
}

/* ---- methods ----------------------------------------------------------------- */

static PyObject *array_owner_impl(ArrayObject *self, PyObject *key)
{
    uint64_t i;
    if (get_index(self, key, &i) < 0)
        return NULL;
    return PyLong_FromLong(bcl_array_owner(&self->a, i));
}

static PyObject *array_ptr_impl(ArrayObject *self, PyObject *key)
{
    uint64_t i;
    bcl_gptr p;
    if (get_index(self, key, &i) < 0)
        return NULL;
    bcl_status st = bcl_array_ptr(&self->a, i, &p);
    if (st != BCL_OK)
        return bclpy_raise(st);
    return bclpy_gptr_new(bclpy_type_state(Py_TYPE(self)), p, self->dtype);
}

static PyObject *array_local_impl(ArrayObject *self)
{
    if (!bcl_epoch_current(self->a.epoch)) {
        PyErr_Format(bclpy_exc(BCLPY_E_ERROR), "%s.local(): pybcl was finalized since the "
                     "array was created", tname(self));
        return NULL;
    }
    if (self->a.host >= 0 && self->a.host != bcl_rt.rank)
        return PyErr_Format(PyExc_ValueError, "Array.local(): the array is hosted on "
                            "rank %d, not on this rank (%d)", self->a.host, bcl_rt.rank);
    uint64_t first, count;
    bcl_array_local_range(&self->a, bcl_rt.rank, &first, &count);
    npy_intp dims[1] = { (npy_intp)count };
    uint64_t off = self->a.offsets[bcl_rt.rank];
    void *data = off ? bcl_local_addr(bcl_gptr_make(bcl_rt.rank, off)) : NULL;
    if (!data) {   /* an empty block: a fresh empty array */
        Py_INCREF(self->dtype);
        return PyArray_SimpleNewFromDescr(1, dims, self->dtype);
    }
    return bclpy_segment_view(data, dims[0], self->dtype, (PyObject *)self);
}

static PyObject *array_local_range_impl(ArrayObject *self)
{
    uint64_t first, count;
    bcl_array_local_range(&self->a, bcl_rt.rank, &first, &count);
    return Py_BuildValue("(KK)", (unsigned long long)first,
                         (unsigned long long)(first + count));
}

static PyObject *array_repr(ArrayObject *self)
{
    if (!self->life.live)
        return PyUnicode_FromFormat("<pybcl.%s (not created)>", tname(self));
    PyObject *dt = bclpy_spec_repr((PyObject *)self->dtype);
    if (!dt)
        return NULL;
    PyObject *r = self->a.host >= 0
        ? PyUnicode_FromFormat("pybcl.Array(host=%d, size=%llu, dtype=%U)", self->a.host,
                               (unsigned long long)self->a.size, dt)
        : PyUnicode_FromFormat("pybcl.DArray(size=%llu, dtype=%U)",
                               (unsigned long long)self->a.size, dt);
    Py_DECREF(dt);
    return r;
}

int bclpy_array_io_target(PyObject *self, bcl_sv_target *t)
{
    ArrayObject *a = (ArrayObject *)self;
    if (BCLPY_USABLE(a) < 0)
        return -1;
    t->kind = a->a.host >= 0 ? BCL_SV_ARRAY : BCL_SV_DARRAY;
    t->arr = &a->a;
    return 0;
}

BCLPY_SAVE_METHOD(array_save, ArrayObject, bclpy_array_io_target)

BCLPY_CLOSE_METHOD(array_close, ArrayObject, bcl_array_destroy, a)

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/array_methods_clinic.h"
