/*
 * bcl_sv_format.h -- the saved-container file format, version 1
 * (docs/saving.md is the specification; this is its one implementation).
 *
 * A file holds one container: a fixed 128-byte header, a column table, a
 * part table and an info block (together "the descriptor", covered by one
 * checksum), then, from data_off on, the columns' data.  Every integer of
 * the descriptor is little-endian, whatever the host.
 *
 *   header   0  magic "\x89PYBCL\r\n"     8 bytes
 *            8  version                   u32 (1)
 *           12  kind                      u32 (bcl_sv_kind)
 *           16  ranks                     u32 (the saving job's rank count)
 *           20  ncols                     u32 (1 or 2)
 *           24  entries                   u64 (rows of every column)
 *           32  ngroups                   u64 (row groups)
 *           40  info_len                  u64
 *           48  data_off                  u64 (first data byte; a multiple of 4096)
 *           56  file_size                 u64
 *           64  checksum                  u64 (XXH64, seed 0, of the descriptor
 *                                              with these 8 bytes zero)
 *           72  reserved                  56 zero bytes
 *   columns  ncols entries of 32 bytes: width (bytes per row; 0: each row
 *            is one msgpack object), items (= entries), offset, bytes
 *   parts    ngroups * ncols entries of 32 bytes, group-major (part (g, c)
 *            is entry g * ncols + c): offset, length, items, checksum
 *            (XXH64, seed 0, of the part's bytes)
 *   info     info_len bytes: one msgpack map (types, parameters, meta)
 *
 * A row group is a run of rows cut the same way in every column (a map's
 * keys and values); its parts tile each column in order.  Columns start on
 * 4096-byte boundaries; padding is zero and outside every checksum.
 *
 * Nothing here touches MPI or the runtime: the plain-process reader
 * (pybcl.io), the collective loader and the fuzz target share it.
 */
#ifndef BCL_SV_FORMAT_H
#define BCL_SV_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

#define BCL_SV_MAGIC "\x89PYBCL\r\n"
#define BCL_SV_MAGIC_LEN 8
#define BCL_SV_VERSION 1u
#define BCL_SV_HEAD 128u           /* bytes of the fixed header              */
#define BCL_SV_ENTRY 32u           /* bytes of a column or part entry        */
#define BCL_SV_ALIGN 4096u         /* data_off and every column start        */
#define BCL_SV_MAX_COLS 2
/* A row group's bytes (all columns), about: small enough that a loader
 * reading a range verifies at most two parts it does not need whole, large
 * enough that the part table stays a few KiB per GiB. */
#define BCL_SV_GROUP_BYTES ((uint64_t)4 << 20)

/* A fuzzing build accepts any checksum, so that mutated tables and parts
 * reach the checks behind it (libpng and others do the same). */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define BCL_SV_CHECKSUMS 0
#else
#define BCL_SV_CHECKSUMS 1
#endif

typedef enum bcl_sv_kind {
    BCL_SV_HASHMAP = 1,
    BCL_SV_DARRAY = 2,
    BCL_SV_ARRAY = 3,
    BCL_SV_BLOOM = 4,
    BCL_SV_FASTQUEUE = 5,
    BCL_SV_CIRCULARQUEUE = 6
} bcl_sv_kind;

/* "HashMap", "DArray", ...; NULL for an unknown kind. */
const char *bcl_sv_kind_name(uint32_t kind);

typedef struct bcl_sv_column {
    uint64_t width;        /* bytes per row; 0: one msgpack object per row */
    uint64_t items;
    uint64_t offset;       /* of its first byte in the file               */
    uint64_t bytes;
} bcl_sv_column;

typedef struct bcl_sv_part {
    uint64_t offset, length, items, checksum;
} bcl_sv_part;

typedef struct bcl_sv_desc {
    uint32_t version, kind, ranks, ncols;
    uint64_t entries, ngroups, info_len, data_off, file_size;
    uint64_t desc_len;     /* header + tables + info                      */
    bcl_sv_column col[BCL_SV_MAX_COLS];
    bcl_sv_part *parts;    /* ngroups * ncols, group-major                */
    uint64_t *first;       /* ngroups + 1: first row of each group, then entries */
    unsigned char *info;   /* info_len bytes                              */
} bcl_sv_desc;

static inline const bcl_sv_part *bcl_sv_part_at(const bcl_sv_desc *d, uint64_t g, int c)
{
    return &d->parts[g * d->ncols + (uint64_t)c];
}

/* ---- reading ------------------------------------------------------------- */

/* The first n bytes of a file of file_size bytes (n >= min(file_size,
 * BCL_SV_HEAD)): is it a pybcl file of this version, and how many bytes is
 * its descriptor (*desc_len)?  BCL_ERR_DECODE with a message naming `path`
 * and what is wrong (not a pybcl file, another version, truncated...). */
bcl_status bcl_sv_head(const void *buf, size_t n, uint64_t file_size, const char *path,
                       uint64_t *desc_len);

/* Parse and check the whole descriptor (buf: its desc_len bytes): the
 * checksum, every table entry against the others and the file size.  On
 * success *d owns malloc'd tables (bcl_sv_desc_free); on failure nothing is
 * left allocated and the message names `path`. */
bcl_status bcl_sv_parse(const void *buf, size_t n, uint64_t file_size, const char *path,
                        bcl_sv_desc *d);
void bcl_sv_desc_free(bcl_sv_desc *d);

/* The row group holding row r (r < entries). */
uint64_t bcl_sv_group_of(const bcl_sv_desc *d, uint64_t r);

/* ---- writing ------------------------------------------------------------- */

/* d holds kind, ranks, ncols, entries, ngroups, info/info_len, each
 * column's width, and each part's length, items and checksum.  Fills in
 * the rest (offsets, data_off, file_size, desc_len, column items and bytes)
 * and returns the descriptor's bytes in *out (malloc'd, d->desc_len). */
bcl_status bcl_sv_encode(bcl_sv_desc *d, unsigned char **out);

#endif /* BCL_SV_FORMAT_H */
