/*
 * io_py.h -- saving and loading containers (io_py.c): what each container's
 * binding file gives the io binding, a view of its core container.
 * Include after bclpy.h.
 */
#ifndef BCLPY_IO_PY_H
#define BCLPY_IO_PY_H

#include "io/bcl_sv_containers.h"

typedef struct bclpy_io_target {
    bcl_sv_kind kind;
    bcl_hashmap *hm;       /* HashMap                                        */
    bcl_array *arr;        /* DArray, Array                                  */
    bcl_bloom *bloom;      /* BloomFilter                                    */
    bcl_queue *q;          /* FastQueue, CircularQueue                       */
    int var;               /* a queue of bytes/str/object elements           */
} bclpy_io_target;

/* Fill *t from a usable container of the file's type; -1 with the stale
 * container's exception.  One per container binding file. */
int bclpy_hm_io_target(PyObject *self, bclpy_io_target *t);      /* hashmap_py.c */
int bclpy_array_io_target(PyObject *self, bclpy_io_target *t);   /* array_py.c */
int bclpy_bloom_io_target(PyObject *self, bclpy_io_target *t);   /* bloom_py.c */
int bclpy_queue_io_target(PyObject *self, bclpy_io_target *t);   /* queue_py.c */

/* c.save(path, meta=None): every container's save method. */
PyObject *bclpy_io_save(PyObject *self, BCLPY_FASTARGS);

#endif /* BCLPY_IO_PY_H */
