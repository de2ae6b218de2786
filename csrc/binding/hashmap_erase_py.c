/*
 * hashmap_erase_py.c -- HashMap.erase / erase_many / del m[key].
 *
 * Deletion's protocol is in the core (csrc/containers/hashmap/bcl_hashmap.h,
 * "Deletion"; docs/hashmap.md): this file only converts keys and results.
 */
#include "bclpy.h"

#include <string.h>

#include "hashmap_py.h"

/* 1: erased, 0: absent, -1: error. */
int bclpy_hm_erase_key(bclpy_HashMap *self, PyObject *key)
{
    bcl_hm_key k;
    int found = 0;
    BCLPY_LIVE_OR(self, -1);
    if (bclpy_hm_key(self, key, &self->kw, &k) < 0)
        return -1;
    bcl_status st = bcl_hm_erase(&self->m, &k, &found);
    if (st != BCL_OK)
        return bclpy_raise(st), -1;
    return found;
}

PyObject *bclpy_hm_erase_impl(bclpy_HashMap *self, PyObject *key)
{
    int r = bclpy_hm_erase_key(self, key);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

/* Any sequence of keys (variable-length key types): key by key. */
static PyObject *erase_many_seq(bclpy_HashMap *self, PyObject *keys)
{
    PyObject *ks = PySequence_Fast(keys, "erase_many: keys must be a sequence");
    if (!ks)
        return NULL;
    npy_intp dims[1] = { PySequence_Fast_GET_SIZE(ks) };
    PyArrayObject *found = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_BOOL, 0);
    for (npy_intp i = 0; found && i < dims[0]; i++) {
        int r = bclpy_hm_erase_key(self, PySequence_Fast_GET_ITEM(ks, i));
        if (r < 0)
            Py_CLEAR(found);
        else
            ((npy_bool *)PyArray_DATA(found))[i] = (npy_bool)r;
    }
    Py_DECREF(ks);
    return (PyObject *)found;
}

PyObject *bclpy_hm_erase_many_impl(bclpy_HashMap *self, PyObject *keys)
{
    if (bclpy_elemtype_is_var(&self->kt))
        return erase_many_seq(self, keys);
    PyArrayObject *ka = bclpy_hm_array(keys, self->kt.dtype, "keys");
    if (!ka)
        return NULL;
    npy_intp dims[1] = { PyArray_SIZE(ka) };
    PyArrayObject *found = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_BOOL, 0);
    if (found) {
        bcl_status st;
        BCLPY_NOGIL(st = bcl_hm_erase_many(&self->m, PyArray_DATA(ka), (size_t)dims[0],
                                           (unsigned char *)PyArray_DATA(found)));
        if (st != BCL_OK) {
            Py_CLEAR(found);
            bclpy_raise(st);
        }
    }
    Py_DECREF(ka);
    return (PyObject *)found;
}

/* del m[key]: KeyError when absent, like dict. */
int bclpy_hm_delitem(bclpy_HashMap *self, PyObject *key)
{
    int r = bclpy_hm_erase_key(self, key);
    if (r == 0)
        PyErr_SetObject(PyExc_KeyError, key);
    return r > 0 ? 0 : -1;
}
