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

PyObject *bclpy_hm_erase_many_impl(bclpy_HashMap *self, PyObject *keys)
{
    bclpy_hm_keys ks;
    PyArrayObject *found = NULL;
    if (bclpy_hm_keys_of(self, keys, &ks) == 0) {
        npy_intp k = (npy_intp)ks.k;
        found = (PyArrayObject *)PyArray_ZEROS(1, &k, NPY_BOOL, 0);
    }
    if (found) {
        bcl_status st;
        BCLPY_NOGIL(st = bcl_hm_erase_many(&self->m, bclpy_hm_keys_data(&ks), ks.off, ks.k,
                                           (unsigned char *)PyArray_DATA(found)));
        if (st != BCL_OK) {
            Py_CLEAR(found);
            bclpy_raise(st);
        }
    }
    bclpy_hm_keys_free(&ks);
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
