/*
 * collective_py.c -- collective calls of the binding agree first (bcl_agree.h).
 *
 * A collective constructor validates its arguments locally, then calls
 * bclpy_agree() right before the core's collective step.  Every path that
 * fails before reaching it must still take part in the agreement, or the
 * peers wait forever: the constructors run between bclpy_collective_begin()
 * and bclpy_collective_end(), which joins the agreement as "failed here"
 * when the body raised before agreeing.
 */
#include "bclpy.h"

#include "comm/bcl_agree.h"
#include "comm/bcl_gather.h"
#include "elemtype.h"
#include "binding/generated/collective.h"

static int agreed;      /* the running collective reached bclpy_agree (GIL held) */

void bclpy_collective_begin(void) { agreed = 0; }

void bclpy_collective_joined(void) { agreed = 1; }

static void join_as_failed(const char *what)
{
    if (!bcl_rt.initialized || agreed)
        return;
    agreed = 1;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);        /* keep our own exception, whatever happens */
    BCLPY_NOGIL((void)bcl_agree(what, BCL_ERR_ARG, NULL, NULL, 0));
    bcl_life_reap();                 /* containers every rank has dropped */
    PyErr_Restore(t, v, tb);
}

int bclpy_collective_end(int rc, const char *what)
{
    if (rc < 0)
        join_as_failed(what);
    return rc;
}

int bclpy_agree(const char *what, const char *const *names, const int64_t *vals, int n)
{
    bcl_status st;
    agreed = 1;
    BCLPY_NOGIL(st = bcl_agree(what, BCL_OK, names, vals, n));
    bcl_life_reap();                 /* containers every rank has dropped */
    if (st != BCL_OK) {
        bclpy_raise(st);
        return -1;
    }
    return 0;
}

int bclpy_barrier_agree(const char *what, const char *const *names, const int64_t *vals,
                        int n)
{
    bcl_status st;
    agreed = 1;
    BCLPY_NOGIL(st = bcl_barrier_agree(what, names, vals, n));
    if (st != BCL_OK) {
        bclpy_raise(st);
        return -1;
    }
    return 0;
}

int64_t bclpy_elemtype_digest(const bclpy_elemtype *t)
{
    char buf[160];
    PyObject *s = t->dtype ? PyObject_Str((PyObject *)t->dtype) : NULL;
    const char *name = s ? PyUnicode_AsUTF8(s) : NULL;
    snprintf(buf, sizeof buf, "%d/%zu/%s", (int)t->kind, t->slot_size, name ? name : "-");
    Py_XDECREF(s);
    PyErr_Clear();
    return bcl_agree_digest(buf);
}

int64_t bclpy_dtype_digest(PyArray_Descr *d)
{
    PyObject *s = PyObject_Str((PyObject *)d);
    const char *name = s ? PyUnicode_AsUTF8(s) : NULL;
    int64_t h = bcl_agree_digest(name ? name : "-");
    Py_XDECREF(s);
    PyErr_Clear();
    return h;
}

/* Python-level validation of a collective call failed on this rank; take
 * part in its agreement so the peers raise too. */
static PyObject *py_collective_failed_impl(PyObject *self, const char *what)
{
    bclpy_collective_begin();
    PyErr_SetString(PyExc_ValueError, "placeholder");   /* join_as_failed keeps it */
    join_as_failed(what);
    PyErr_Clear();
    Py_RETURN_NONE;
}

/* The Python package's collectives agree too. */
static PyObject *py_agree_impl(PyObject *self, const char *what, PyObject *names,
                               PyObject *values)
{
    if (!PyTuple_Check(names) || !PyTuple_Check(values))
        return PyErr_Format(PyExc_TypeError, "agree: names and values must be tuples");
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    if (n != PyTuple_GET_SIZE(values) || n > BCL_AGREE_MAX)
        return PyErr_Format(PyExc_ValueError, "agree: %zd names for %zd values (max %d)",
                            n, PyTuple_GET_SIZE(values), BCL_AGREE_MAX);
    const char *nm[BCL_AGREE_MAX];
    int64_t v[BCL_AGREE_MAX];
    for (Py_ssize_t i = 0; i < n; i++) {
        nm[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
        v[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(values, i));
        if (!nm[i] || (v[i] == -1 && PyErr_Occurred()))
            return NULL;
    }
    if (bclpy_ensure_init() < 0)
        return NULL;
    bclpy_collective_begin();
    if (bclpy_agree(what, nm, v, (int)n) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Every rank's bytes, in rank order, on pybcl's own communicator
 * (bcl_gather.h); callers agree on the call first. */
static PyObject *py_allgather_bytes_impl(PyObject *self, PyObject *data)
{
    if (!PyBytes_Check(data))
        return PyErr_Format(PyExc_TypeError, "allgather_bytes: data must be bytes, "
                            "not %.100s", Py_TYPE(data)->tp_name);
    if (bclpy_ensure_init() < 0)
        return NULL;
    unsigned char *all;
    uint64_t *sizes;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_allgather_bytes(PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data),
                                         &all, &sizes));
    if (st != BCL_OK)
        return bclpy_raise(st);
    PyObject *out = PyList_New(bcl_rt.nprocs);
    size_t at = 0;
    for (int r = 0; out && r < bcl_rt.nprocs; r++) {
        PyObject *b = PyBytes_FromStringAndSize((const char *)all + at, (Py_ssize_t)sizes[r]);
        if (!b)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, r, b);
        at += sizes[r];
    }
    free(all);
    free(sizes);
    return out;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_collective_methods_clinic.h"
