/*
 * kernels_py.h -- pybcl.apps._kernels, the apps' extension: the CPython glue
 * of the app kernels (csrc/kernels/), apart from the library (pybcl._core).
 * It links the binding's argument, conversion and error helpers (bclpy.h)
 * and reaches _core's runtime only through _core's C API (binding/capi.h).
 */
#ifndef BCLPY_KERNELS_PY_H
#define BCLPY_KERNELS_PY_H

#include "binding/bclpy.h"
#include "binding/capi.h"

/* _core's C API, taken from its capsule when the module is imported. */
extern const bclpy_capi *bclpy_core;

/* The type specs and function tables of the glue files (from the spec);
 * module.c adds them. */
#include "apps/generated/module.h"

#endif /* BCLPY_KERNELS_PY_H */
