/*
 * modinit.c -- what the module initialisation of both extensions (pybcl._core,
 * pybcl.apps._kernels) does alike: create the module with its types and
 * function tables, add a new object to it.
 */
#include "bclpy.h"

static int add_types(PyObject *m, const bclpy_named_type *types, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (PyType_Ready(types[i].type) < 0 ||
            PyModule_AddObjectRef(m, types[i].name, (PyObject *)types[i].type) < 0)
            return -1;
    return 0;
}

static int add_functions(PyObject *m, PyMethodDef *const *tables, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (PyModule_AddFunctions(m, tables[i]) < 0)
            return -1;
    return 0;
}

PyObject *bclpy_module_create(PyModuleDef *def, const bclpy_named_type *types,
                              size_t ntypes, PyMethodDef *const *tables, size_t ntables)
{
    PyObject *m = PyModule_Create(def);
    if (m && (add_types(m, types, ntypes) < 0 || add_functions(m, tables, ntables) < 0))
        Py_CLEAR(m);
    return m;
}

int bclpy_add_new_ref(PyObject *m, const char *name, PyObject *obj)
{
    int rc = obj ? PyModule_AddObjectRef(m, name, obj) : -1;
    Py_XDECREF(obj);
    return rc;
}
