/* bcl_sv_hashmap.c -- saving and loading a HashMap (bcl_sv_containers.h). */
#include "io/bcl_sv_containers.h"

#include <stdlib.h>
#include <string.h>

#include "io/bcl_sv_internal.h"
#include "runtime/bcl_runtime.h"

/* ---- save ------------------------------------------------------------------ */

/* This rank's entries as two columns: fixed-width bytes or msgpack objects. */
typedef struct entries {
    const bcl_hashmap *m;
    bcl_mp_writer fixed[2];        /* a fixed-width column's bytes          */
    bcl_sv_objcol var[2];          /* a msgpack column                      */
    int is_var[2];
    size_t size[2];
    uint64_t n, cap;
    bcl_status st;
} entries;

static bcl_status add_slot(entries *e, int c, const void *slot)
{
    if (e->is_var[c]) {
        bcl_objref r;
        memcpy(&r, slot, sizeof r);
        return bcl_sv_objcol_add(&e->var[c], r);
    }
    return bcl_mp_write_raw(&e->fixed[c], slot, e->size[c]);
}

static int visit(void *ctx, const void *key_slot, const void *val_slot)
{
    entries *e = ctx;
    if (e->n == e->cap)
        e->st = bcl_set_error(BCL_ERR_STATE, "HashMap.save: the map changed while it was "
                              "saved");
    else if ((e->st = add_slot(e, 0, key_slot)) == BCL_OK &&
             (e->st = add_slot(e, 1, val_slot)) == BCL_OK)
        e->n++;
    return e->st != BCL_OK;
}

static bcl_status gather_entries(entries *e)
{
    for (int c = 0; c < 2; c++) {
        bcl_mp_writer_init(&e->fixed[c]);
        bcl_mp_writer_init(&e->var[c].data);
        e->var[c].ends = NULL;
    }
    e->cap = bcl_hm_local_used(e->m);
    for (int c = 0; c < 2; c++) {
        bcl_status st = e->is_var[c] ? bcl_sv_objcol_init(&e->var[c], e->cap)
                                     : bcl_mp_reserve(&e->fixed[c], e->cap * e->size[c]);
        if (st != BCL_OK)
            return st;
    }
    e->st = BCL_OK;
    bcl_hm_local_scan(e->m, visit, e);
    for (int c = 0; c < 2 && e->st == BCL_OK; c++)
        if (e->is_var[c])
            e->st = bcl_sv_objcol_check(&e->var[c], "HashMap.save");
    return e->st;
}

bcl_status bcl_sv_save_hashmap(const bcl_hashmap *m, const char *path, const void *info,
                               size_t info_len)
{
    entries e = { .m = m, .is_var = { m->key_var, m->val_var },
                  .size = { m->key_size, m->val_size } };
    bcl_status st = gather_entries(&e);
    bcl_sv_out o = { BCL_SV_HASHMAP, 2, e.n, { { 0 } }, info, info_len };
    for (int c = 0; c < 2; c++)
        o.col[c] = e.is_var[c] ? (bcl_sv_colsrc){ 0, e.var[c].data.buf, e.var[c].ends }
                               : (bcl_sv_colsrc){ e.size[c], e.fixed[c].buf, NULL };
    st = bcl_sv_write(path, &o, st);
    for (int c = 0; c < 2; c++) {
        bcl_mp_writer_free(&e.fixed[c]);
        bcl_sv_objcol_free(&e.var[c]);
    }
    return st;
}

/* ---- load ------------------------------------------------------------------ */

/* Rows of a fixed-width map read and inserted per batch of about this many
 * bytes (memory stays bounded whatever the file's size). */
#define BATCH_BYTES ((uint64_t)64 << 20)

/* One batch's rows: column bytes and, for msgpack columns, row ends. */
typedef struct batch {
    unsigned char *bytes[2];
    uint64_t *ends[2];
} batch;

static const unsigned char *row_at(const batch *b, const bcl_hashmap *m, int c, uint64_t i,
                                   size_t *len)
{
    int var = c ? m->val_var : m->key_var;
    size_t size = c ? m->val_size : m->key_size;
    if (!var) {
        *len = size;
        return b->bytes[c] + i * size;
    }
    uint64_t a = i ? b->ends[c][i - 1] : 0;
    *len = (size_t)(b->ends[c][i] - a);
    return b->bytes[c] + a;
}

static bcl_status insert_rows(const bcl_hashmap *m, const batch *b, uint64_t n,
                              const char *path)
{
    if (!m->key_var && !m->val_var) {
        size_t full = 0;
        bcl_status st = bcl_hm_insert_many(m, b->bytes[0], b->bytes[1], (size_t)n, &full);
        if (st == BCL_OK && full)
            st = bcl_set_error(BCL_ERR_FULL, "%s: %zu entries found no room in the loaded "
                               "map", path, full);
        return st;
    }
    for (uint64_t i = 0; i < n; i++) {
        size_t klen, vlen;
        const unsigned char *kp = row_at(b, m, 0, i, &klen), *vp = row_at(b, m, 1, i, &vlen);
        bcl_hm_key k = bcl_hm_key_make(kp, klen);
        bcl_status st = bcl_hm_insert(m, &k, vp, vlen, 0);
        if (st != BCL_OK)
            return st;
    }
    return BCL_OK;
}

/* Rows [r0, r1): read both columns, find the msgpack rows, insert. */
static bcl_status load_rows(bcl_sv_file *f, const bcl_hashmap *m, uint64_t r0, uint64_t r1)
{
    batch b = { { NULL, NULL }, { NULL, NULL } };
    bcl_status st = BCL_OK;
    for (int c = 0; c < 2 && st == BCL_OK; c++) {
        uint64_t len = bcl_sv_span_bytes(&f->d, c, r0, r1);
        if (!(b.bytes[c] = malloc((size_t)(len ? len : 1))))
            st = bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for %llu bytes of rows",
                               f->path, (unsigned long long)len);
        else if ((st = bcl_sv_read_rows(&f->d, &f->src, c, r0, r1, b.bytes[c])) ==
                     BCL_OK && !f->d.col[c].width)
            st = bcl_sv_object_ends(b.bytes[c], (size_t)len, r1 - r0, &b.ends[c]);
    }
    if (st == BCL_OK)
        st = insert_rows(m, &b, r1 - r0, f->path);
    for (int c = 0; c < 2; c++) {
        free(b.bytes[c]);
        free(b.ends[c]);
    }
    return st;
}

static bcl_status load_share(bcl_sv_file *f, const bcl_hashmap *m)
{
    bcl_status st = bcl_sv_expect(f, 0, m->key_var ? 0 : m->key_size, "keys");
    if (st == BCL_OK)
        st = bcl_sv_expect(f, 1, m->val_var ? 0 : m->val_size, "values");
    if (st != BCL_OK)
        return st;
    int var = m->key_var || m->val_var;
    uint64_t r0, r1;
    bcl_sv_share(&f->d, var, &r0, &r1);
    if (var) {                                 /* a row group at a time */
        for (uint64_t r = r0; r < r1 && st == BCL_OK;) {
            uint64_t next = f->d.first[bcl_sv_group_of(&f->d, r) + 1];
            st = load_rows(f, m, r, next);
            r = next;
        }
        return st;
    }
    uint64_t step = BATCH_BYTES / (m->key_size + m->val_size);
    step = step ? step : 1;
    for (uint64_t r = r0; r < r1 && st == BCL_OK; r += step)
        st = load_rows(f, m, r, r1 - r < step ? r1 : r + step);
    return st;
}

bcl_status bcl_sv_load_hashmap(bcl_sv_file *f, const bcl_hashmap *m)
{
    bcl_status st = bcl_sv_agree(load_share(f, m));
    return st == BCL_OK ? bcl_barrier() : st;
}
