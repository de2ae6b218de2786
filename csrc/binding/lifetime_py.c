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

void bclpy_life_created(bclpy_life *l)
{
    /* A failed registration (no memory) only means the storage is never
     * reclaimed before finalize: a leak on this rank, not a fault. */
    l->registered = bcl_life_register(&l->seq) == BCL_OK;
}

void bclpy_life_start(int *live, uint64_t *epoch, bclpy_life *l)
{
    *live = 1;
    *epoch = bcl_rt.epoch;
    bclpy_life_created(l);
}

int bclpy_life_started(bcl_status st, int *live, uint64_t *epoch, bclpy_life *l)
{
    if (st != BCL_OK) {
        bclpy_raise(st);
        return -1;
    }
    bclpy_life_start(live, epoch, l);
    return 0;
}

int bclpy_init_once(const char *tname, int live)
{
    if (live)
        PyErr_Format(PyExc_RuntimeError, "%s is already initialised", tname);
    return live ? -1 : 0;
}

void bclpy_life_dealloc(int live, uint64_t epoch, const bclpy_life *l, const void *core,
                        size_t size, bcl_life_free_fn fn, void *stale_private)
{
    if (!bclpy_life_bury(live, epoch, l, core, size, fn) && live == 1)
        free(stale_private);        /* stale: its segments are gone */
}

int bclpy_life_bury(int live, uint64_t epoch, const bclpy_life *l, const void *core,
                    size_t size, bcl_life_free_fn fn)
{
    if (!bclpy_current(live, epoch))
        return 0;
    bclpy_life_drop(l, core, size, fn);
    return 1;
}

void bclpy_life_drop(const bclpy_life *l, const void *core, size_t size,
                     bcl_life_free_fn fn)
{
    void *copy = malloc(size);
    if (!copy)
        return;      /* keeping the storage is safe; freeing it is not */
    memcpy(copy, core, size);
    if (!l->registered || bcl_life_bury(l->seq, copy, fn) != BCL_OK)
        fn(copy, 0);  /* private memory only: peers may still use the storage */
}

int bclpy_life_close(const char *what, const bclpy_life *l)
{
    static const char *const names[] = { "#container (creation order)" };
    int64_t vals[] = { (int64_t)l->seq };
    bclpy_collective_begin();
    if (bclpy_agree(what, names, vals, 1) < 0)
        return -1;
    if (l->registered)
        bcl_life_forget(l->seq);
    return 0;
}

int bclpy_life_closing(const char *tname, int live, uint64_t epoch, const bclpy_life *l)
{
    if (live == BCLPY_CLOSED)
        return 1;
    if (!bclpy_current(live, epoch))
        return bclpy_stale(tname, live);
    char what[80];
    snprintf(what, sizeof what, "%s.close()", tname);
    return bclpy_life_close(what, l);
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
