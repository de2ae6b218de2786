/*
 * configure.c -- what pybcl._core takes from the Python package above it.
 *
 * The package hands its objects down once, at import (pybcl/__init__.py
 * calls _core._configure), so the extension never imports the package
 * back: the function that auto-initialises the runtime (pybcl.init) and the
 * promise flag classes of pybcl/conprom.py.
 */
#include "bclpy.h"

#include <string.h>

#include "binding/generated/runtime.h"

static PyObject *py_configure_impl(PyObject *self, PyObject *init, PyObject *hashmap_promise,
                                   PyObject *queue_promise)
{
    bclpy_state *st = bclpy_module_state(self);
    Py_XSETREF(st->init_fn, Py_NewRef(init));
    Py_XSETREF(st->promise_cls[0], Py_NewRef(hashmap_promise));
    Py_XSETREF(st->promise_cls[1], Py_NewRef(queue_promise));
    Py_RETURN_NONE;
}

/* The package is imported before _core can be used (it is pybcl._core), so
 * a missing configuration means pybcl/__init__.py failed half-way. */
static int not_configured(void)
{
    PyErr_SetString(bclpy_exc(BCLPY_E_ERROR), "pybcl._core is not configured: import "
                    "pybcl (pybcl/__init__.py calls _core._configure)");
    return -1;
}

int bclpy_promise(PyObject *self, PyObject *p, const char *container, unsigned *bits)
{
    *bits = 0;
    if (p == NULL || p == Py_None)
        return 0;
    PyObject *cls = bclpy_type_state(Py_TYPE(self))->promise_cls[strcmp(container, "HashMap") != 0];
    if (!cls)
        return not_configured();
    int ok = (PyObject *)Py_TYPE(p) == cls ? 1 : PyObject_IsInstance(p, cls);
    if (ok < 0)
        return -1;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "promise must be a pybcl.ConProm.%s flag or None, "
                     "not %R", container, p);
        return -1;
    }
    long v = PyLong_AsLong(p);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *bits = (unsigned)v;
    return 0;
}

int bclpy_ensure_init(void)
{
    if (bcl_rt.initialized)
        return 0;
    bclpy_state *st = bclpy_core_state();
    if (!st)
        return -1;
    if (!st->init_fn)
        return not_configured();
    PyObject *r = PyObject_CallNoArgs(st->init_fn);
    if (!r)
        return -1;
    Py_DECREF(r);
    if (!bcl_rt.initialized) {
        PyErr_SetString(bclpy_exc(BCLPY_E_ERROR),
                        "pybcl.init() did not initialise the runtime");
        return -1;
    }
    return 0;
}

int bclpy_rank_arg(PyObject *o, const char *name, long long *out)
{
    if (bclpy_ensure_init() < 0 || bclpy_int_arg(o, name, LLONG_MIN, LLONG_MAX, out) < 0)
        return -1;
    if (*out >= 0 && *out < bcl_rt.nprocs)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s %R is not a rank in [0, %d)", name, o, bcl_rt.nprocs);
    return -1;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_configure_methods_clinic.h"
