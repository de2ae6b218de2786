/* capi.c -- the capsule pybcl._core._C_API (capi.h). */
#include "binding/capi.h"

#include "binding/array_py.h"

static int array_unwrap(PyObject *obj, const char *argname, const bcl_array **a,
                        PyArray_Descr **dtype)
{
    return bclpy_array_unwrap(obj, argname, a, dtype);
}

static const bclpy_capi table = {
    .version = BCLPY_CAPI_VERSION,
    .array_unwrap = array_unwrap,
    .array_post = bcl_array_post,
    .flush = bcl_flush,
    .raise = bclpy_raise,
};

PyObject *bclpy_capi_capsule(void)
{
    return PyCapsule_New((void *)&table, BCLPY_CAPI_NAME, NULL);
}
