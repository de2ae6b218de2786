/* ops.c -- pybcl.alloc/free, rget/rput and the atomics on GlobalPtrs. */
#include "bclpy.h"

#include <string.h>

#include "runtime/bcl_alloc.h"
#include "binding/generated/ops.h"

/* o as a GlobalPtr; self: the module pybcl._core (these are its functions). */
static int gptr_arg(PyObject *self, PyObject *o, const char *argname, bclpy_GlobalPtr **out)
{
    if (!bclpy_GlobalPtr_Check(bclpy_module_state(self), o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a pybcl.GlobalPtr, not %.100s",
                     argname, Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = (bclpy_GlobalPtr *)o;
    return 0;
}

static PyObject *py_alloc_impl(PyObject *self, PyObject *count_obj, PyObject *dtype_obj)
{
    if (!PyIndex_Check(count_obj))
        return PyErr_Format(PyExc_TypeError, "alloc: count must be an int, not %.100s",
                            Py_TYPE(count_obj)->tp_name);
    long long count;
    if (bclpy_int_arg(count_obj, "alloc: count", 0, LLONG_MAX, &count) < 0)
        return NULL;
    PyArray_Descr *dtype = dtype_obj ? bclpy_dtype(dtype_obj, "dtype")
                                     : PyArray_DescrFromType(NPY_INT64);
    if (!dtype)
        return NULL;
    if (bclpy_ensure_init() < 0) {
        Py_DECREF(dtype);
        return NULL;
    }
    size_t bytes;
    uint64_t off;
    bcl_status st;
    if (__builtin_mul_overflow((size_t)count, (size_t)PyDataType_ELSIZE(dtype), &bytes))
        st = bcl_set_error(BCL_ERR_SEGFULL, "alloc: %lld elements overflow", count);
    else
        st = bcl_alloc(bytes, (size_t)PyDataType_ALIGNMENT(dtype), &off);
    PyObject *r = st == BCL_OK ? bclpy_gptr_new(bclpy_module_state(self),
                                                bcl_gptr_make(bcl_rt.rank, off), dtype)
                               : bclpy_raise(st);
    Py_DECREF(dtype);
    if (r) {                      /* accesses through it stay inside the block */
        ((bclpy_GlobalPtr *)r)->blk_off = off;
        ((bclpy_GlobalPtr *)r)->blk_len = bytes;
    }
    return r;
}

static PyObject *py_free_impl(PyObject *self, bclpy_GlobalPtr *p)
{
    if (bclpy_gptr_check(p, p->ptr.offset, 0) < 0)
        return NULL;
    if (p->ptr.rank != bcl_rt.rank)
        return PyErr_Format(PyExc_ValueError, "free: ptr %R belongs to rank %d; only "
                            "the owner frees", (PyObject *)p, (int)p->ptr.rank);
    CHECK(bcl_free(p->ptr.offset));
    Py_RETURN_NONE;
}

static PyObject *py_rget_impl(PyObject *self, bclpy_GlobalPtr *p, long long count)
{
    size_t nbytes;
    if (bclpy_gptr_elems(p, p->ptr.offset, count, &nbytes) < 0)
        return NULL;
    return bclpy_gptr_get(p->ptr, p->dtype, count, nbytes);
}

/* Raw bytes of a buffer whose format is bytes-like, else NULL (not an error). */
static int raw_bytes_buffer(PyObject *obj, Py_buffer *view)
{
    if (PyArray_Check(obj) || !PyObject_CheckBuffer(obj))
        return 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = view->format;
    if (!f || !strcmp(f, "B") || !strcmp(f, "b") || !strcmp(f, "c"))
        return 1;
    PyBuffer_Release(view);
    return 0;
}

static PyObject *py_rput_impl(PyObject *self, bclpy_GlobalPtr *p, PyObject *data)
{
    Py_buffer view;
    bcl_status st;
    if (raw_bytes_buffer(data, &view)) {
        if (view.len % PyDataType_ELSIZE(p->dtype)) {
            PyBuffer_Release(&view);
            return PyErr_Format(PyExc_ValueError, "rput: %zd bytes are not a whole "
                                "number of %d-byte elements", view.len,
                                (int)PyDataType_ELSIZE(p->dtype));
        }
        if (bclpy_gptr_check(p, p->ptr.offset, (size_t)view.len) < 0) {
            PyBuffer_Release(&view);
            return NULL;
        }
        BCLPY_NOGIL(st = bcl_put_detached(p->ptr, view.buf, (size_t)view.len));
        PyBuffer_Release(&view);
        CHECK(st);
        Py_RETURN_NONE;
    }
    Py_INCREF(p->dtype);
    PyArrayObject *arr = (PyArrayObject *)PyArray_FromAny(
        data, p->dtype, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (!arr)                     /* say which argument NumPy could not convert */
        return bclpy_error_from(PyExc_TypeError, "rput: array %.80R cannot be stored as %R",
                                data, (PyObject *)p->dtype);
    size_t nbytes = (size_t)PyArray_NBYTES(arr);
    if (bclpy_gptr_check(p, p->ptr.offset, nbytes) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    BCLPY_NOGIL(st = bcl_put_detached(p->ptr, PyArray_DATA(arr), nbytes));
    Py_DECREF(arr);
    CHECK(st);
    Py_RETURN_NONE;
}

/* Common front of the atomics: width, operand. */
static int atomic_args(bclpy_GlobalPtr *p, PyObject *v, int *width, uint64_t *operand,
                       const char *vname)
{
    if (bclpy_ensure_init() < 0)
        return -1;
    *width = bclpy_atomic_width(p->dtype, "ptr.dtype");
    if (*width < 0 || bclpy_gptr_check(p, p->ptr.offset, (size_t)*width) < 0)
        return -1;
    return v ? bclpy_atomic_operand(v, p->dtype, operand, vname) : 0;
}

static PyObject *fetch_op(bclpy_GlobalPtr *p, PyObject *v, bcl_atomic_op op)
{
    int width;
    uint64_t operand, old;
    if (atomic_args(p, v, &width, &operand, "v") < 0)
        return NULL;
    CHECK(bcl_fetch_op(p->ptr, width, op, operand, &old));
    return bclpy_atomic_result(old, p->dtype);
}

#define FETCH_OP(fn, op)                                                        \
    static PyObject *py_##fn##_impl(PyObject *self, bclpy_GlobalPtr *ptr, PyObject *v) \
    {                                                                           \
        return fetch_op(ptr, v, op);                                            \
    }
FETCH_OP(fetch_and_add, BCL_OP_ADD)
FETCH_OP(fetch_and_or, BCL_OP_OR)
FETCH_OP(fetch_and_and, BCL_OP_AND)
FETCH_OP(fetch_and_xor, BCL_OP_XOR)
FETCH_OP(atomic_swap, BCL_OP_REPLACE)

static PyObject *py_atomic_load_impl(PyObject *self, bclpy_GlobalPtr *p)
{
    int width;
    uint64_t old;
    if (atomic_args(p, NULL, &width, NULL, NULL) < 0)
        return NULL;
    CHECK(bcl_fetch_op(p->ptr, width, BCL_OP_NOOP, 0, &old));
    return bclpy_atomic_result(old, p->dtype);
}

static PyObject *py_atomic_store_impl(PyObject *self, bclpy_GlobalPtr *p, PyObject *v)
{
    int width;
    uint64_t bits;
    if (atomic_args(p, v, &width, &bits, "v") < 0)
        return NULL;
    CHECK(bcl_atomic_store(p->ptr, width, bits));
    Py_RETURN_NONE;
}

static PyObject *py_compare_and_swap_impl(PyObject *self, bclpy_GlobalPtr *p,
                                          PyObject *expected, PyObject *desired)
{
    int width;
    uint64_t e, d, old;
    if (atomic_args(p, expected, &width, &e, "expected") < 0 ||
        bclpy_atomic_operand(desired, p->dtype, &d, "desired") < 0)
        return NULL;
    CHECK(bcl_cas(p->ptr, width, e, d, &old));
    return bclpy_atomic_result(old, p->dtype);
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_ops_methods_clinic.h"
