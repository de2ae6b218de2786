/* capi.c -- the capsule pybcl._core._C_API (capi.h). */
#include "binding/capi.h"

#include "binding/array_py.h"
#include "binding/hashmap_py.h"

static int array_unwrap(PyObject *obj, const char *argname, const bcl_array **a,
                        PyArray_Descr **dtype)
{
    return bclpy_array_unwrap(obj, argname, a, dtype);
}

static int hashmap_u64_unwrap(PyObject *obj, const char *argname, const bcl_hashmap **m)
{
    bclpy_state *st = bclpy_core_state();
    if (!st)
        return -1;
    if (!PyObject_TypeCheck(obj, st->types[BCLPY_T_HASHMAP])) {
        PyErr_Format(PyExc_TypeError, "%s must be a pybcl.HashMap, not %.100s", argname,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    bclpy_HashMap *hm = (bclpy_HashMap *)obj;
    BCLPY_LIVE_OR(hm, -1);
    if (bclpy_elemtype_is_var(&hm->kt) || bclpy_elemtype_is_var(&hm->vt) ||
        hm->kt.dtype->type_num != NPY_UINT64 || hm->vt.dtype->type_num != NPY_UINT64) {
        PyErr_Format(PyExc_TypeError, "%s must map uint64 keys to uint64 values", argname);
        return -1;
    }
    if (bclpy_hm_refuse_in_modify(hm, "find_many") < 0)
        return -1;
    *m = &hm->m;
    return 0;
}

static const bclpy_capi table = {
    .version = BCLPY_CAPI_VERSION,
    .array_unwrap = array_unwrap,
    .array_post = bcl_array_post,
    .flush = bcl_flush,
    .hashmap_u64_unwrap = hashmap_u64_unwrap,
    .hm_find_many = bcl_hm_find_many,
    .raise = bclpy_raise,
};

PyObject *bclpy_capi_capsule(void)
{
    return PyCapsule_New((void *)&table, BCLPY_CAPI_NAME, NULL);
}
