/*
 * lifetime_py.c -- what every container type of the binding shares about its
 * lifetime: registration at creation, burial at deallocation, the collective
 * close() and the context-manager methods (core: runtime/bcl_lifetime.h),
 * and the error of a container used when it is not usable.
 */
#include "bclpy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/generated/lifetime.h"

int bclpy_init_once(PyObject *self, const bclpy_life *l)
{
    if (l->live)
        PyErr_Format(PyExc_RuntimeError, "%s is already initialised", bclpy_type_name(self));
    return l->live ? -1 : 0;
}

int bclpy_life_started(bcl_status st, bclpy_life *l)
{
    if (st != BCL_OK) {
        bclpy_raise(st);
        return -1;
    }
    l->live = 1;
    l->epoch = bcl_rt.epoch;
    /* A failed registration (no memory) only means the storage is never
     * reclaimed before finalize: a leak on this rank, not a fault. */
    l->registered = bcl_life_register(&l->seq) == BCL_OK;
    return 0;
}

int bclpy_life_bury(const bclpy_life *l, const void *core, size_t size, bcl_life_free_fn fn)
{
    if (!bclpy_current(l))
        return 0;
    void *copy = malloc(size);
    if (!copy)
        return 1;    /* keeping the storage is safe; freeing it is not */
    memcpy(copy, core, size);
    if (!l->registered || bcl_life_bury(l->seq, copy, fn) != BCL_OK)
        fn(copy, 0);  /* private memory only: peers may still use the storage */
    return 1;
}

void bclpy_life_dealloc(const bclpy_life *l, const void *core, size_t size,
                        bcl_life_free_fn fn, void *stale_private)
{
    if (!bclpy_life_bury(l, core, size, fn) && l->live == 1)
        free(stale_private);        /* stale: its segments are gone */
}

int bclpy_life_closing(PyObject *self, const bclpy_life *l)
{
    const char *tname = bclpy_type_name(self);
    if (l->live == BCLPY_CLOSED)
        return 1;
    if (!bclpy_current(l))
        return bclpy_stale(tname, l->live);
    char what[80];
    snprintf(what, sizeof what, "%s.close()", tname);
    static const char *const names[] = { "#container (creation order)" };
    int64_t vals[] = { (int64_t)l->seq };
    bclpy_collective_begin();
    if (bclpy_agree(what, names, vals, 1) < 0)
        return -1;
    if (l->registered)
        bcl_life_forget(l->seq);
    return 0;
}

PyObject *bclpy_life_enter(PyObject *self, PyObject *unused)
{
    Py_INCREF(self);
    return self;
}

PyObject *bclpy_life_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3)
        return PyErr_Format(PyExc_TypeError, "__exit__() takes 3 arguments (%zd given)",
                            nargs);
    if (args[0] != Py_None)
        Py_RETURN_FALSE;     /* left open: the peers may not reach close() */
    PyObject *r = PyObject_CallMethod(self, "close", NULL);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

const char *bclpy_type_name(PyObject *o)
{
    const char *dot = strrchr(Py_TYPE(o)->tp_name, '.');
    return dot ? dot + 1 : Py_TYPE(o)->tp_name;
}

int bclpy_stale(const char *tname, int live)
{
    if (!live)
        PyErr_Format(bclpy_exc(BCLPY_E_ERROR), "%s was not initialised", tname);
    else if (live == BCLPY_CLOSED)
        PyErr_Format(PyExc_ValueError, "operation on a closed %s", tname);
    else if (!bcl_rt.initialized)
        PyErr_Format(bclpy_exc(BCLPY_E_ERROR), "%s cannot be used: pybcl was finalized",
                     tname);
    else
        PyErr_Format(bclpy_exc(BCLPY_E_ERROR), "%s was made before pybcl.finalize() and the "
                     "runtime was initialised again: containers do not survive a finalize "
                     "(make a new one)", tname);
    return -1;
}
