/*
 * errors.c -- the exceptions of pybcl._core (pybcl.Error and subclasses) and
 * the mapping from a core failure to them.  Every binding file raises
 * through here; it calls no other binding file.  The apps' extension links
 * it too, with the classes _core made (bclpy_adopt_exceptions).
 */
#include "bclpy.h"

#include "binding/generated/runtime.h"

PyObject *bclpy_Error, *bclpy_SegmentFull, *bclpy_ContainerFull, *bclpy_Empty;

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
    case BCL_ERR_SEGFULL: exc = bclpy_SegmentFull; break;
    case BCL_ERR_FULL: exc = bclpy_ContainerFull; break;
    case BCL_ERR_EMPTY: exc = bclpy_Empty; break;
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
    default: exc = bclpy_Error; break;
    }
    PyErr_SetString(exc, bcl_last_error());
    return NULL;
}

/* pybcl.<name> subclassing both queue.<base> and pybcl.Error, so code
 * written for the standard library's queues catches pybcl's too. */
static PyObject *queue_style_exception(const char *name, const char *base,
                                       const char *doc)
{
    PyObject *queue_mod = PyImport_ImportModule("queue");
    if (!queue_mod)
        return NULL;
    PyObject *std = PyObject_GetAttrString(queue_mod, base);
    Py_DECREF(queue_mod);
    if (!std)
        return NULL;
    PyObject *bases = PyTuple_Pack(2, std, bclpy_Error);
    Py_DECREF(std);
    if (!bases)
        return NULL;
    PyObject *exc = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
    Py_DECREF(bases);
    return exc;
}

int bclpy_add_exceptions(PyObject *m)
{
    bclpy_Error = PyErr_NewExceptionWithDoc("pybcl.Error", BCLPY_DOC_EXC_ERROR, NULL, NULL);
    if (!bclpy_Error)
        return -1;
    PyObject *bases = PyTuple_Pack(2, PyExc_MemoryError, bclpy_Error);
    if (!bases)
        return -1;
    bclpy_SegmentFull = PyErr_NewExceptionWithDoc("pybcl.SegmentFull",
                                                  BCLPY_DOC_EXC_SEGMENTFULL, bases, NULL);
    Py_DECREF(bases);
    bclpy_ContainerFull = queue_style_exception("pybcl.ContainerFull", "Full",
                                                BCLPY_DOC_EXC_CONTAINERFULL);
    bclpy_Empty = queue_style_exception("pybcl.Empty", "Empty", BCLPY_DOC_EXC_EMPTY);
    if (!bclpy_SegmentFull || !bclpy_ContainerFull || !bclpy_Empty)
        return -1;
    if (PyModule_AddObjectRef(m, "Error", bclpy_Error) < 0 ||
        PyModule_AddObjectRef(m, "SegmentFull", bclpy_SegmentFull) < 0 ||
        PyModule_AddObjectRef(m, "ContainerFull", bclpy_ContainerFull) < 0 ||
        PyModule_AddObjectRef(m, "Empty", bclpy_Empty) < 0)
        return -1;
    return 0;
}

int bclpy_adopt_exceptions(PyObject *core)
{
    PyObject **mine[] = { &bclpy_Error, &bclpy_SegmentFull, &bclpy_ContainerFull,
                          &bclpy_Empty };
    const char *names[] = { "Error", "SegmentFull", "ContainerFull", "Empty" };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (!(*mine[i] = PyObject_GetAttrString(core, names[i])))
            return -1;
    return 0;
}
