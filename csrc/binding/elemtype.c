/* elemtype.c -- element types and their slot layout (see elemtype.h). */
#include "elemtype.h"

#include <string.h>

static int var_kind_of(PyObject *spec, bclpy_kind *kind)
{
    if (spec == (PyObject *)&PyBytes_Type) { *kind = BCLPY_BYTES; return 1; }
    if (spec == (PyObject *)&PyUnicode_Type) { *kind = BCLPY_STR; return 1; }
    if (spec == (PyObject *)&PyBaseObject_Type) { *kind = BCLPY_OBJECT; return 1; }
    if (PyUnicode_Check(spec)) {
        const char *s = PyUnicode_AsUTF8(spec);
        if (!s) { PyErr_Clear(); return 0; }
        if (!strcmp(s, "bytes")) { *kind = BCLPY_BYTES; return 1; }
        if (!strcmp(s, "str")) { *kind = BCLPY_STR; return 1; }
        if (!strcmp(s, "object")) { *kind = BCLPY_OBJECT; return 1; }
    }
    return 0;
}

int bclpy_elemtype_init(bclpy_elemtype *t, PyObject *spec, const char *dflt,
                        const char *argname)
{
    Py_CLEAR(t->dtype);              /* __init__ again after a failed one */
    memset(t, 0, sizeof *t);
    if (!spec) {
        PyObject *name = PyUnicode_FromString(dflt);
        int rc = name ? bclpy_elemtype_init(t, name, NULL, argname) : -1;
        Py_XDECREF(name);
        return rc;
    }
    if (var_kind_of(spec, &t->kind)) {
        t->slot_size = sizeof(bcl_objref);
        return 0;
    }
    /* np.dtype(object) / "O" mean variable-length objects too. */
    t->dtype = bclpy_dtype(spec, argname);
    if (!t->dtype) {
        /* np.dtype(object) is refused by bclpy_dtype (not plain data) but
         * means a variable-length object element here.  Keep the original
         * error (it names argname) for anything else. */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyArray_Descr *d = NULL;
        int is_object = PyArray_DescrConverter2(spec, &d) && d && d->type_num == NPY_OBJECT;
        /* NumPy maps any Python type (list, dict, a class) to dtype object;
         * only `object` itself (handled above), "O" and np.dtype(object)
         * mean it here: list would not round-trip as a list of its type. */
        if (is_object && PyType_Check(spec))
            is_object = 0;
        Py_XDECREF(d);
        if (is_object) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            t->kind = BCLPY_OBJECT;
            t->slot_size = sizeof(bcl_objref);
            return 0;
        }
        PyErr_Clear();
        if (type && PyErr_GivenExceptionMatches(type, PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s: %R is not a fixed-size NumPy dtype, "
                         "bytes, str or object", argname, spec);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
        } else {
            PyErr_Restore(type, value, tb);
        }
        return -1;
    }
    t->kind = BCLPY_FIXED;
    t->slot_size = (size_t)PyDataType_ELSIZE(t->dtype);
    return 0;
}

void bclpy_elemtype_clear(bclpy_elemtype *t)
{
    Py_CLEAR(t->dtype);
}

PyObject *bclpy_elemtype_spec(const bclpy_elemtype *t)
{
    PyObject *r;
    switch (t->kind) {
    case BCLPY_FIXED: r = (PyObject *)t->dtype; break;
    case BCLPY_BYTES: r = (PyObject *)&PyBytes_Type; break;
    case BCLPY_STR: r = (PyObject *)&PyUnicode_Type; break;
    default: r = (PyObject *)&PyBaseObject_Type; break;
    }
    Py_INCREF(r);
    return r;
}

PyObject *bclpy_elemtype_repr(const bclpy_elemtype *t)
{
    PyObject *spec = bclpy_elemtype_spec(t);
    PyObject *r = bclpy_spec_repr(spec);
    Py_DECREF(spec);
    return r;
}

static int mp_fail(bcl_status st)
{
    bclpy_raise(st);
    return -1;
}

/* The msgpack writer's errors say "pybcl.packb: ..."; a container's caller
 * needs to know which argument could not be stored: prefix its name (unless
 * the message names one already, as the key rules' "key: unhashable" and
 * "x must be a str" do). */
static int named(int rc, const char *argname)
{
    PyObject *cls = !PyErr_Occurred() ? NULL
                    : PyErr_ExceptionMatches(PyExc_OverflowError) ? PyExc_OverflowError
                    : PyErr_ExceptionMatches(PyExc_ValueError)    ? PyExc_ValueError
                    : PyErr_ExceptionMatches(PyExc_TypeError)     ? PyExc_TypeError : NULL;
    if (rc >= 0 || !argname || !cls)
        return rc;                   /* the user's own exception (e.g. from __index__) */
    PyObject *type, *val, *tb;
    PyErr_Fetch(&type, &val, &tb);
    PyErr_NormalizeException(&type, &val, &tb);
    PyObject *msg = val ? PyObject_Str(val) : NULL;
    const char *m = msg ? PyUnicode_AsUTF8(msg) : NULL;
    size_t n = strlen(argname);
    int says = !m || (strncmp(m, argname, n) == 0 && (m[n] == ':' || m[n] == ' ')) ||
               strncmp(m, "key:", 4) == 0 || strncmp(m, "value:", 6) == 0;
    Py_XDECREF(msg);
    PyErr_Restore(type, val, tb);
    if (!says)
        bclpy_error_from(cls, "%s", argname);
    return rc;
}

static int elem_serialize(const bclpy_elemtype *t, PyObject *v, bcl_mp_writer *w,
                          const char *argname);

int bclpy_elem_serialize(const bclpy_elemtype *t, PyObject *v, bcl_mp_writer *w,
                         const char *argname)
{
    return named(elem_serialize(t, v, w, argname), argname);
}

static int elem_serialize(const bclpy_elemtype *t, PyObject *v, bcl_mp_writer *w,
                          const char *argname)
{
    switch (t->kind) {
    case BCLPY_FIXED: {
        bcl_status st = bcl_mp_reserve(w, t->slot_size);
        if (st != BCL_OK)
            return mp_fail(st);
        if (bclpy_to_bytes(v, t->dtype, w->buf + w->len, argname) < 0)
            return -1;
        w->len += t->slot_size;
        return 0;
    }
    case BCLPY_STR:
        if (!PyUnicode_Check(v)) {
            PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", argname,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        return bclpy_pack(w, v);
    case BCLPY_BYTES: {
        if (PyBytes_Check(v))
            return bclpy_pack(w, v);
        Py_buffer view;
        if (PyObject_GetBuffer(v, &view, PyBUF_C_CONTIGUOUS) < 0) {
            PyErr_Format(PyExc_TypeError, "%s must be bytes-like, not %.100s", argname,
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        bcl_status st = bcl_mp_write_bin(w, view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        return st == BCL_OK ? 0 : mp_fail(st);
    }
    default:
        return bclpy_pack_value(w, v);
    }
}

int bclpy_key_serialize(const bclpy_elemtype *t, PyObject *v, bcl_mp_writer *w,
                        const char *argname)
{
    if (t->kind != BCLPY_OBJECT)
        return bclpy_elem_serialize(t, v, w, argname);
    return named(bclpy_pack_key(w, v), argname);
}

/* A variable-length slot's out-of-line bytes, read and unpacked. */
static PyObject *load_var(const bclpy_elemtype *t, const void *slot,
                          PyObject *(*unpack)(const unsigned char *, size_t))
{
    bcl_mp_writer w;
    bcl_mp_writer_init(&w);
    PyObject *r = NULL;
    if (bclpy_elem_slot_bytes(t, slot, &w) == 0)
        r = unpack(w.buf, w.len);
    bcl_mp_writer_free(&w);
    return r;
}

PyObject *bclpy_key_load(const bclpy_elemtype *t, const void *slot)
{
    if (t->kind != BCLPY_OBJECT)
        return bclpy_elem_load(t, slot);
    return load_var(t, slot, bclpy_unpack_key);
}

PyObject *bclpy_elem_decode(const bclpy_elemtype *t, const void *bytes, size_t len)
{
    if (t->kind == BCLPY_FIXED)
        return bclpy_from_bytes(bytes, t->dtype);
    return bclpy_unpack(bytes, len);
}

int bclpy_elem_slot_bytes(const bclpy_elemtype *t, const void *slot, bcl_mp_writer *w)
{
    bcl_objref ref;
    const void *src = slot;
    size_t len = t->slot_size;
    if (t->kind != BCLPY_FIXED) {
        memcpy(&ref, slot, sizeof ref);
        len = ref.len;
    }
    bcl_status st = bcl_mp_reserve(w, len);
    if (st != BCL_OK)
        return mp_fail(st);
    if (t->kind == BCLPY_FIXED)
        memcpy(w->buf + w->len, src, len);
    else if ((st = bcl_obj_load(ref, w->buf + w->len)) != BCL_OK)
        return mp_fail(st);
    w->len += len;
    return 0;
}

PyObject *bclpy_elem_load(const bclpy_elemtype *t, const void *slot)
{
    if (t->kind == BCLPY_FIXED)
        return bclpy_from_bytes(slot, t->dtype);
    return load_var(t, slot, bclpy_unpack);
}
