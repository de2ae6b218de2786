/* bcl_sv_util.c -- pieces the per-kind save and load files share
 * (bcl_sv_internal.h). */
#include "io/bcl_sv_internal.h"

#include <stdlib.h>
#include <string.h>


bcl_status bcl_sv_objcol_init(bcl_sv_objcol *c, uint64_t cap)
{
    bcl_mp_writer_init(&c->data);
    c->n = 0;
    c->cap = cap;
    c->ends = malloc((size_t)(cap ? cap : 1) * sizeof *c->ends);
    return c->ends ? BCL_OK
                   : bcl_set_error(BCL_ERR_NOMEM, "no memory for %llu rows' offsets",
                                   (unsigned long long)cap);
}

void bcl_sv_objcol_free(bcl_sv_objcol *c)
{
    bcl_mp_writer_free(&c->data);
    free(c->ends);
    c->ends = NULL;
}

bcl_status bcl_sv_objcol_add(bcl_sv_objcol *c, bcl_objref r)
{
    if (c->n == c->cap)
        return bcl_set_error(BCL_ERR_STATE, "the container changed while it was saved");
    bcl_status st = bcl_mp_reserve(&c->data, r.len);
    if (st == BCL_OK && r.len)
        st = bcl_obj_load(r, c->data.buf + c->data.len);
    if (st != BCL_OK)
        return st;
    c->data.len += r.len;
    c->ends[c->n++] = c->data.len;
    return BCL_OK;
}

bcl_status bcl_sv_objcol_check(const bcl_sv_objcol *c, const char *what)
{
    bcl_status st = bcl_sv_objects(c->data.buf, c->data.len, c->n, NULL);
    if (st == BCL_ERR_TYPE)
        return bcl_set_error(BCL_ERR_TYPE, "%s: the container holds a GlobalPtr, which "
                             "cannot be saved (a pointer does not outlive its job)", what);
    return st;
}

bcl_status bcl_sv_expect(const bcl_sv_file *f, int c, uint64_t width, const char *what)
{
    if (f->d.col[c].width == width)
        return BCL_OK;
    return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: its %s take %llu bytes "
                         "a row, the %s its info names takes %llu", f->path, what,
                         (unsigned long long)f->d.col[c].width, what,
                         (unsigned long long)width);
}

/* The first row-group boundary at or after row r. */
static uint64_t group_start_from(const bcl_sv_desc *d, uint64_t r)
{
    if (r >= d->entries)
        return d->entries;
    uint64_t g = bcl_sv_group_of(d, r);
    return d->first[g] == r ? r : d->first[g + 1];
}

void bcl_sv_share(const bcl_sv_desc *d, int whole_groups, int q, int nprocs, uint64_t *r0,
                  uint64_t *r1)
{
    unsigned __int128 e = d->entries;
    *r0 = (uint64_t)(e * (unsigned)q / (unsigned)nprocs);
    *r1 = (uint64_t)(e * (unsigned)(q + 1) / (unsigned)nprocs);
    if (whole_groups) {
        *r0 = group_start_from(d, *r0);
        *r1 = group_start_from(d, *r1);
    }
}
