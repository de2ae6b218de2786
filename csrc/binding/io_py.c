/*
 * io_py.c -- saving and loading containers (csrc/io/): every container's
 * save() method, and the functions pybcl/io.py builds pybcl.load,
 * pybcl.io.read and pybcl.io.info on.
 *
 * The info block a file carries (types, sizes, meta) is made in Python
 * (pybcl/io.py's describe, handed down once by _io_configure) and read back
 * there; this file converts paths and objects and calls the core.  read and
 * info use the plain-process reader (bcl_sv_posix.h): no MPI, no runtime.
 */
#include "bclpy.h"

#include <errno.h>
#include <string.h>

#include "io_py.h"
#include "msgpack_py.h"

#include "comm/bcl_agree.h"
#include "io/bcl_sv_posix.h"
#include "serial/bcl_hash.h"
#include "binding/generated/io.h"

/* A directory is both an IsADirectoryError and, for pybcl.load's
 * "not a pybcl file" contract, a ValueError (made once, kept in st). */
static PyObject *not_a_file_error(bclpy_state *st)
{
    if (st && !st->not_a_file)
        st->not_a_file = bclpy_new_exception(
            "pybcl.io.NotAFileError", "A directory where a pybcl file belongs (an "
            "IsADirectoryError and a ValueError).", PyExc_IsADirectoryError, PyExc_ValueError);
    return st ? st->not_a_file : NULL;
}

PyObject *bclpy_io_raise(bcl_status st)
{
    if (st != BCL_ERR_OS || bcl_last_os_errno() != EISDIR)
        return bclpy_raise(st);
    PyObject *exc = not_a_file_error(bclpy_core_state());
    /* an instance, as bclpy_raise's OSErrors (errors.c says why) */
    PyObject *err = exc ? PyObject_CallFunction(exc, "is", EISDIR, bcl_last_error()) : NULL;
    if (err) {
        PyErr_SetObject(exc, err);
        Py_DECREF(err);
    }
    return NULL;
}

/* path (str, bytes or os.PathLike) -> a new bytes object. */
PyObject *bclpy_io_path(PyObject *path)
{
    PyObject *b = NULL;
    if (PyUnicode_FSConverter(path, &b))
        return b;
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "path must be a str or os.PathLike, not %.100s",
                     Py_TYPE(path)->tp_name);
    }
    return NULL;
}

/* dict[key] = v, taking v; -1 when v is NULL or the store fails. */
static int set_new(PyObject *dict, const char *key, PyObject *v)
{
    int rc = v ? PyDict_SetItemString(dict, key, v) : -1;
    Py_XDECREF(v);
    return rc;
}

/* The file's info block plus what its header says, as one dict. */
PyObject *bclpy_io_info_dict(const bcl_sv_desc *d, const char *path)
{
    PyObject *info = bclpy_unpack(d->info, (size_t)d->info_len);
    if (info && !PyDict_Check(info)) {
        Py_DECREF(info);
        return PyErr_Format(PyExc_ValueError, "%s: damaged pybcl file: its info is not a "
                            "map", path);
    }
    if (info && (set_new(info, "kind", PyUnicode_FromString(bcl_sv_kind_name(d->kind))) < 0 ||
                 set_new(info, "entries", PyLong_FromUnsignedLongLong(d->entries)) < 0 ||
                 set_new(info, "ranks", PyLong_FromUnsignedLong(d->ranks)) < 0 ||
                 set_new(info, "format_version", PyLong_FromUnsignedLong(d->version)) < 0))
        Py_CLEAR(info);
    return info;
}

/* ---- save ------------------------------------------------------------------ */

/* The info block describe() makes of the container and meta: bytes. */
static PyObject *describe(PyObject *self, PyObject *meta)
{
    PyObject *describe_fn = bclpy_type_state(Py_TYPE(self))->describe_fn;
    if (!describe_fn)
        return PyErr_Format(bclpy_exc(BCLPY_E_ERROR), "pybcl._core is not configured for "
                            "saving: import pybcl (pybcl/io.py calls _core._io_configure)");
    PyObject *info = PyObject_CallFunctionObjArgs(describe_fn, self, meta ? meta : Py_None,
                                                  NULL);
    if (info && !PyBytes_Check(info)) {
        Py_DECREF(info);
        return PyErr_Format(PyExc_TypeError, "describe() must return bytes");
    }
    return info;
}

static PyObject *save_body(PyObject *self, bclpy_io_target_fn target, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames, const char *what)
{
    static const char *const names[] = BCLPY_ARGS_SAVE;
    PyObject *a[2], *path = NULL, *info = NULL;
    bcl_sv_target t;
    memset(&t, 0, sizeof t);
    if (bclpy_parse("save", args, nargs, kwnames, names, 1, 2, a) < 0 ||
        target(self, &t) < 0 || !(path = bclpy_io_path(a[0])))
        return NULL;
    if (!(info = describe(self, a[1]))) {
        Py_DECREF(path);
        return NULL;
    }
    const char *p = PyBytes_AS_STRING(path), *ib = PyBytes_AS_STRING(info);
    size_t ilen = (size_t)PyBytes_GET_SIZE(info);
    if (bcl_sv_objects(ib, ilen, 1, NULL) == BCL_ERR_TYPE) {
        Py_DECREF(path);
        Py_DECREF(info);
        return PyErr_Format(PyExc_TypeError, "meta holds a GlobalPtr, which cannot be saved "
                            "(a pointer does not outlive its job)");
    }
    static const char *const agreed[] = { "#path", "#meta" };
    int64_t vals[] = { bcl_agree_digest(p), (int64_t)(bcl_hash64(ib, ilen, 0) >> 1) };
    PyObject *r = NULL;
    if (bclpy_barrier_agree(what, agreed, vals, 2) == 0) {
        bcl_status st;
        BCLPY_NOGIL(st = bcl_sv_save(&t, p, ib, ilen));
        r = st == BCL_OK ? Py_NewRef(Py_None) : bclpy_io_raise(st);
    }
    Py_DECREF(path);
    Py_DECREF(info);
    return r;
}

PyObject *bclpy_io_save(PyObject *self, bclpy_io_target_fn target, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames)
{
    char what[64];
    PyOS_snprintf(what, sizeof what, "%s.save()", bclpy_type_name(self));
    bclpy_collective_begin();
    PyObject *r = save_body(self, target, args, nargs, kwnames, what);
    bclpy_collective_end(r ? 0 : -1, what);
    return r;
}

/* ---- read and info, without MPI ------------------------------------------- */

static int posix_open(PyObject *path_o, PyObject **path, bcl_sv_pfile *f)
{
    if (!(*path = bclpy_io_path(path_o)))
        return -1;
    bcl_status st;
    const char *p = PyBytes_AS_STRING(*path);
    BCLPY_NOGIL(st = bcl_sv_posix_open(p, f));
    if (st == BCL_OK)
        return 0;
    Py_CLEAR(*path);
    bclpy_io_raise(st);
    return -1;
}

/* Column c of an open file: a uint8 array of its bytes, or the list of its
 * rows' objects (keys of a map decode as keys: arrays become tuples). */
static PyObject *read_column(bcl_sv_pfile *f, int c)
{
    const bcl_sv_desc *d = &f->d;
    uint64_t len = bcl_sv_span_bytes(d, c, 0, d->entries);
    PyObject *bytes = bclpy_new_1d((npy_intp)len, NPY_UINT8);
    if (!bytes)
        return NULL;
    bcl_status st;
    BCLPY_NOGIL(st = bcl_sv_read_rows(d, &f->src, c, 0, d->entries,
                                      PyArray_DATA((PyArrayObject *)bytes)));
    if (st != BCL_OK) {
        Py_DECREF(bytes);
        return bclpy_io_raise(st);
    }
    if (d->col[c].width)
        return bytes;
    const unsigned char *p = PyArray_DATA((PyArrayObject *)bytes);
    uint64_t *ends = NULL;
    PyObject *list = NULL;
    if ((st = bcl_sv_object_ends(p, (size_t)len, d->entries, &ends)) != BCL_OK)
        bclpy_io_raise(st);
    else if ((list = PyList_New((Py_ssize_t)d->entries))) {
        int keys = d->kind == BCL_SV_HASHMAP && c == 0;
        for (uint64_t i = 0; i < d->entries; i++) {
            uint64_t a = i ? ends[i - 1] : 0;
            PyObject *o = keys ? bclpy_unpack_key(p + a, (size_t)(ends[i] - a))
                               : bclpy_unpack(p + a, (size_t)(ends[i] - a));
            if (!o) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, o);
        }
    }
    free(ends);
    Py_DECREF(bytes);
    return list;
}

/* The saved file at path_o: its info dict, and with `columns` the pair
 * (info, list of its columns). */
static PyObject *describe_file(PyObject *path_o, int columns)
{
    PyObject *path;
    bcl_sv_pfile f;
    if (posix_open(path_o, &path, &f) < 0)
        return NULL;
    PyObject *info = bclpy_io_info_dict(&f.d, PyBytes_AS_STRING(path));
    PyObject *cols = info && columns ? PyList_New(f.d.ncols) : NULL;
    for (uint32_t c = 0; cols && c < f.d.ncols; c++) {
        PyObject *col = read_column(&f, (int)c);
        if (!col)
            Py_CLEAR(cols);
        else
            PyList_SET_ITEM(cols, c, col);
    }
    bcl_sv_posix_close(&f);
    Py_DECREF(path);
    if (!columns)
        return info;
    PyObject *r = cols ? PyTuple_Pack(2, info, cols) : NULL;
    Py_XDECREF(info);
    Py_XDECREF(cols);
    return r;
}

static PyObject *py_io_info_impl(PyObject *self, PyObject *path)
{
    return describe_file(path, 0);
}

static PyObject *py_io_read_impl(PyObject *self, PyObject *path)
{
    return describe_file(path, 1);
}

static PyObject *py_io_configure_impl(PyObject *self, PyObject *describe)
{
    bclpy_state *st = bclpy_module_state(self);
    Py_XSETREF(st->describe_fn, Py_NewRef(describe));
    PyObject *exc = not_a_file_error(st);
    return exc ? Py_NewRef(exc) : NULL;
}

/* The method tables, their argument parsing and the types (from the spec). */
#include "binding/generated/bclpy_io_methods_clinic.h"
