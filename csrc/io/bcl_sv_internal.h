/*
 * bcl_sv_internal.h -- what the per-kind save and load files share
 * (bcl_sv_util.c): growing msgpack columns from out-of-line values, the
 * check that a loaded container matches the file, a rank's share of rows.
 */
#ifndef BCL_SV_INTERNAL_H
#define BCL_SV_INTERNAL_H

#include "containers/bcl_object.h"
#include "io/bcl_sv_mpiio.h"
#include "serial/bcl_msgpack.h"

/* A msgpack column being gathered: the objects back to back, and the end
 * offset of each. */
typedef struct bcl_sv_objcol {
    bcl_mp_writer data;
    uint64_t *ends;
    uint64_t n, cap;
} bcl_sv_objcol;

/* cap rows at most (bcl_sv_objcol_free releases it even on failure). */
bcl_status bcl_sv_objcol_init(bcl_sv_objcol *c, uint64_t cap);
void bcl_sv_objcol_free(bcl_sv_objcol *c);
/* Append the bytes an out-of-line reference holds (any rank's segment). */
bcl_status bcl_sv_objcol_add(bcl_sv_objcol *c, bcl_objref r);
/* BCL_ERR_TYPE naming `what` if an object holds a GlobalPtr. */
bcl_status bcl_sv_objcol_check(const bcl_sv_objcol *c, const char *what);

/* The file's column c is `width` bytes a row (0: msgpack), as the
 * container made from its info expects; else a damaged-file error. */
bcl_status bcl_sv_expect(const bcl_sv_file *f, int c, uint64_t width, const char *what);

/* Rank q's even share [*r0, *r1) of the file's rows among nprocs ranks;
 * whole_groups: rounded to row-group boundaries (a msgpack column). */
void bcl_sv_share(const bcl_sv_desc *d, int whole_groups, int q, int nprocs, uint64_t *r0,
                  uint64_t *r1);

#endif /* BCL_SV_INTERNAL_H */
