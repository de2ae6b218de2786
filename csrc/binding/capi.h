/*
 * capi.h -- what pybcl._core offers other C extensions: a table of its
 * functions in the capsule pybcl._core._C_API (CPython's way of sharing C
 * functions between extension modules, as datetime and NumPy do).  Its one
 * user is the apps' extension, pybcl.apps._kernels (csrc/apps/): the GUPS
 * loop posts its updates into a DArray of the one runtime that _core holds,
 * the contig walks look their k-mers up in a HashMap of it, and their
 * failures carry _core's message.
 */
#ifndef BCLPY_CAPI_H
#define BCLPY_CAPI_H

#include "binding/bclpy.h"
#include "containers/bcl_array_update.h"
#include "containers/hashmap/bcl_hashmap.h"

#define BCLPY_CAPI_NAME "pybcl._core._C_API"
#define BCLPY_CAPI_VERSION 2u

typedef struct bclpy_capi {
    unsigned version;               /* BCLPY_CAPI_VERSION of the _core built */
    /* obj is a usable pybcl.DArray or Array: its core array and dtype
     * (borrowed); -1 with TypeError naming argname, or pybcl.Error (stale). */
    int (*array_unwrap)(PyObject *obj, const char *argname, const bcl_array **a,
                        PyArray_Descr **dtype);
    /* bcl_array_post and bcl_flush of _core's runtime. */
    bcl_status (*array_post)(const bcl_array *a, uint64_t i, bcl_atomic_op op,
                             uint64_t operand);
    bcl_status (*flush)(void);
    /* obj is a usable pybcl.HashMap of uint64 keys and uint64 values: its
     * core map (borrowed); -1 with TypeError naming argname, or pybcl.Error
     * (stale), or RuntimeError inside one of its modify() fns. */
    int (*hashmap_u64_unwrap)(PyObject *obj, const char *argname, const bcl_hashmap **m);
    /* bcl_hm_find_many of _core's runtime (call it with the GIL released). */
    bcl_status (*hm_find_many)(const bcl_hashmap *m, const void *keys, size_t k, void *vals,
                               unsigned char *found, int promise);
    /* The Python exception of a failure of the functions above (NULL). */
    PyObject *(*raise)(bcl_status st);
} bclpy_capi;

/* The capsule (module.c adds it to pybcl._core as _C_API). */
PyObject *bclpy_capi_capsule(void);

#endif /* BCLPY_CAPI_H */
