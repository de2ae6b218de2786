/*
 * module.c -- pybcl.apps._kernels: the app kernels' functions and types.
 * Importing it imports pybcl._core, whose exceptions it raises and whose C
 * API (binding/capi.h) it calls.
 */
#define BCLPY_IMPORT_ARRAY
#include "apps/kernels_py.h"

#include "serial/bcl_hll.h"

/* A table of C functions of the one runtime per process (_core's static
 * table, read-only), called from C callbacks with no module at hand: it
 * stays process-wide, unlike the types (the module state). */
const bclpy_capi *bclpy_core;

typedef struct kernels_state {
    PyTypeObject *types[KERNELS_NTYPES];
} kernels_state;

static PyType_Spec *const specs[KERNELS_NTYPES] = KERNELS_TYPE_SPECS;
static PyMethodDef *const method_tables[] = KERNELS_FUNCTION_TABLES;

static int link_core(void)
{
    PyObject *core = PyImport_ImportModule("pybcl._core");   /* its exceptions */
    if (!core)
        return -1;
    Py_DECREF(core);
    if (!(bclpy_core = PyCapsule_Import(BCLPY_CAPI_NAME, 0)))
        return -1;
    if (bclpy_core->version != BCLPY_CAPI_VERSION) {
        PyErr_Format(PyExc_ImportError, "pybcl.apps._kernels was built for pybcl._core's "
                     "C API version %u, this _core has %u: rebuild pybcl",
                     BCLPY_CAPI_VERSION, bclpy_core->version);
        return -1;
    }
    return 0;
}

#define STATE_REFS(st, DO)                                                      \
    do {                                                                        \
        for (int i_ = 0; i_ < KERNELS_NTYPES; i_++)                                     \
            DO((st)->types[i_]);                                                \
    } while (0)

static int kernels_exec(PyObject *m)
{
    import_array1(-1);
    kernels_state *st = PyModule_GetState(m);
    /* the k-mer reader's sketch size, for pybcl.apps.kmer */
    if (link_core() < 0 || bclpy_add_types(m, st->types, specs, KERNELS_NTYPES) < 0 ||
        bclpy_add_functions(m, method_tables, BCLPY_COUNT(method_tables)) < 0 ||
        PyModule_AddIntConstant(m, "HLL_REGISTERS", BCL_HLL_REGISTERS) < 0)
        return -1;
    return 0;
}

BCLPY_MODULE_DEF(kernels_module, "pybcl.apps._kernels",
                 "C kernels of pybcl's apps: k-mers, de Bruijn graph walks, ISx, GUPS, "
                 "PageRank's sums.", kernels_state, STATE_REFS, kernels_exec, NULL);

PyMODINIT_FUNC PyInit__kernels(void)
{
    return PyModuleDef_Init(&kernels_module);
}
