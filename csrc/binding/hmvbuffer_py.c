/* hmvbuffer_py.c -- HashMapBuffer's adding calls over a map with
 * bytes/str/object keys or values (core: bcl_hashmap_buffer.h, whose
 * records are then bcl_hmvbuffer.h's).  hmbuffer_py.c owns the type and
 * calls these; keys and values are serialized to their
 * msgpack bytes here, as HashMap.insert does, under the GIL, then handed
 * to the core with the GIL released. */
#include "bclpy.h"

#include <stdio.h>
#include <string.h>

#include "hashmap_py.h"
#include "containers/hashmap/bcl_hashmap_buffer.h"

#define KEY_PREFETCH 32         /* keys between a prefetch and its conversion */

/* The key's bytes appended to w: a compact ASCII str without a call, the
 * rest as HashMap.insert converts them.  -1 with an exception naming
 * argname. */
static int key_bytes(const bclpy_HashMap *hm, PyObject *key, bcl_mp_writer *w,
                     const char *argname)
{
    if (hm->kt.kind == BCLPY_STR && PyUnicode_CheckExact(key) &&
        PyUnicode_IS_COMPACT_ASCII(key)) {
        if (bcl_mp_write_str(w, (const char *)PyUnicode_DATA(key),
                             (size_t)PyUnicode_GET_LENGTH(key)) != BCL_OK) {
            PyErr_NoMemory();
            return -1;
        }
        return 0;
    }
    return bclpy_key_serialize(&hm->kt, key, w, argname);
}

int bclpy_hmv_check_key(bclpy_HashMap *hm, PyObject *key)
{
    bcl_mp_writer w;
    bcl_mp_writer_init(&w);
    int rc = key_bytes(hm, key, &w, "key");
    bcl_mp_writer_free(&w);
    return rc;
}

PyObject *bclpy_hmv_add_one(bcl_hm_buffer *b, bclpy_HashMap *hm, bcl_mp_writer *kw,
                            bcl_mp_writer *vw, PyObject *key, PyObject *val, int acc)
{
    bcl_mp_writer_reset(kw);
    bcl_mp_writer_reset(vw);
    if (key_bytes(hm, key, kw, "key") < 0)
        return NULL;
    PyObject *one = val ? NULL : PyLong_FromLong(1);
    int rc = bclpy_elem_serialize(&hm->vt, val ? val : one, vw, acc ? "delta" : "value");
    Py_XDECREF(one);
    if (rc < 0)
        return NULL;
    bcl_status st = bcl_hm_buffer_add(b, kw->buf, kw->len, vw->buf, vw->len, acc);
    if (st != BCL_OK)
        return bclpy_raise(st);
    Py_RETURN_NONE;
}

/* Every key of the sequence serialized into kw, koff[i] .. koff[i + 1]. */
static int keys_bytes(const bclpy_HashMap *hm, PyObject *seq, bcl_mp_writer *kw,
                      size_t *koff)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    koff[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* The objects are a cache miss each (a list of words from re or
         * str.split is millions of separate str): ask for one ahead. */
        if (i + KEY_PREFETCH < n)
            __builtin_prefetch(items[i + KEY_PREFETCH]);
        if (key_bytes(hm, items[i], kw, "keys") < 0) {
            char name[48];
            snprintf(name, sizeof name, "keys[%zd]", i);
            PyErr_Clear();
            bcl_mp_writer_reset(kw);
            key_bytes(hm, items[i], kw, name);     /* the same error, named */
            return -1;
        }
        koff[i + 1] = kw->len;
    }
    return 0;
}

/* Values of a variable-length type, one per key, into vw / voff. */
static int values_bytes(const bclpy_HashMap *hm, PyObject *vals, Py_ssize_t n,
                        bcl_mp_writer *vw, size_t *voff)
{
    PyObject *seq = PySequence_Fast(vals, "values must be a sequence");
    if (!seq)
        return -1;
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%zd values for %zd keys",
                     PySequence_Fast_GET_SIZE(seq), n);
        rc = -1;
    }
    voff[0] = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        char name[48];
        snprintf(name, sizeof name, "values[%zd]", i);
        rc = bclpy_elem_serialize(&hm->vt, PySequence_Fast_GET_ITEM(seq, i), vw, name);
        voff[i + 1] = vw->len;
    }
    Py_DECREF(seq);
    return rc;
}

PyObject *bclpy_hmv_add_many(bcl_hm_buffer *b, bclpy_HashMap *hm, bcl_mp_writer *kw,
                             bcl_mp_writer *vw, PyObject *keys, PyObject *vals, int acc)
{
    PyObject *seq = PySequence_Fast(keys, "keys must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    size_t *koff = PyMem_Malloc(2 * ((size_t)n + 1) * sizeof *koff), *voff = koff + n + 1;
    PyArrayObject *va = NULL;
    PyObject *r = NULL;
    bcl_mp_writer_reset(kw);
    bcl_mp_writer_reset(vw);
    if (!koff) {
        PyErr_NoMemory();
        goto out;
    }
    /* Everything converts before anything is buffered: a bad key or value
     * raises and leaves the buffer as it was. */
    if (keys_bytes(hm, seq, kw, koff) < 0)
        goto out;
    const unsigned char *vd;
    size_t vstep = 0;
    if (bclpy_elemtype_is_var(&hm->vt)) {
        if (values_bytes(hm, vals, n, vw, voff) < 0)
            goto out;
        vd = vw->buf;
    } else {
        PyObject *one = vals ? NULL : PyLong_FromLong(1);
        va = bclpy_to_array(vals ? vals : one, hm->vt.dtype, 0, 1, acc ? "deltas" : "values");
        Py_XDECREF(one);
        if (!va)
            goto out;
        if (PyArray_SIZE(va) != n && PyArray_SIZE(va) != 1) {
            PyErr_Format(PyExc_ValueError, "%zd values for %zd keys",
                         (Py_ssize_t)PyArray_SIZE(va), n);
            goto out;
        }
        vd = PyArray_DATA(va);
        vstep = PyArray_SIZE(va) == 1 ? 0 : hm->m.val_size;
    }
    int var = bclpy_elemtype_is_var(&hm->vt);
    bcl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = bcl_hm_buffer_add_many(b, kw->buf, koff, (size_t)n, vd, var ? voff : NULL, vstep,
                                acc);
    Py_END_ALLOW_THREADS
    if (st != BCL_OK)
        bclpy_raise(st);
    else
        r = (Py_INCREF(Py_None), Py_None);
out:
    PyMem_Free(koff);
    Py_XDECREF(va);
    Py_DECREF(seq);
    return r;
}
