/*
 * array_update_py.c -- DArray/Array.update_many and pybcl.DArrayBuffer
 * (core: bcl_array_update.h, bcl_darray_buffer.h).  Converts indices,
 * values and the op name, then calls the core.
 */
#include "bclpy.h"

#include <string.h>

#include "array_py.h"
#include "containers/bcl_darray_buffer.h"
#include "binding/generated/array.h"
#include "binding/generated/array_update.h"

/* ---- conversions ---------------------------------------------------------- */

static int elem_of(PyArray_Descr *d, bcl_elem *out, const char *what)
{
    if (bclpy_elem_of(d, out) == 0 && *out != BCL_BOOL)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s: atomic updates need an array of integers or "
                 "floats (native byte order), not dtype %R", what, (PyObject *)d);
    return -1;
}

static int op_of(PyObject *o, bcl_atomic_op *out)
{
    static const char *const names[] = { "add", "or", "and", "xor", "replace", "min",
                                         "max" };
    static const bcl_atomic_op ops[] = { BCL_OP_ADD, BCL_OP_OR, BCL_OP_AND, BCL_OP_XOR,
                                         BCL_OP_REPLACE, BCL_OP_MIN, BCL_OP_MAX };
    if (!o) {
        *out = BCL_OP_ADD;
        return 0;
    }
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "op must be a str, not %.100s", Py_TYPE(o)->tp_name);
        return -1;
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (PyUnicode_CompareWithASCIIString(o, names[i]) == 0)
            return *out = ops[i], 0;
    PyErr_Format(PyExc_ValueError, "op must be one of 'add', 'xor', 'or', 'and', "
                 "'replace', 'min', 'max'; got %R", o);
    return -1;
}

/* indices -> new C-contiguous uint64 array, negatives counted from the end,
 * every one checked against size (IndexError naming the position). */
static PyArrayObject *indices_of(PyObject *obj, uint64_t size)
{
    int is_u = PyArray_Check(obj) && PyArray_DESCR((PyArrayObject *)obj)->kind == 'u';
    PyArray_Descr *d = PyArray_DescrFromType(is_u ? NPY_UINT64 : NPY_INT64);
    PyArrayObject *a = bclpy_to_array(obj, d, 0, 1, "indices");
    Py_DECREF(d);
    if (!a)
        return NULL;
    npy_intp n = PyArray_SIZE(a), dims[1] = { n };
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_UINT64);
    if (!out) {
        Py_DECREF(a);
        return NULL;
    }
    uint64_t *o = PyArray_DATA(out);
    const void *src = PyArray_DATA(a);
    for (npy_intp i = 0; i < n; i++) {
        uint64_t v;
        if (is_u) {
            v = ((const uint64_t *)src)[i];
        } else {
            int64_t s = ((const int64_t *)src)[i];
            v = s < 0 ? (uint64_t)s + size : (uint64_t)s;   /* wraps high if too low */
            if (s < 0 && (uint64_t)(-(s + 1)) >= size)
                v = UINT64_MAX;
        }
        if (v >= size) {
            PyErr_Format(PyExc_IndexError, "indices: element %zd (%S) is out of range "
                         "for an array of %llu elements", (Py_ssize_t)i,
                         PyArray_GETITEM(a, PyArray_GETPTR1(a, i)),
                         (unsigned long long)size);
            Py_DECREF(a);
            Py_DECREF(out);
            return NULL;
        }
        o[i] = v;
    }
    Py_DECREF(a);
    return out;
}

/* ---- DArray/Array.update_many ---------------------------------------------- */

/* update_many's arguments: the indices into `a`, and as many values of its
 * dtype (one value is repeated).  -1 with nothing to release. */
static int updates_of(PyObject *indices, PyObject *values, const bcl_array *a,
                      PyArray_Descr *dtype, PyArrayObject **idx, PyArrayObject **val)
{
    *idx = indices_of(indices, a->size);
    if (!*idx)
        return -1;
    *val = bclpy_values_for(values, dtype, PyArray_SIZE(*idx), "values", "indices");
    if (!*val) {
        Py_DECREF(*idx);
        return -1;
    }
    return 0;
}

/* After the core took the updates: release what updates_of made. */
static PyObject *updated(bcl_status st, PyArrayObject *idx, PyArrayObject *val)
{
    Py_DECREF(idx);
    Py_DECREF(val);
    if (st != BCL_OK)
        return bclpy_raise(st);
    Py_RETURN_NONE;
}

PyObject *bclpy_array_update_many_impl(ArrayObject *self, PyObject *indices, PyObject *values,
                                       PyObject *op_obj)
{
    bcl_elem elem;
    bcl_atomic_op op;
    PyArrayObject *idx, *val;
    if (elem_of(self->dtype, &elem, "update_many") < 0 || op_of(op_obj, &op) < 0 ||
        updates_of(indices, values, &self->a, self->dtype, &idx, &val) < 0)
        return NULL;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_array_update_many(&self->a, PyArray_DATA(idx), PyArray_DATA(val),
                                           (size_t)PyArray_SIZE(idx), elem, op));
    return updated(st, idx, val);
}

/* ---- DArrayBuffer ------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    bcl_dabuf b;
    PyObject *array;          /* owned: the buffer must not outlive its array */
    PyObject *op_name;        /* owned */
    bclpy_life life;       /* usable? (bclpy.h) */
} bclpy_DABuf;

static int db_init_impl(bclpy_DABuf *self, PyObject *arr, long long ms, PyObject *op_obj)
{
    const bcl_array *a;
    PyArray_Descr *dtype;
    bcl_elem elem;
    bcl_atomic_op op;
    if (bclpy_init_once((PyObject *)self, &self->life) < 0 ||
        bclpy_array_unwrap(arr, "array", &a, &dtype) < 0 ||
        elem_of(dtype, &elem, "DArrayBuffer") < 0 || op_of(op_obj, &op) < 0)
        return -1;
    static const char *const names[] = { "message_size", "op" };
    int64_t vals[] = { (int64_t)ms, (int64_t)op };
    if (bclpy_agree("DArrayBuffer()", names, vals, 2) < 0)
        return -1;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_dabuf_create(&self->b, a, elem, op, (size_t)ms, 0));
    if (bclpy_life_started(st, &self->life) < 0)
        return -1;
    Py_INCREF(arr);
    self->array = arr;
    self->op_name = op_obj ? op_obj : PyUnicode_FromString("add");
    Py_XINCREF(op_obj);
    return 0;
}

/* The owner queues other ranks push into outlive this rank's handle
 * (runtime/bcl_lifetime.h); bcl_dabuf_destroy frees only private memory
 * once the runtime is down. */
BCLPY_FREE_BURIED(db_free_buried, bcl_dabuf_destroy)

static void db_dealloc(bclpy_DABuf *self)
{
    bclpy_life_bury(&self->life, &self->b, sizeof self->b,
                    db_free_buried);
    Py_XDECREF(self->array);
    Py_XDECREF(self->op_name);
    bclpy_dealloc_end((PyObject *)self);
}

/* The buffer and its array must be usable (the methods' guard). */
static int db_live(bclpy_DABuf *self)
{
    const bcl_array *a;
    PyArray_Descr *dtype;
    return BCLPY_USABLE(self) < 0 ? -1 : bclpy_array_unwrap(self->array, "array", &a, &dtype);
}

static PyObject *db_update_many_impl(bclpy_DABuf *self, PyObject *indices, PyObject *values)
{
    ArrayObject *arr = (ArrayObject *)self->array;
    PyArrayObject *idx, *val;
    if (updates_of(indices, values, &arr->a, arr->dtype, &idx, &val) < 0)
        return NULL;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_dabuf_add(&self->b, PyArray_DATA(idx), PyArray_DATA(val),
                                   (size_t)PyArray_SIZE(idx)));
    return updated(st, idx, val);
}

static PyObject *db_flush_impl(bclpy_DABuf *self)
{
    CHECK_NOGIL(bcl_dabuf_flush(&self->b));
    Py_RETURN_NONE;
}

/* Flush on a normal exit only: after an exception the other ranks may
 * never reach the collective flush. */
static PyObject *db_exit(bclpy_DABuf *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs >= 1 && args[0] == Py_None) {
        PyObject *r = db_live(self) < 0 ? NULL : db_flush_impl(self);
        Py_XDECREF(r);
        if (!r || !(r = PyObject_CallMethod((PyObject *)self, "close", NULL)))
            return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_FALSE;
}

/* Updates not yet flushed are dropped with the buffer (flush() first). */
BCLPY_CLOSE_METHOD(db_close, bclpy_DABuf, bcl_dabuf_destroy, b)

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/db_methods_clinic.h"
