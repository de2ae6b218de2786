/*
 * modinit.c -- what the module initialisation of both extensions (pybcl._core,
 * pybcl.apps._kernels) does alike: make the heap types of their specs, add
 * the function tables.
 */
#include "bclpy.h"

int bclpy_add_types(PyObject *m, PyTypeObject **types, PyType_Spec *const *specs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        types[i] = (PyTypeObject *)PyType_FromModuleAndSpec(m, specs[i], NULL);
        if (!types[i] || PyModule_AddType(m, types[i]) < 0)
            return -1;
    }
    return 0;
}

int bclpy_add_functions(PyObject *m, PyMethodDef *const *tables, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (PyModule_AddFunctions(m, tables[i]) < 0)
            return -1;
    return 0;
}

void bclpy_dealloc(PyObject *self)
{
    bclpy_dealloc_end(self);
}

int bclpy_add_new_ref(PyObject *m, const char *name, PyObject *obj)
{
    int rc = obj ? PyModule_AddObjectRef(m, name, obj) : -1;
    Py_XDECREF(obj);
    return rc;
}
