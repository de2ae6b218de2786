/*
 * io_py.h -- saving and loading containers.  io_py.c: the save method every
 * container's binding file calls, read and info, and the conversions
 * io_load_py.c (pybcl.load) shares; each container's file gives both a
 * view of its core container (bclpy_*_io_target).  Include after bclpy.h.
 */
#ifndef BCLPY_IO_PY_H
#define BCLPY_IO_PY_H

#include "io/bcl_sv_containers.h"

/* Fill *t (bcl_sv_target: the container as the core saves and loads it)
 * from a usable container; -1 with the stale container's
 * exception.  One per container binding file. */
typedef int (*bclpy_io_target_fn)(PyObject *self, bcl_sv_target *t);
int bclpy_hm_io_target(PyObject *self, bcl_sv_target *t);      /* hashmap_py.c */
int bclpy_array_io_target(PyObject *self, bcl_sv_target *t);   /* array_py.c */
int bclpy_bloom_io_target(PyObject *self, bcl_sv_target *t);   /* bloom_py.c */
int bclpy_queue_io_target(PyObject *self, bcl_sv_target *t);   /* queue_py.c */

/* c.save(path, meta=None): every container's save method, given its
 * container's target function. */
PyObject *bclpy_io_save(PyObject *self, bclpy_io_target_fn target, BCLPY_FASTARGS);
/* Define `fn`, the save() method of the container type Obj whose target
 * function is `target`.  It parses its own arguments: inside the collective,
 * so a rank whose call is malformed still takes part in the agreement. */
#define BCLPY_SAVE_METHOD(fn, Obj, target)                                       \
    static PyObject *fn(Obj *self, BCLPY_FASTARGS)                               \
    {                                                                            \
        return bclpy_io_save((PyObject *)self, (target), args, nargs, kwnames);  \
    }

/* ---- shared with io_load_py.c -------------------------------------------- */

/* A core failure as its Python exception (a directory: NotAFileError). */
PyObject *bclpy_io_raise(bcl_status st);
/* path (str, bytes or os.PathLike) -> a new bytes object. */
PyObject *bclpy_io_path(PyObject *path);
/* The file's info block plus what its header says, as one dict. */
PyObject *bclpy_io_info_dict(const bcl_sv_desc *d, const char *path);

#endif /* BCLPY_IO_PY_H */
