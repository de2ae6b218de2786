/*
 * io_load_py.c -- pybcl.load's C half (_io_load): open a saved file
 * collectively, have the package make the container it describes, and fill
 * it through the core (csrc/io/).  It takes the core container from each
 * container's binding file (their bclpy_*_io_target) and the shared
 * conversions from io_py.c.
 */
#include "bclpy.h"

#include <string.h>

#include "io_py.h"

#include "comm/bcl_agree.h"
#include "binding/generated/io.h"

static int io_target(PyObject *o, bcl_sv_target *t)
{
    memset(t, 0, sizeof *t);
    bclpy_state *st = bclpy_type_state(Py_TYPE(o));
    PyTypeObject *type = Py_TYPE(o), **types = st ? st->types : NULL;
    PyErr_Clear();          /* not a type of ours: the TypeError below */
    if (types && PyObject_TypeCheck(o, types[BCLPY_T_HASHMAP]))
        return bclpy_hm_io_target(o, t);
    if (types && (type == types[BCLPY_T_DARRAY] || type == types[BCLPY_T_ARRAY]))
        return bclpy_array_io_target(o, t);
    if (types && type == types[BCLPY_T_BLOOMFILTER])
        return bclpy_bloom_io_target(o, t);
    if (types && (type == types[BCLPY_T_FASTQUEUE] || type == types[BCLPY_T_CIRCULARQUEUE]))
        return bclpy_queue_io_target(o, t);
    PyErr_Format(PyExc_TypeError, "%.100s is not a pybcl container", type->tp_name);
    return -1;
}

/* make(info) on this rank: the container and its target, checked against
 * the file's kind; -1 with the exception. */
static int make_container(PyObject *make, PyObject *info, const bcl_sv_file *f,
                          PyObject **c, bcl_sv_target *t, int *k)
{
    *c = PyObject_CallOneArg(make, info);
    if (!*c || io_target(*c, t) < 0)
        return -1;
    if ((uint32_t)t->kind != f->d.kind) {
        PyErr_Format(PyExc_TypeError, "make() returned a %.100s for a saved %s",
                     Py_TYPE(*c)->tp_name, bcl_sv_kind_name(f->d.kind));
        return -1;
    }
    PyObject *kv = t->kind == BCL_SV_BLOOM ? PyDict_GetItemString(info, "k") : NULL;
    long long kk = 0;
    if (kv && bclpy_int_arg(kv, "k", 1, BCL_BLOOM_KMAX, &kk) < 0)
        return -1;
    *k = (int)kk;
    return 0;
}

/* Collective: its arguments convert inside the collective (the spec's
 * `collective:`), so a rank whose call is malformed still joins. */
static PyObject *py_io_load_impl(PyObject *self, PyObject *path_o, PyObject *make)
{
    PyObject *path = bclpy_io_path(path_o), *info = NULL, *c = NULL;
    if (!path || bclpy_ensure_init() < 0) {
        Py_XDECREF(path);
        return NULL;
    }
    const char *p = PyBytes_AS_STRING(path);
    static const char *const names[] = { "#path" };
    int64_t vals[] = { bcl_agree_digest(p) };
    bcl_sv_file f;
    bcl_status st;
    if (bclpy_agree("pybcl.load()", names, vals, 1) < 0)
        goto out;
    BCLPY_NOGIL(st = bcl_sv_open(p, &f));
    if (st != BCL_OK) {
        bclpy_io_raise(st);
        goto out;
    }
    bcl_sv_target t;
    int k = 0, made = (info = bclpy_io_info_dict(&f.d, p)) != NULL &&
                      make_container(make, info, &f, &c, &t, &k) == 0;
    Py_BEGIN_ALLOW_THREADS
    /* every rank learns whether every rank made its container */
    st = bcl_sv_agree(made ? BCL_OK : bcl_set_error(BCL_ERR_ARG, "%s: loading it failed on "
                                                     "another rank", p));
    if (st == BCL_OK)
        st = bcl_sv_load(&f, &t, k);
    bcl_status closed = bcl_sv_close(&f);
    if (st == BCL_OK)
        st = bcl_sv_agree(closed);
    Py_END_ALLOW_THREADS
    if (st != BCL_OK) {
        /* dropped, not closed: the ranks need not agree on that (a
         * container dropped everywhere is freed at a later collective) */
        Py_CLEAR(c);
        if (made || !PyErr_Occurred())     /* else this rank's own exception says more */
            bclpy_io_raise(st);
    }
out:
    Py_DECREF(path);
    Py_XDECREF(info);
    return c;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_io_load_methods_clinic.h"
