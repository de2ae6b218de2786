/* hmbuffer_py.c -- pybcl._core.HashMapBuffer (placeholder until it lands). */
#include "bclpy.h"

#include "hashmap_py.h"

int bclpy_register_hashmap_buffer(PyObject *m) { (void)m; return 0; }
