/* bcl_sv_hashmap.c -- saving and loading a HashMap (bcl_sv_containers.h). */
#include "io/bcl_sv_containers.h"

#include "containers/hashmap/bcl_hashmap_buffer.h"

#include <stdlib.h>
#include <string.h>

#include "io/bcl_sv_internal.h"
#include "runtime/bcl_runtime.h"

/* ---- save ------------------------------------------------------------------ */

/* This rank's entries as two columns: fixed-width bytes or msgpack objects,
 * read through the map's whole-table calls (bcl_hm_local_copy,
 * bcl_hm_local_scan), whatever its bucket layout. */
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
    if (!e->is_var[0] && !e->is_var[1]) {
        /* fixed-size keys and values: straight into the two columns (what
         * local_arrays() reads), twice as fast as a visit per entry */
        e->n = bcl_hm_local_copy(e->m, e->fixed[0].buf, e->fixed[1].buf, e->cap);
        e->fixed[0].len = e->n * e->size[0];
        e->fixed[1].len = e->n * e->size[1];
        return BCL_OK;
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

/* A loading rank reads its share of the rows in rounds of about this many
 * bytes, so memory stays bounded whatever the file's size (a msgpack map:
 * a row group a round), and hands them to the map through a HashMapBuffer
 * (each owner then inserts its keys into its own block with plain stores:
 * ~10x insert_many's rate).
 *
 * Fixed-size rows this rank owns skip the buffer: a file saved at this rank
 * count holds each saving rank's entries as one run of rows, and an even
 * share of the rows is then almost all the reading rank's own, so the
 * buffer's copy, exchange and second pass are work for nothing.  Such rows
 * go straight from the read buffer into this rank's block with the
 * buffer's own owner-side kernel (bcl_hm_apply_many_local), before the
 * round's flush: between two flushes no rank writes another's block (a
 * flush's atomic inserts of spilled entries end with a barrier), which is
 * the kernel's rule.  Whatever the kernel does not simply apply (a probe
 * that leaves the block, a full table) goes to the buffer, whose flush
 * settles it exactly as if it had come that way.  Rows owned elsewhere
 * (another rank count, the edges of a share) take the buffer as before.
 * Ownership only chooses the faster way: any row may take either. */
#define ROUND_BYTES ((uint64_t)64 << 20)

static uint64_t rows_per_round(const bcl_hashmap *m)
{
    uint64_t row = m->key_size + m->val_size;          /* 0 for msgpack rows */
    uint64_t step = row ? ROUND_BYTES / row : 0;
    return step ? step : 1;
}

/* Rounds rank q takes for its share of the rows (every rank computes every
 * rank's, so all agree on the most, which all of them run). */
static uint64_t rounds_of(const bcl_sv_desc *d, const bcl_hashmap *m, int var, int q)
{
    uint64_t r0, r1;
    bcl_sv_share(d, var, q, bcl_rt.nprocs, &r0, &r1);
    if (r0 == r1)
        return 0;
    if (var)
        return bcl_sv_group_of(d, r1 - 1) - bcl_sv_group_of(d, r0) + 1;
    return (r1 - r0 + rows_per_round(m) - 1) / rows_per_round(m);
}

/* Row i of a column read as `bytes`: its offset, for a fixed width or from
 * the objects' ends. */
static size_t *row_offsets(const unsigned char *bytes, size_t len, uint64_t n, uint64_t width,
                           bcl_status *st)
{
    size_t *off = malloc((size_t)(n + 1) * sizeof *off);
    uint64_t *ends = NULL;
    if (!off) {
        *st = bcl_set_error(BCL_ERR_NOMEM, "no memory for %llu row offsets",
                            (unsigned long long)n);
        return NULL;
    }
    off[0] = 0;
    if (!width && (*st = bcl_sv_object_ends(bytes, len, n, &ends)) != BCL_OK) {
        free(off);
        return NULL;
    }
    for (uint64_t i = 0; i < n; i++)
        off[i + 1] = width ? (size_t)((i + 1) * width) : (size_t)ends[i];
    free(ends);
    return off;
}

typedef struct loader {
    bcl_sv_file *f;
    bcl_hashmap *m;
    int var;
    bcl_hm_buffer buf;
    unsigned char *bytes[2];  /* fixed-size rows: one round's, reused      */
    size_t cap[2];
} loader;

/* A round's bytes of column c: the loader's buffer, grown to `len` (kept
 * across rounds: a fresh one would fault its pages in every round). */
static unsigned char *round_buffer(loader *l, int c, size_t len, bcl_status *st)
{
    if (len > l->cap[c]) {
        free(l->bytes[c]);
        l->cap[c] = 0;
        if (!(l->bytes[c] = malloc(len))) {
            *st = bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for %zu bytes of rows",
                                l->f->path, len);
            return NULL;
        }
        l->cap[c] = len;
    }
    return l->bytes[c];
}

/* The kernel's report of an entry it did not simply apply: the buffer
 * takes it (its flush inserts a spilled entry atomically, and reports a
 * full map on every rank). */
static bcl_status to_buffer(void *ctx, const void *key, const void *val, int accumulate,
                            bcl_status st, int spilled)
{
    loader *l = ctx;
    (void)st;
    (void)spilled;
    return bcl_hm_buffer_add(&l->buf, key, l->m->key_size, val, l->m->val_size, accumulate);
}

/* Does this rank own the key (the buffer's rule, bcl_hm_home_rank)? */
static inline int owned(const unsigned char *key, size_t ks)
{
    return bcl_rt.nprocs == 1 || bcl_hm_home_rank(bcl_hm_hash(key, ks)) == bcl_rt.rank;
}

/* Fixed-size rows [0, n) of keys/vals: each run of rows this rank owns
 * into our block, the runs between them to the buffer (each row's owner
 * found once). */
static bcl_status apply_rows(loader *l, const unsigned char *keys, const unsigned char *vals,
                             size_t n)
{
    size_t ks = l->m->key_size, vs = l->m->val_size;
    bcl_status st = BCL_OK;
    int mine = n ? owned(keys, ks) : 0;
    for (size_t i = 0, j; i < n && st == BCL_OK; i = j) {
        int next = mine;
        for (j = i + 1; j < n && (next = owned(keys + j * ks, ks)) == mine;)
            j++;
        if (mine) {
            bcl_hm_run run = { keys + i * ks, vals + i * vs, ks, vs, j - i, 0 };
            int refusing = 0;
            st = bcl_hm_apply_many_local(l->m, &run, 0, &refusing, to_buffer, l);
        } else {
            st = bcl_hm_buffer_add_many(&l->buf, keys + i * ks, NULL, j - i, vals + i * vs,
                                        NULL, vs, 0);
        }
        mine = next;
    }
    return st;
}

/* Rows [r0, r1): read both columns; fixed-size rows to apply_rows, msgpack
 * ones (cut at their objects' ends) to the buffer. */
static bcl_status add_rows(loader *l, uint64_t r0, uint64_t r1)
{
    unsigned char *bytes[2] = { NULL, NULL };
    size_t *off[2] = { NULL, NULL }, len[2] = { 0, 0 };
    bcl_status st = BCL_OK;
    for (int c = 0; c < 2 && st == BCL_OK; c++) {
        len[c] = (size_t)bcl_sv_span_bytes(&l->f->d, c, r0, r1);
        if (!l->var)
            bytes[c] = round_buffer(l, c, len[c] ? len[c] : 1, &st);
        else if (!(bytes[c] = malloc(len[c] ? len[c] : 1)))
            st = bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for %zu bytes of rows",
                               l->f->path, len[c]);
        if (st == BCL_OK &&
            (st = bcl_sv_read_rows(&l->f->d, &l->f->src, c, r0, r1, bytes[c])) == BCL_OK &&
            l->var)
            off[c] = row_offsets(bytes[c], len[c], r1 - r0, l->f->d.col[c].width, &st);
    }
    if (st == BCL_OK && !l->var)
        st = apply_rows(l, bytes[0], bytes[1], (size_t)(r1 - r0));
    else if (st == BCL_OK)
        st = bcl_hm_buffer_add_many(&l->buf, bytes[0], off[0], (size_t)(r1 - r0), bytes[1],
                                    off[1], l->m->val_size, 0);
    for (int c = 0; c < 2; c++) {
        if (l->var)
            free(bytes[c]);
        free(off[c]);
    }
    return st;
}

/* Collective: this rank's share, round by round, each round ended by the
 * buffer's flush on every rank (a rank that failed reading joins the rest
 * with nothing to add).  Returns this rank's status, or the flush's (the
 * same on every rank). */
static bcl_status load_rounds(loader *l, bcl_status st)
{
    const bcl_sv_desc *d = &l->f->d;
    uint64_t rounds = 0, r0, r1;
    for (int q = 0; q < bcl_rt.nprocs; q++) {
        uint64_t n = rounds_of(d, l->m, l->var, q);
        rounds = n > rounds ? n : rounds;
    }
    bcl_sv_share(d, l->var, bcl_rt.rank, bcl_rt.nprocs, &r0, &r1);
    for (uint64_t k = 0, r = r0; k < rounds; k++) {
        uint64_t next = l->var ? (r < r1 ? d->first[bcl_sv_group_of(d, r) + 1] : r)
                               : (r1 - r < rows_per_round(l->m) ? r1 : r + rows_per_round(l->m));
        if (st == BCL_OK && r < next)
            st = add_rows(l, r, next);
        r = next;
        bcl_status fs = bcl_hm_buffer_flush(&l->buf);
        if (fs != BCL_OK)
            return fs;
    }
    return st;
}

bcl_status bcl_sv_load_hashmap(bcl_sv_file *f, bcl_hashmap *m)
{
    loader l = { .f = f, .m = m, .var = m->key_var || m->val_var };
    bcl_status st = bcl_sv_expect(f, 0, m->key_var ? 0 : m->key_size, "keys");
    if (st == BCL_OK)
        st = bcl_sv_expect(f, 1, m->val_var ? 0 : m->val_size, "values");
    if ((st = bcl_sv_agree(st)) != BCL_OK)
        return st;
    /* an inbox a rank's share fills at most once per round (the same on
     * every rank: the constructor is collective) */
    uint64_t per_rank = f->d.entries / (uint64_t)bcl_rt.nprocs + 1;
    size_t queue = (size_t)(per_rank < rows_per_round(m) ? per_rank : rows_per_round(m));
    queue = queue < 1024 ? 1024 : queue > ((size_t)1 << 20) ? (size_t)1 << 20 : queue;
    size_t message = queue < ((size_t)1 << 14) ? queue : (size_t)1 << 14;
    st = bcl_hm_buffer_create(&l.buf, m, queue, message, 0);
    if (st != BCL_OK)
        return bcl_sv_agree(st);
    st = load_rounds(&l, BCL_OK);
    bcl_hm_buffer_destroy(&l.buf, 1);
    free(l.bytes[0]);
    free(l.bytes[1]);
    st = bcl_sv_agree(st);
    return st == BCL_OK ? bcl_barrier() : st;
}
