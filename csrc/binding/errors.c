/*
 * errors.c -- the exceptions of pybcl._core (pybcl.Error and subclasses) and
 * the mapping from a core failure to them.  Every binding file raises
 * through here; it calls no other binding file.  The apps' extension links
 * it too and raises the classes _core made: they live in _core's module
 * state, found through sys.modules (a failure has no object of ours at
 * hand; it is the slow path).
 */
#include "bclpy.h"

#include <stdarg.h>
#include <string.h>

#include "binding/generated/runtime.h"

#define CORE_NAME "pybcl._core"

/* m is pybcl._core: its state, else NULL. */
static bclpy_state *core_state_of(PyObject *m)
{
    PyModuleDef *def = m && PyModule_Check(m) ? PyModule_GetDef(m) : NULL;
    return def && !strcmp(def->m_name, CORE_NAME) ? PyModule_GetState(m) : NULL;
}

/* pybcl._core's state, or NULL (with no exception set by a missing module). */
static bclpy_state *find_core(void)
{
    /* borrowed: sys.modules keeps the module, and with it the state, alive */
    PyObject *m = PyDict_GetItemString(PyImport_GetModuleDict(), CORE_NAME);
    return core_state_of(m);
}

/* PyType_GetModuleByDef's walk (3.11+), by the module's name so that this
 * file needs no module definition, and along tp_base: our types add C
 * fields, so each is the solid base of its Python subclasses (pybcl.HashMap
 * over pybcl._core.HashMap), one step up. */
bclpy_state *bclpy_type_state(PyTypeObject *type)
{
    for (PyTypeObject *t = type; t; t = t->tp_base) {
        bclpy_state *st = t->tp_flags & Py_TPFLAGS_HEAPTYPE
                              ? core_state_of(((PyHeapTypeObject *)t)->ht_module)
                              : NULL;
        if (st)
            return st;
    }
    PyErr_Format(PyExc_TypeError, "%s is not a type of " CORE_NAME, type->tp_name);
    return NULL;
}

bclpy_state *bclpy_core_state(void)
{
    bclpy_state *st = find_core();
    if (!st && !PyErr_Occurred())
        PyErr_SetString(PyExc_ImportError, CORE_NAME " is not imported: import pybcl");
    return st;
}

PyObject *bclpy_error_from(PyObject *type, const char *fmt, ...)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (msg)
        PyErr_Format(type ? type : t ? t : PyExc_RuntimeError, "%U: %S", msg,
                     v ? v : Py_None);
    Py_XDECREF(msg);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return NULL;
}

PyObject *bclpy_exc(enum bclpy_exc_id id)
{
    bclpy_state *st = find_core();
    return st && st->exc[id] ? st->exc[id] : PyExc_RuntimeError;
}

PyObject *bclpy_raise(bcl_status st)
{
    PyObject *exc;
    switch (st) {
    case BCL_ERR_INTERRUPTED:       /* the signal handler's exception is set */
        if (PyErr_Occurred())
            return NULL;
        exc = PyExc_KeyboardInterrupt;
        break;
    case BCL_ERR_ARG: case BCL_ERR_DECODE: exc = PyExc_ValueError; break;
    case BCL_ERR_TYPE: exc = PyExc_TypeError; break;
    case BCL_ERR_BOUNDS: exc = PyExc_IndexError; break;
    case BCL_ERR_SEGFULL: exc = bclpy_exc(BCLPY_E_SEGMENTFULL); break;
    case BCL_ERR_FULL: exc = bclpy_exc(BCLPY_E_CONTAINERFULL); break;
    case BCL_ERR_EMPTY: exc = bclpy_exc(BCLPY_E_EMPTY); break;
    case BCL_ERR_NOMEM: exc = PyExc_MemoryError; break;
    case BCL_ERR_OVERFLOW: exc = PyExc_OverflowError; break;
    case BCL_ERR_REENTRY: exc = PyExc_RuntimeError; break;
    case BCL_ERR_OS: {
        /* OSError(errno, message) is the errno's subclass (FileNotFoundError...).
         * Raised as an instance of that subclass: an unnormalized (OSError,
         * args) pair stays typed OSError on Python 3.10 once fetched and
         * restored, and `except FileNotFoundError` would miss it. */
        PyObject *err = PyObject_CallFunction(PyExc_OSError, "is", bcl_last_os_errno(),
                                              bcl_last_error());
        if (err) {
            PyErr_SetObject((PyObject *)Py_TYPE(err), err);
            Py_DECREF(err);
        }
        return NULL;
    }
    default: exc = bclpy_exc(BCLPY_E_ERROR); break;
    }
    PyErr_SetString(exc, bcl_last_error());
    return NULL;
}

PyObject *bclpy_new_exception(const char *name, const char *doc, PyObject *base,
                              PyObject *base2)
{
    PyObject *bases = PyTuple_Pack(base2 ? 2 : 1, base, base2);
    PyObject *exc = bases ? PyErr_NewExceptionWithDoc(name, doc, bases, NULL) : NULL;
    Py_XDECREF(bases);
    return exc;
}

/* pybcl.<name> subclassing both queue.<base> and pybcl.Error, so code
 * written for the standard library's queues catches pybcl's too. */
static PyObject *queue_style_exception(const char *name, const char *base,
                                       const char *doc, PyObject *error)
{
    PyObject *queue_mod = PyImport_ImportModule("queue");
    PyObject *std = queue_mod ? PyObject_GetAttrString(queue_mod, base) : NULL;
    PyObject *exc = std ? bclpy_new_exception(name, doc, std, error) : NULL;
    Py_XDECREF(queue_mod);
    Py_XDECREF(std);
    return exc;
}

int bclpy_add_exceptions(PyObject *m, bclpy_state *st)
{
    PyObject **e = st->exc;
    e[BCLPY_E_ERROR] = bclpy_new_exception("pybcl.Error", BCLPY_DOC_EXC_ERROR,
                                           PyExc_Exception, NULL);
    if (!e[BCLPY_E_ERROR])
        return -1;
    e[BCLPY_E_SEGMENTFULL] = bclpy_new_exception("pybcl.SegmentFull", BCLPY_DOC_EXC_SEGMENTFULL,
                                                 PyExc_MemoryError, e[BCLPY_E_ERROR]);
    e[BCLPY_E_CONTAINERFULL] = queue_style_exception(
        "pybcl.ContainerFull", "Full", BCLPY_DOC_EXC_CONTAINERFULL, e[BCLPY_E_ERROR]);
    e[BCLPY_E_EMPTY] = queue_style_exception("pybcl.Empty", "Empty", BCLPY_DOC_EXC_EMPTY,
                                             e[BCLPY_E_ERROR]);
    static const char *const names[BCLPY_NEXC] = {"Error", "SegmentFull", "ContainerFull",
                                                  "Empty"};
    for (int i = 0; i < BCLPY_NEXC; i++)
        if (!e[i] || PyModule_AddObjectRef(m, names[i], e[i]) < 0)
            return -1;
    return 0;
}
