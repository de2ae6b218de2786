/*
 * cast.c -- the casting rules of every container element (docs/api.md: "Keys and
 * values convert without loss or raise").  One place, so HashMap, the
 * queues, BloomFilter, DArray/Array and GlobalPtr element puts agree.
 *
 * Scalars follow Python's rules for the target type:
 *   integer dtypes   take ints (bool, NumPy integers, __index__ objects);
 *                    a float -- even 2.0 -- is a TypeError (no silent
 *                    truncation: insert(2.9) used to store 2), a value out of
 *                    the dtype's range an OverflowError;
 *   bool             takes bool, NumPy bool and the ints 0 and 1;
 *   float dtypes     take ints and floats (rounded to the nearest value, as
 *                    float(x) does); a finite value beyond the dtype's range
 *                    is an OverflowError, never inf;
 *   S<n> / U<n>      take bytes-like / str of at most n bytes / characters:
 *                    longer ones are a ValueError, never cut.
 * Batches given as NumPy arrays follow NumPy's casting="safe", except that
 * integer -> integer and S/U -> narrower S/U are checked by value (np.arange
 * is int64, yet fits uint64 keys): OverflowError / ValueError for a value
 * that does not fit.  Batches given as Python sequences are converted
 * element by element with the scalar rules when their NumPy dtype does not
 * cast safely (a list of ints into float32, a list mixing 2**63 and -1).
 */
#include "bclpy.h"

#include <math.h>
#include <string.h>

static int is_int_like(PyObject *v)
{
    return PyLong_Check(v) || PyArray_IsScalar(v, Integer) || PyArray_IsScalar(v, Bool);
}

static int is_float_like(PyObject *v)
{
    return PyFloat_Check(v) || PyArray_IsScalar(v, Floating);
}

/* int-like v -> exact Python int (new ref); TypeError naming argname else. */
static PyObject *as_int(PyObject *v, PyArray_Descr *d, const char *argname)
{
    if (is_float_like(v) || PyComplex_Check(v) || PyArray_IsScalar(v, ComplexFloating))
        return PyErr_Format(PyExc_TypeError, "%s: %R is not an integer; %R takes ints "
                            "only (convert explicitly, e.g. int(x), to truncate)",
                            argname, v, (PyObject *)d);
    if (!is_int_like(v) && !PyIndex_Check(v))
        return PyErr_Format(PyExc_TypeError, "%s: expected an int for %R, got %.100s",
                            argname, (PyObject *)d, Py_TYPE(v)->tp_name);
    return bclpy_index(v, argname);
}

/* Range check of the Python int i for an integer dtype; x/u get its value. */
static int int_fits(PyObject *i, PyArray_Descr *d, long long *x, unsigned long long *u,
                    const char *argname)
{
    int bits = (int)PyDataType_ELSIZE(d) * 8, overflow = 0, ok;
    if (d->kind == 'u') {
        *u = PyLong_AsUnsignedLongLong(i);      /* OverflowError if negative */
        ok = !(*u == (unsigned long long)-1 && PyErr_Occurred());
        if (ok && bits < 64 && *u >> bits)
            ok = 0;
    } else {
        *x = PyLong_AsLongLongAndOverflow(i, &overflow);
        ok = !overflow && !(*x == -1 && PyErr_Occurred());
        if (ok && bits < 64) {
            long long lim = 1LL << (bits - 1);
            ok = *x >= -lim && *x < lim;
        }
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s: %R does not fit in %R", argname, i,
                     (PyObject *)d);
    }
    return ok ? 0 : -1;
}

/* Native-order integer of `bits` bits from x/u into out. */
static void store_int(void *out, int size, int is_unsigned, long long x,
                      unsigned long long u)
{
    unsigned long long bitsv = is_unsigned ? u : (unsigned long long)x;
    switch (size) {
    case 1: { uint8_t t = (uint8_t)bitsv; memcpy(out, &t, 1); break; }
    case 2: { uint16_t t = (uint16_t)bitsv; memcpy(out, &t, 2); break; }
    case 4: { uint32_t t = (uint32_t)bitsv; memcpy(out, &t, 4); break; }
    default: memcpy(out, &bitsv, 8); break;
    }
}

/* The generic conversion of a value already known to convert exactly. */
static int numpy_store(PyObject *value, PyArray_Descr *dtype, void *out,
                       const char *argname)
{
    Py_INCREF(dtype);   /* PyArray_FromAny steals it */
    PyObject *arr = PyArray_FromAny(value, dtype, 0, 0,
                                    NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (!arr)
        return bclpy_error_from(PyExc_TypeError, "%s: cannot convert %R to %R", argname,
                                value, (PyObject *)dtype), -1;
    if (PyArray_SIZE((PyArrayObject *)arr) != 1) {
        PyErr_Format(PyExc_ValueError, "%s: expected one %R element, got %zd", argname,
                     (PyObject *)dtype, (Py_ssize_t)PyArray_SIZE((PyArrayObject *)arr));
        Py_DECREF(arr);
        return -1;
    }
    memcpy(out, PyArray_DATA((PyArrayObject *)arr), (size_t)PyDataType_ELSIZE(dtype));
    Py_DECREF(arr);
    return 0;
}

static int int_to_bytes(PyObject *v, PyArray_Descr *d, void *out, const char *argname)
{
    PyObject *i = as_int(v, d, argname);
    if (!i)
        return -1;
    long long x = 0;
    unsigned long long u = 0;
    int rc = int_fits(i, d, &x, &u, argname);
    if (rc == 0 && PyDataType_ISBYTESWAPPED(d))
        rc = numpy_store(i, d, out, argname);
    else if (rc == 0)
        store_int(out, (int)PyDataType_ELSIZE(d), d->kind == 'u', x, u);
    Py_DECREF(i);
    return rc;
}

static int bool_to_bytes(PyObject *v, PyArray_Descr *d, void *out, const char *argname)
{
    int t;
    if (PyBool_Check(v) || PyArray_IsScalar(v, Bool)) {
        t = PyObject_IsTrue(v);
    } else {
        PyObject *i = as_int(v, d, argname);
        if (!i)
            return -1;
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
        Py_DECREF(i);
        if (overflow || (x != 0 && x != 1)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "%s: %R is not 0 or 1: it does not fit in "
                         "bool", argname, v);
            return -1;
        }
        t = (int)x;
    }
    if (t < 0)
        return -1;
    *(unsigned char *)out = (unsigned char)t;
    return 0;
}

static int float_to_bytes(PyObject *v, PyArray_Descr *d, void *out, const char *argname)
{
    if (!is_int_like(v) && !is_float_like(v))
        return PyErr_Format(PyExc_TypeError, "%s: expected a number for %R, got %.100s",
                            argname, (PyObject *)d, Py_TYPE(v)->tp_name), -1;
    double x;
    if (is_int_like(v)) {
        PyObject *i = bclpy_index(v, argname);
        x = i ? PyLong_AsDouble(i) : -1.0;          /* OverflowError if huge */
        Py_XDECREF(i);
    } else {
        x = PyFloat_AsDouble(v);
    }
    if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s: %R does not fit in %R", argname, v,
                     (PyObject *)d);
        return -1;
    }
    size_t size = (size_t)PyDataType_ELSIZE(d);
    if (PyDataType_ISBYTESWAPPED(d) || (size != 4 && size != 8)) {
        /* float16 / longdouble: NumPy rounds; refuse what becomes inf. */
        if (size < 8 && isfinite(x) && fabs(x) > (size == 2 ? 65504.0 : 3.4028234663852886e38))
            goto overflow;
        PyObject *f = PyFloat_FromDouble(x);
        int rc = f ? numpy_store(f, d, out, argname) : -1;
        Py_XDECREF(f);
        return rc;
    }
    if (size == 8) {
        memcpy(out, &x, 8);
        return 0;
    }
    float y = (float)x;
    if (isinf(y) && isfinite(x))
        goto overflow;
    memcpy(out, &y, 4);
    return 0;
overflow:
    PyErr_Format(PyExc_OverflowError, "%s: %R does not fit in %R (it would become inf)",
                 argname, v, (PyObject *)d);
    return -1;
}

static int bytes_to_bytes(PyObject *v, PyArray_Descr *d, void *out, const char *argname)
{
    Py_buffer view;
    size_t n = (size_t)PyDataType_ELSIZE(d);
    if (PyUnicode_Check(v) || PyObject_GetBuffer(v, &view, PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %R takes bytes, not %.100s", argname,
                     (PyObject *)d, Py_TYPE(v)->tp_name);
        return -1;
    }
    size_t len = (size_t)view.len;
    if (len > n) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "%s: %zu bytes do not fit in %R (at most %zu; "
                     "never truncated)", argname, len, (PyObject *)d, n);
        return -1;
    }
    memcpy(out, view.buf, len);
    memset((char *)out + len, 0, n - len);
    PyBuffer_Release(&view);
    return 0;
}

static int str_to_bytes(PyObject *v, PyArray_Descr *d, void *out, const char *argname)
{
    size_t n = (size_t)PyDataType_ELSIZE(d) / 4;
    if (!PyUnicode_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s: %R takes str, not %.100s", argname,
                     (PyObject *)d, Py_TYPE(v)->tp_name);
        return -1;
    }
    if ((size_t)PyUnicode_GET_LENGTH(v) > n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd characters do not fit in %R (at most "
                     "%zu; never truncated)", argname, PyUnicode_GET_LENGTH(v),
                     (PyObject *)d, n);
        return -1;
    }
    return numpy_store(v, d, out, argname);
}

int bclpy_to_bytes(PyObject *value, PyArray_Descr *dtype, void *out,
                   const char *argname)
{
    /* Fast paths: Python int -> native int64, Python float -> float64. */
    if (!PyDataType_ISBYTESWAPPED(dtype)) {
        if (dtype->type_num == NPY_INT64 && PyLong_CheckExact(value)) {
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
            if (!overflow && !(x == -1 && PyErr_Occurred())) {
                memcpy(out, &x, 8);
                return 0;
            }
            PyErr_Clear();
        } else if (dtype->type_num == NPY_FLOAT64 && PyFloat_CheckExact(value)) {
            double x = PyFloat_AS_DOUBLE(value);
            memcpy(out, &x, 8);
            return 0;
        }
    }
    switch (dtype->kind) {
    case 'i': case 'u': return int_to_bytes(value, dtype, out, argname);
    case 'b': return bool_to_bytes(value, dtype, out, argname);
    case 'f': return float_to_bytes(value, dtype, out, argname);
    case 'S': return bytes_to_bytes(value, dtype, out, argname);
    case 'U': return str_to_bytes(value, dtype, out, argname);
    case 'c':
        if (!is_int_like(value) && !is_float_like(value) && !PyComplex_Check(value) &&
            !PyArray_IsScalar(value, ComplexFloating))
            return PyErr_Format(PyExc_TypeError, "%s: expected a number for %R, got "
                                "%.100s", argname, (PyObject *)dtype,
                                Py_TYPE(value)->tp_name), -1;
        return numpy_store(value, dtype, out, argname);
    default:                  /* structured, datetime, ...: NumPy's own rules */
        return numpy_store(value, dtype, out, argname);
    }
}

/* ---- batches ---------------------------------------------------------------- */

static int is_int_kind(char k) { return k == 'i' || k == 'u' || k == 'b'; }

/* Integer array src into integer dtype d: every value must fit. */
static int int_values_fit(PyArrayObject *src, PyArray_Descr *d, const char *argname)
{
    int rc = -1;
    PyObject *mn = NULL, *mx = NULL, *imn = NULL, *imx = NULL;
    long long x;
    unsigned long long u;
    if (!(mn = PyArray_Min(src, NPY_RAVEL_AXIS, NULL)) ||
        !(mx = PyArray_Max(src, NPY_RAVEL_AXIS, NULL)) ||
        !(imn = PyNumber_Index(mn)) || !(imx = PyNumber_Index(mx)))
        goto out;
    if (int_fits(imn, d, &x, &u, argname) < 0 || int_fits(imx, d, &x, &u, argname) < 0)
        goto out;
    rc = 0;
out:
    Py_XDECREF(mn); Py_XDECREF(mx); Py_XDECREF(imn); Py_XDECREF(imx);
    return rc;
}

/* S/U array src into a narrower S/U dtype d: every item must fit (items
 * are NUL-padded, so their length ends at the last non-NUL unit). */
static int strings_fit(PyArrayObject *src, PyArray_Descr *d, const char *argname)
{
    PyArrayObject *c = (PyArrayObject *)PyArray_GETCONTIGUOUS(src);
    if (!c)
        return -1;
    int unit = PyArray_DESCR(c)->kind == 'U' ? 4 : 1;
    size_t isz = (size_t)PyArray_ITEMSIZE(c) / unit, cap = (size_t)PyDataType_ELSIZE(d) / unit;
    const unsigned char *p = PyArray_DATA(c);
    npy_intp n = PyArray_SIZE(c);
    int rc = 0;
    for (npy_intp i = 0; i < n && rc == 0; i++, p += isz * unit) {
        size_t len = isz;
        while (len > cap) {
            size_t j = (len - 1) * unit, z = 0;
            while (z < (size_t)unit && p[j + z] == 0)
                z++;
            if (z < (size_t)unit)
                break;
            len--;
        }
        if (len > cap) {
            PyErr_Format(PyExc_ValueError, "%s: element %zd has %zu %s: it does not fit "
                         "in %R (at most %zu; never truncated)", argname, (Py_ssize_t)i,
                         len, unit == 4 ? "characters" : "bytes", (PyObject *)d, cap);
            rc = -1;
        }
    }
    Py_DECREF(c);
    return rc;
}

/* Element by element with the scalar rules (Python sequences). */
static PyObject *wrap_error(PyObject *obj, PyArray_Descr *dtype, const char *argname);

static PyArrayObject *by_element(PyObject *obj, PyArray_Descr *dtype, int mindim,
                                 int maxdim, const char *argname)
{
    PyArrayObject *o = (PyArrayObject *)PyArray_FromAny(
        obj, PyArray_DescrFromType(NPY_OBJECT), mindim, maxdim,
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (!o)          /* NumPy's "object of too small depth" does not say which */
        return (PyArrayObject *)wrap_error(obj, dtype, argname);
    Py_INCREF(dtype);
    PyArrayObject *r = (PyArrayObject *)PyArray_Empty(PyArray_NDIM(o), PyArray_DIMS(o),
                                                      dtype, 0);
    npy_intp n = PyArray_SIZE(o);
    PyObject **items = PyArray_DATA(o);
    size_t w = (size_t)PyDataType_ELSIZE(dtype);
    for (npy_intp i = 0; r && i < n; i++)
        if (bclpy_to_bytes(items[i], dtype, (char *)PyArray_DATA(r) + i * w, argname) < 0)
            Py_CLEAR(r);
    Py_DECREF(o);
    return r;
}

static PyObject *wrap_error(PyObject *obj, PyArray_Descr *dtype, const char *argname)
{
    /* None, a str or a scalar where an array-like belongs is the wrong type,
     * not a wrong value (NumPy reports "too small depth" as a ValueError). */
    if (obj == Py_None || PyUnicode_Check(obj) ||
        !(PySequence_Check(obj) || PyArray_Check(obj) || PyObject_CheckBuffer(obj) ||
          PyIter_Check(obj))) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "%s must be a 1-d array-like of %R, not %.100s",
                            argname, (PyObject *)dtype, Py_TYPE(obj)->tp_name);
    }
    return bclpy_error_from(PyErr_ExceptionMatches(PyExc_ValueError) ? PyExc_ValueError
                                                                     : PyExc_TypeError,
                            "%s: cannot convert %.100s to an array of %R", argname,
                            Py_TYPE(obj)->tp_name, (PyObject *)dtype);
}

PyArrayObject *bclpy_to_array(PyObject *obj, PyArray_Descr *dtype, int mindim,
                              int maxdim, const char *argname)
{
    const int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
    char tk = dtype->kind;
    if (!strchr("biufcSU", tk)) {          /* structured etc.: NumPy's rules */
        Py_INCREF(dtype);
        PyObject *a = PyArray_FromAny(obj, dtype, mindim, maxdim, flags, NULL);
        return a ? (PyArrayObject *)a : (PyArrayObject *)wrap_error(obj, dtype, argname);
    }
    int is_array = PyArray_Check(obj);
    PyArrayObject *src = is_array ? (Py_INCREF(obj), (PyArrayObject *)obj)
                                  : (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0,
                                                                     NULL);
    if (!src)
        return (PyArrayObject *)wrap_error(obj, dtype, argname);
    PyArray_Descr *sd = PyArray_DESCR(src);
    char sk = sd->kind;
    int ok = PyArray_SIZE(src) == 0 || PyArray_CanCastTypeTo(sd, dtype, NPY_SAFE_CASTING);
    if (!ok && sk != 'O') {
        int rc = 1;                       /* 1: no value-based rule applies */
        if (is_int_kind(sk) && tk != 'b' && is_int_kind(tk))
            rc = int_values_fit(src, dtype, argname);
        else if ((sk == 'S' && tk == 'S') || (sk == 'U' && tk == 'U'))
            rc = strings_fit(src, dtype, argname);
        if (rc < 0) {
            Py_DECREF(src);
            return NULL;
        }
        ok = rc == 0;
    }
    if (!ok && (!is_array || sk == 'O')) {
        Py_DECREF(src);
        return by_element(obj, dtype, mindim, maxdim, argname);
    }
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: cannot convert %R values to %R without loss "
                     "(NumPy casting='safe'); convert explicitly, e.g. with .astype()",
                     argname, (PyObject *)sd, (PyObject *)dtype);
        Py_DECREF(src);
        return NULL;
    }
    Py_INCREF(dtype);
    PyObject *a = PyArray_FromAny((PyObject *)src, dtype, mindim, maxdim,
                                  flags | NPY_ARRAY_FORCECAST, NULL);
    Py_DECREF(src);
    return a ? (PyArrayObject *)a : (PyArrayObject *)wrap_error(obj, dtype, argname);
}

PyArrayObject *bclpy_1d_of(PyObject *obj, int type, const char *argname)
{
    PyArray_Descr *d = PyArray_DescrFromType(type);
    PyArrayObject *a = d ? bclpy_to_array(obj, d, 1, 1, argname) : NULL;
    Py_XDECREF(d);
    return a;
}

PyArrayObject *bclpy_values_for(PyObject *obj, PyArray_Descr *dtype, npy_intp n,
                                const char *argname, const char *targets)
{
    PyArrayObject *v = bclpy_to_array(obj, dtype, 0, 1, argname);
    if (!v)
        return NULL;
    npy_intp k = PyArray_SIZE(v);
    if (k == n && PyArray_NDIM(v) == 1)
        return v;
    if (k != 1) {
        PyErr_Format(PyExc_ValueError, "%s: %zd values for %zd %s", argname, (Py_ssize_t)k,
                     (Py_ssize_t)n, targets);
        Py_DECREF(v);
        return NULL;
    }
    npy_intp dims[1] = { n };
    Py_INCREF(dtype);
    PyArrayObject *full = (PyArrayObject *)PyArray_SimpleNewFromDescr(1, dims, dtype);
    size_t w = (size_t)PyDataType_ELSIZE(dtype);
    for (npy_intp i = 0; full && i < n; i++)
        memcpy((char *)PyArray_DATA(full) + (size_t)i * w, PyArray_DATA(v), w);
    Py_DECREF(v);
    return full;
}
