/*
 * array_numpy_py.c -- DArray/Array as NumPy and Python see sequences:
 * np.asarray(a) (the __array__ protocol of NumPy 1.25+ and 2.x, with its
 * copy= keyword) and iter(a).
 *
 * np.asarray(darray) is collective (bcl_array_gather: every rank's earlier
 * writes are seen and no later write tears the copy); for a hosted Array it
 * is one pipelined read from the host.  Iteration reads a snapshot of the
 * whole array in one pipelined access per owner and yields its elements
 * (NumPy scalars, like a[i]); it is not collective.
 */
#include "bclpy.h"

#include "binding/array_py.h"
#include "binding/generated/array.h"
#include "containers/bcl_array_gather.h"

static PyObject *new_whole(ArrayObject *self)
{
    npy_intp dims[1] = { (npy_intp)self->a.size };
    Py_INCREF(self->dtype);
    return PyArray_SimpleNewFromDescr(1, dims, self->dtype);
}

/* A snapshot of every element, read one-sidedly (not collective). */
static PyObject *read_whole(ArrayObject *self)
{
    PyObject *arr = new_whole(self);
    if (!arr || self->a.size == 0)
        return arr;
    void *data = PyArray_DATA((PyArrayObject *)arr);
    bcl_status st;
    BCLPY_NOGIL(st = bcl_array_get(&self->a, 0, self->a.size, data));
    if (st != BCL_OK) {
        Py_DECREF(arr);
        return bclpy_raise(st);
    }
    return arr;
}

/* DArray: every rank takes part in the gather's barriers even when its own
 * arguments were bad (`ok` == 0, exception set), then reports. */
static PyObject *gather_whole(ArrayObject *self, int ok)
{
    PyObject *arr = ok ? new_whole(self) : NULL;
    PyObject *exc_type = NULL, *exc = NULL, *tb = NULL;
    PyErr_Fetch(&exc_type, &exc, &tb);   /* kept out of the way of the wait */
    /* NULL tells the gather this rank has no buffer; an empty array's
     * buffer is never touched, so any non-NULL pointer marks "ok" there. */
    void *data = !arr ? NULL
                      : self->a.size ? PyArray_DATA((PyArrayObject *)arr) : (void *)self;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_array_gather("np.asarray(DArray)", &self->a, data));
    if (exc_type) {              /* this rank's own error comes first */
        PyErr_Restore(exc_type, exc, tb);
        Py_XDECREF(arr);
        return NULL;
    }
    if (st != BCL_OK) {
        Py_XDECREF(arr);
        return bclpy_raise(st);
    }
    return arr;
}

/* copy=False cannot be honoured: the elements live in other ranks'
 * segments (NumPy 2's protocol asks for ValueError then). */
static int check_copy(PyObject *copy)
{
    if (!copy || copy == Py_None)
        return 0;
    int truth = PyObject_IsTrue(copy);
    if (truth < 0)
        return -1;
    if (!truth) {
        PyErr_SetString(PyExc_ValueError, "copy: False is not possible, the elements "
                        "are copied out of the ranks' segments (use copy=None)");
        return -1;
    }
    return 0;
}

/* Cast to the dtype NumPy asked for (a no-op when it already matches). */
static PyObject *as_dtype(PyObject *arr, PyObject *dtype_obj)
{
    if (!dtype_obj || dtype_obj == Py_None)
        return arr;
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter2(dtype_obj, &d) || !d) {
        Py_DECREF(arr);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "dtype: not a NumPy dtype: %R", dtype_obj);
        return NULL;
    }
    PyObject *r = PyArray_CastToType((PyArrayObject *)arr, d, 0);   /* steals d */
    Py_DECREF(arr);
    return r;
}

PyObject *bclpy_array_asarray(PyObject *self_obj, BCLPY_FASTARGS)
{
    ArrayObject *self = (ArrayObject *)self_obj;
    BCLPY_ARG_TABLE(BCLPY_ARGS_ARR_ARRAY);
    if (BCLPY_USABLE(self) < 0)
        return NULL;   /* the array is stale on every rank alike: no peer waits */
    int ok = bclpy_parse("__array__", args, nargs, kwnames, names, 0, 2, a) == 0 &&
             check_copy(a[1]) == 0;
    PyObject *arr = self->a.host >= 0 ? (ok ? read_whole(self) : NULL)
                                      : gather_whole(self, ok);
    if (!arr)
        return NULL;
    return as_dtype(arr, a[0]);
}

PyObject *bclpy_array_iter(PyObject *self_obj)
{
    ArrayObject *self = (ArrayObject *)self_obj;
    if (BCLPY_USABLE(self) < 0)
        return NULL;
    PyObject *arr = read_whole(self);
    if (!arr)
        return NULL;
    PyObject *it = PyObject_GetIter(arr);
    Py_DECREF(arr);
    return it;
}
