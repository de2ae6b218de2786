/*
 * bcl_sv_read.h -- the one reader of saved-container files.
 *
 * It reads through a `pread` callback, so the same code serves a plain
 * process (POSIX pread, bcl_sv_posix.h: pybcl.io) and a job loading a
 * container (MPI_File_read_at, bcl_sv_mpiio.h: pybcl.load).  Every byte it
 * hands out belongs to a part whose checksum it verified, and the parts of
 * a msgpack column must hold exactly their rows' objects.
 */
#ifndef BCL_SV_READ_H
#define BCL_SV_READ_H

#include <stddef.h>
#include <stdint.h>

#include "io/bcl_sv_format.h"

typedef struct bcl_sv_source {
    /* n bytes at file offset off into buf, all of them, or an error */
    bcl_status (*pread)(void *ctx, uint64_t off, void *buf, size_t n);
    void *ctx;
    const char *path;      /* named by every message                       */
    uint64_t size;         /* the file's size in bytes                     */
} bcl_sv_source;

/* The descriptor's bytes, checked by bcl_sv_head (bcl_sv_parse checks the
 * rest): *bytes malloc'd, *len of them. */
bcl_status bcl_sv_read_desc(const bcl_sv_source *s, unsigned char **bytes, uint64_t *len);

/* Bytes that rows [r0, r1) of column c take in the file (msgpack columns:
 * r0 and r1 must be row-group boundaries, or the result is UINT64_MAX). */
uint64_t bcl_sv_span_bytes(const bcl_sv_desc *d, int c, uint64_t r0, uint64_t r1);

/* Rows [r0, r1) of column c into dst (bcl_sv_span_bytes of them).  Fixed
 * width: any rows; the parts at either end are read whole to check them.
 * msgpack: whole row groups only (BCL_ERR_ARG otherwise). */
bcl_status bcl_sv_read_rows(const bcl_sv_desc *d, const bcl_sv_source *s, int c,
                            uint64_t r0, uint64_t r1, void *dst);

/* `items` msgpack objects back to back in data[0, len), filling it
 * exactly; ends[i] (when ends is not NULL) is the end offset of object i.
 * BCL_ERR_TYPE if one holds an ext value (a GlobalPtr: pybcl's only ext
 * type), BCL_ERR_DECODE if they are malformed or not `items` of them. */
bcl_status bcl_sv_objects(const void *data, size_t len, uint64_t items, uint64_t *ends);

/* bcl_sv_objects into *ends, a malloc'd array of n end offsets. */
bcl_status bcl_sv_object_ends(const unsigned char *data, size_t len, uint64_t n,
                              uint64_t **ends);

#endif /* BCL_SV_READ_H */
