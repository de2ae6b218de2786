/*
 * module.c -- pybcl.apps._kernels: the app kernels' functions and types.
 * Importing it imports pybcl._core, whose exceptions it raises and whose C
 * API (binding/capi.h) it calls.
 */
#define BCLPY_IMPORT_ARRAY
#include "apps/kernels_py.h"

#include "serial/bcl_hll.h"

const bclpy_capi *bclpy_core;

static const bclpy_named_type types[] = {
    {"DbgWalk", &bclpy_DbgWalkType},
    {"KmerReader", &bclpy_KmerReaderType},
    {"IsxKeyGen", &bclpy_IsxKeyGenType},
};

static PyMethodDef *const method_tables[] = {
    bclpy_gups_methods, bclpy_dbg_methods, bclpy_kmer_methods, bclpy_isx_methods,
    bclpy_graph_methods,
};

static int link_core(void)
{
    PyObject *core = PyImport_ImportModule("pybcl._core");
    if (!core)
        return -1;
    int rc = bclpy_adopt_exceptions(core);
    Py_DECREF(core);
    if (rc < 0 || !(bclpy_core = PyCapsule_Import(BCLPY_CAPI_NAME, 0)))
        return -1;
    if (bclpy_core->version != BCLPY_CAPI_VERSION) {
        PyErr_Format(PyExc_ImportError, "pybcl.apps._kernels was built for pybcl._core's "
                     "C API version %u, this _core has %u: rebuild pybcl",
                     BCLPY_CAPI_VERSION, bclpy_core->version);
        return -1;
    }
    return 0;
}

static struct PyModuleDef kernels_module = {
    PyModuleDef_HEAD_INIT, "pybcl.apps._kernels",
    "C kernels of pybcl's apps: k-mers, de Bruijn graph walks, ISx, GUPS, PageRank's sums.", -1,
    NULL, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    import_array();
    if (link_core() < 0)
        return NULL;
    PyObject *m = bclpy_module_create(&kernels_module, types, BCLPY_COUNT(types),
                                      method_tables, BCLPY_COUNT(method_tables));
    /* the k-mer reader's sketch size, for pybcl.apps.kmer */
    if (m && PyModule_AddIntConstant(m, "HLL_REGISTERS", BCL_HLL_REGISTERS) < 0)
        Py_CLEAR(m);
    return m;
}
