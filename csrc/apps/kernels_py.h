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

/* The type specs and function tables of the glue files; module.c adds them. */
extern PyMethodDef bclpy_gups_methods[];       /* gups_py.c */
extern PyMethodDef bclpy_dbg_methods[];        /* dbg_py.c: contig app's graph kernels */
extern PyType_Spec bclpy_DbgWalk_spec;         /* dbg_walk_py.c */
extern PyType_Spec bclpy_KmerReader_spec;      /* kmer_py.c: the k-mer app's kernels */
extern PyMethodDef bclpy_kmer_methods[];
extern PyType_Spec bclpy_IsxKeyGen_spec;       /* isx_py.c: ISx's keys and buckets */
extern PyMethodDef bclpy_isx_methods[];
extern PyMethodDef bclpy_graph_methods[];      /* graph_py.c: PageRank's per-target sums */

#endif /* BCLPY_KERNELS_PY_H */
