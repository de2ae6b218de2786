/*
 * hashmap_py.h -- the one internal header of the HashMap binding.  The files
 * form a tree: hashmap_py.c (the type, scalar methods) calls the leaves
 * hashmap_many_py.c (NumPy batch methods), hashmap_values_py.c (integer
 * values read in place) and hashmap_erase_py.c (deletion,
 * len); hmbuffer_py.c (HashMapBuffer) stands beside them; all of them use
 * hashmap_common.c (conversions, checks), which calls none of them.
 * Include after bclpy.h.
 */
#ifndef BCLPY_HASHMAP_PY_H
#define BCLPY_HASHMAP_PY_H

#include "elemtype.h"
#include "containers/hashmap/bcl_hashmap.h"

typedef struct {
    PyObject_HEAD
    bcl_hashmap m;
    bclpy_elemtype kt, vt;
    bclpy_life life;       /* usable? (bclpy.h) */
    bcl_mp_writer kw, vw;     /* scratch: key bytes, value bytes            */
    int modify_depth;         /* modify() fns running on this map ...       */
    unsigned long modify_thread;  /* ... in this thread (the GIL orders them) */
} bclpy_HashMap;

/* ---- hashmap_common.c ---------------------------------------------------- */

/* None/NULL -> 0, a ConProm.HashMap flag -> its bits; -1 with TypeError. */
int bclpy_hm_promise(bclpy_HashMap *self, PyObject *p, const char *argname, int *bits);

/* key -> serialized bytes in w and the core's key view. */
int bclpy_hm_key(bclpy_HashMap *self, PyObject *key, bcl_mp_writer *w, bcl_hm_key *k);

/* value -> its serialized bytes in w (reset first); -1 with an exception
 * naming argname.  The map stores them (bcl_hm_insert / bcl_hm_commit). */
int bclpy_hm_value(bclpy_HashMap *self, PyObject *value, bcl_mp_writer *w,
                   const char *argname);

/* TypeError: fname() (accumulate...) needs a numeric value type. */
PyObject *bclpy_hm_not_numeric(bclpy_HashMap *self, const char *fname);

/* -1 with RuntimeError when this thread runs a modify() fn on the map: a
 * batch could meet the bucket that fn holds and wait for itself (the scalar
 * methods detect exactly that bucket in the core; a batch stopped half-way
 * would leave reader counts behind, so batches are refused outright). */
int bclpy_hm_refuse_in_modify(bclpy_HashMap *self, const char *method);

/* Two new 1-d arrays of n entries of the map's key and value dtypes
 * (fixed types only); -1 with the exception, both NULL. */
int bclpy_hm_new_arrays(bclpy_HashMap *self, npy_intp n, PyObject **keys, PyObject **values);

/* Fixed keys/values as contiguous 1-d arrays of the map's dtypes (new
 * references; lossless, cast.c). */
static inline PyArrayObject *bclpy_hm_array(PyObject *obj, PyArray_Descr *dtype,
                                            const char *argname)
{
    return bclpy_to_array(obj, dtype, 1, 1, argname);
}

/* ---- batch methods (hashmap_many_py.c) ----------------------------------- */
PyObject *bclpy_hm_local_arrays_impl(bclpy_HashMap *self);
PyObject *bclpy_hm_insert_many_impl(bclpy_HashMap *self, PyObject *keys, PyObject *values,
                                    int promise);
PyObject *bclpy_hm_find_many_impl(bclpy_HashMap *self, PyObject *keys, int promise,
                                  int collective);
PyObject *bclpy_hm_accumulate_many_impl(bclpy_HashMap *self, PyObject *keys, PyObject *deltas);

/* ---- integer values read in place (hashmap_values_py.c) ------------------ */
PyObject *bclpy_hm_local_histogram_impl(bclpy_HashMap *self, long long every);
PyObject *bclpy_hm_local_select_impl(bclpy_HashMap *self, long long at_least);

/* ---- deletion (hashmap_erase_py.c) ------------------------------------- */
int bclpy_hm_erase_key(bclpy_HashMap *self, PyObject *key);
PyObject *bclpy_hm_erase_impl(bclpy_HashMap *self, PyObject *key);
PyObject *bclpy_hm_erase_many_impl(bclpy_HashMap *self, PyObject *keys);
int bclpy_hm_delitem(bclpy_HashMap *self, PyObject *key);

/* ---- HashMapBuffer's serialized keys and values (hmvbuffer_py.c) ------- */
struct bcl_hm_buffer;
/* 0 if key converts to the map's key type, else -1 with the TypeError. */
int bclpy_hmv_check_key(bclpy_HashMap *hm, PyObject *key);
/* insert/accumulate (acc) of one entry, serialized by the map's types
 * (fixed-size ones to their bytes); val NULL: a delta of 1.  kw, vw: the
 * buffer's scratch writers. */
PyObject *bclpy_hmv_add_one(struct bcl_hm_buffer *b, bclpy_HashMap *hm, bcl_mp_writer *kw,
                            bcl_mp_writer *vw, PyObject *key, PyObject *val, int acc);
/* The same for a sequence of keys and one value per key (or, for a
 * fixed-size value type, one for all; NULL: deltas of 1). */
PyObject *bclpy_hmv_add_many(struct bcl_hm_buffer *b, bclpy_HashMap *hm, bcl_mp_writer *kw,
                             bcl_mp_writer *vw, PyObject *keys, PyObject *vals, int acc);

#endif /* BCLPY_HASHMAP_PY_H */
