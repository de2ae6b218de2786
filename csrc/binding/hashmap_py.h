/*
 * hashmap_py.h -- shared by the HashMap binding files: hashmap_py.c (type,
 * scalar methods), hashmap_many_py.c (NumPy batch methods), hmbuffer_py.c
 * (HashMapBuffer).  Include after bclpy.h.
 */
#ifndef BCLPY_HASHMAP_PY_H
#define BCLPY_HASHMAP_PY_H

#include "elemtype.h"
#include "containers/bcl_hashmap.h"

typedef struct {
    PyObject_HEAD
    bcl_hashmap m;
    bclpy_elemtype kt, vt;
    int live;                 /* the core table exists                      */
    bcl_mp_writer kw, vw;     /* scratch: key bytes, value bytes            */
} bclpy_HashMap;

extern PyTypeObject bclpy_HashMapType;

/* Fill out[0..n) from FASTCALL positional args and keywords; the first nreq
 * are required, the rest NULL when not given.  -1 with TypeError. */
int bclpy_parse(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames, const char *const *names, int nreq, int n,
                PyObject **out);

/* None/NULL -> 0, a ConProm.HashMap flag -> its bits; -1 with TypeError. */
int bclpy_hm_promise(PyObject *p, int *bits);

/* key -> serialized bytes in w and the core's key view. */
int bclpy_hm_key(bclpy_HashMap *self, PyObject *key, bcl_mp_writer *w, bcl_hm_key *k);

/* value -> value slot at `slot` (variable values are stored out of line). */
int bclpy_hm_value_slot(bclpy_HashMap *self, PyObject *value, bcl_mp_writer *w,
                        void *slot);

/* Batch methods (hashmap_many_py.c). */
PyObject *bclpy_hm_insert_many(bclpy_HashMap *self, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames);
PyObject *bclpy_hm_find_many(bclpy_HashMap *self, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames);
PyObject *bclpy_hm_accumulate_many(bclpy_HashMap *self, PyObject *const *args,
                                   Py_ssize_t nargs, PyObject *kwnames);

/* Deletion and len() (hashmap_erase_py.c). */
int bclpy_hm_erase_key(bclpy_HashMap *self, PyObject *key);
PyObject *bclpy_hm_erase(bclpy_HashMap *self, PyObject *key);
PyObject *bclpy_hm_erase_many(bclpy_HashMap *self, PyObject *keys);
int bclpy_hm_delitem(bclpy_HashMap *self, PyObject *key);
Py_ssize_t bclpy_hm_length(bclpy_HashMap *self);

/* Fixed keys/values as contiguous arrays of the map's dtypes (new refs). */
PyArrayObject *bclpy_hm_array(PyObject *obj, PyArray_Descr *dtype, const char *argname);

/* HashMapBuffer (hmbuffer_py.c). */
int bclpy_register_hashmap_buffer(PyObject *m);

#endif /* BCLPY_HASHMAP_PY_H */
