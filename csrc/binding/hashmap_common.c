/*
 * hashmap_common.c -- the HashMap binding's shared conversions: promises,
 * keys and values to bytes, and the checks every HashMap method file makes
 * (hashmap_py.h).  It calls no other HashMap binding file.
 */
#include "bclpy.h"

#include <stdio.h>
#include <string.h>

#include "hashmap_py.h"

/* ---- promises ------------------------------------------------------------ */

int bclpy_hm_promise(bclpy_HashMap *self, PyObject *p, const char *argname, int *bits)
{
    unsigned u;
    if (bclpy_promise((PyObject *)self, p, "HashMap", &u) < 0)
        return -1;
    *bits = (int)u;
    return 0;
}

/* ---- keys and values ----------------------------------------------------- */

int bclpy_hm_key_bytes(const bclpy_HashMap *hm, PyObject *key, bcl_mp_writer *w,
                       const char *argname)
{
    /* A compact ASCII str is its own msgpack body: no call. */
    if (hm->kt.kind == BCLPY_STR && PyUnicode_CheckExact(key) &&
        PyUnicode_IS_COMPACT_ASCII(key)) {
        if (bcl_mp_write_str(w, (const char *)PyUnicode_DATA(key),
                             (size_t)PyUnicode_GET_LENGTH(key)) == BCL_OK)
            return 0;
        PyErr_NoMemory();
        return -1;
    }
    return bclpy_key_serialize(&hm->kt, key, w, argname);
}

int bclpy_hm_key(bclpy_HashMap *self, PyObject *key, bcl_mp_writer *w, bcl_hm_key *k)
{
    bcl_mp_writer_reset(w);
    if (bclpy_hm_key_bytes(self, key, w, "key") < 0)
        return -1;
    *k = bcl_hm_key_make(w->buf, w->len);
    return 0;
}

#define KEY_PREFETCH 32         /* keys between a prefetch and its conversion */

/* Every key of the sequence serialized into w, off[i] .. off[i + 1]. */
static int keys_bytes(const bclpy_HashMap *hm, PyObject *seq, bcl_mp_writer *w, size_t *off)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    off[0] = w->len;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* The objects are a cache miss each (a list of words from re or
         * str.split is millions of separate str): ask for one ahead. */
        if (i + KEY_PREFETCH < n)
            __builtin_prefetch(items[i + KEY_PREFETCH]);
        if (bclpy_hm_key_bytes(hm, items[i], w, "keys") < 0) {
            char name[48];
            snprintf(name, sizeof name, "keys[%zd]", i);
            PyErr_Clear();
            bcl_mp_writer_reset(w);
            bclpy_hm_key_bytes(hm, items[i], w, name);     /* the same error, named */
            return -1;
        }
        off[i + 1] = w->len;
    }
    return 0;
}

int bclpy_hm_keys_of(const bclpy_HashMap *hm, PyObject *keys, bclpy_hm_keys *ks)
{
    memset(ks, 0, sizeof *ks);
    bcl_mp_writer_init(&ks->w);
    if (!bclpy_elemtype_is_var(&hm->kt)) {
        ks->arr = bclpy_hm_array(keys, hm->kt.dtype, "keys");
        ks->k = ks->arr ? (size_t)PyArray_SIZE(ks->arr) : 0;
        return ks->arr ? 0 : -1;
    }
    PyObject *seq = PySequence_Fast(keys, "keys must be a sequence");
    if (!seq)
        return -1;
    ks->k = (size_t)PySequence_Fast_GET_SIZE(seq);
    ks->off = PyMem_Malloc((ks->k + 1) * sizeof *ks->off);
    int rc = ks->off ? keys_bytes(hm, seq, &ks->w, ks->off) : (PyErr_NoMemory(), -1);
    Py_DECREF(seq);
    return rc;
}

void bclpy_hm_keys_free(bclpy_hm_keys *ks)
{
    Py_CLEAR(ks->arr);
    bcl_mp_writer_free(&ks->w);
    PyMem_Free(ks->off);
    ks->off = NULL;
}

int bclpy_hm_values_bytes(const bclpy_HashMap *hm, PyObject *vals, Py_ssize_t n,
                          bcl_mp_writer *w, size_t **offp)
{
    size_t *off = *offp = PyMem_Malloc(((size_t)n + 1) * sizeof *off);
    if (!off) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *seq = PySequence_Fast(vals, "values must be a sequence");
    if (!seq)
        return -1;
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "values: %zd values for %zd keys",
                     PySequence_Fast_GET_SIZE(seq), n);
        rc = -1;
    }
    off[0] = w->len;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        char name[48];
        snprintf(name, sizeof name, "values[%zd]", i);
        rc = bclpy_elem_serialize(&hm->vt, PySequence_Fast_GET_ITEM(seq, i), w, name);
        off[i + 1] = w->len;
    }
    Py_DECREF(seq);
    return rc;
}

/* value -> its serialized bytes in w (the map stores them). */
int bclpy_hm_value(bclpy_HashMap *self, PyObject *value, bcl_mp_writer *w,
                   const char *argname)
{
    bcl_mp_writer_reset(w);
    return bclpy_elem_serialize(&self->vt, value, w, argname);
}

PyObject *bclpy_hm_not_numeric(bclpy_HashMap *self, const char *fname)
{
    PyObject *spec = bclpy_elemtype_spec(&self->vt);
    PyObject *name = spec ? PyObject_GetAttrString(spec, "__name__") : NULL;
    PyErr_Clear();                     /* np.dtype has no __name__: use its repr */
    PyErr_Format(PyExc_TypeError, "%s() needs a numeric value type (a native integer or "
                 "float dtype); this map's value_type is %R", fname,
                 name ? name : spec);
    Py_XDECREF(name);
    Py_XDECREF(spec);
    return NULL;
}

int bclpy_hm_new_arrays(bclpy_HashMap *self, npy_intp n, PyObject **keys, PyObject **values)
{
    npy_intp dims[1] = { n };
    Py_INCREF(self->kt.dtype);
    *keys = PyArray_NewFromDescr(&PyArray_Type, self->kt.dtype, 1, dims, NULL, NULL, 0, NULL);
    Py_INCREF(self->vt.dtype);
    *values = *keys ? PyArray_NewFromDescr(&PyArray_Type, self->vt.dtype, 1, dims, NULL, NULL,
                                           0, NULL)
                    : (Py_DECREF(self->vt.dtype), NULL);
    if (!*values) {
        Py_CLEAR(*keys);
        return -1;
    }
    return 0;
}

int bclpy_hm_refuse_in_modify(bclpy_HashMap *self, const char *method)
{
    if (self->modify_depth > 0 && self->modify_thread == PyThread_get_thread_ident()) {
        PyErr_Format(PyExc_RuntimeError, "HashMap.%s() inside a modify() fn on the same "
                     "map: the batch could wait for the bucket modify() holds", method);
        return -1;
    }
    return 0;
}
