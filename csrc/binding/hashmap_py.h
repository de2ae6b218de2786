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

/* The keys of a batch as the core's key-by-key batches take them
 * (bcl_hashmap.h): a fixed-size key type's 1-d array, or any other keys
 * serialized back to back in w, key i at off[i] .. off[i + 1]. */
typedef struct bclpy_hm_keys {
    PyArrayObject *arr;       /* fixed-size keys (owned), else NULL          */
    bcl_mp_writer w;          /* other keys' bytes ...                       */
    size_t *off;              /* ... and their k + 1 offsets (PyMem)          */
    size_t k;
} bclpy_hm_keys;
/* key -> its bytes appended to w; -1 with the exception naming argname. */
int bclpy_hm_key_bytes(const bclpy_HashMap *hm, PyObject *key, bcl_mp_writer *w,
                       const char *argname);
/* keys -> *ks (always bclpy_hm_keys_free it); -1 with the exception naming
 * keys[i] (a compact ASCII str key is copied without a call). */
int bclpy_hm_keys_of(const bclpy_HashMap *hm, PyObject *keys, bclpy_hm_keys *ks);
void bclpy_hm_keys_free(bclpy_hm_keys *ks);
/* Their bytes, as the core's batches take them with ks->off. */
static inline const void *bclpy_hm_keys_data(const bclpy_hm_keys *ks)
{
    return ks->arr ? PyArray_DATA(ks->arr) : (const void *)ks->w.buf;
}
/* n values of any value type serialized back to back into w, value i at
 * (*off)[i] .. (*off)[i + 1] (n + 1 offsets, PyMem: PyMem_Free them, also
 * after a failure); -1 with the exception naming values[i], or the count
 * when vals is not a sequence of n. */
int bclpy_hm_values_bytes(const bclpy_HashMap *hm, PyObject *vals, Py_ssize_t n,
                          bcl_mp_writer *w, size_t **off);
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

#endif /* BCLPY_HASHMAP_PY_H */
