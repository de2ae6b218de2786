/* bcl_hashmap_compact_local.c -- the compact layout on this rank's own block
 * with plain loads and stores, while no other rank writes it (the local
 * promise, HashMapBuffer's owner-side apply, resize's move): the same rules
 * as the classic layout's bcl_hm_apply_local / bcl_hm_apply_many_local /
 * resize (bcl_hashmap.h), over key words (bcl_hashmap_compact.h). */
#include "containers/hashmap/bcl_hashmap_near.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_pages.h"

#define EMPTY BCL_HMC_EMPTY
#define TOMB BCL_HMC_TOMB
#define BUSY BCL_HMC_BUSY
#define INLINE_PROBES 16u      /* probes tried inline before the general path */
#define RELEASE_STEP ((size_t)4 << 20)   /* old block given back this often */

/* The walk of key word kw through this rank's block: 1, *at its bucket; 0,
 * *at where to store it (the first tombstone, else the EMPTY bucket ending
 * the walk), or NULL when the walk leaves the block first (the entry spills
 * to the owner's shared path).  *st: a held bucket (`broken`: someone broke
 * the rule that nobody else writes the block) or a full table. */
static int local_find(const bcl_hashmap *m, uint64_t kw, uint64_t hash, unsigned char **at,
                      bcl_status *st, const char *broken)
{
    bcl_hm_probe p;
    uint64_t idx, first = (uint64_t)bcl_rt.rank * m->block;
    unsigned char *tomb = NULL;
    *st = BCL_OK;
    *at = NULL;
    bcl_hm_probe_init(m, &p, hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        if (idx < first || idx - first >= m->block)
            return 0;
        unsigned char *b = bcl_hm_local_bucket(m, idx - first);
        uint64_t w = bcl_hmc_load(b);
        if (w == kw) {
            *at = b;
            return 1;
        }
        if (w == EMPTY) {
            *at = tomb ? tomb : b;
            return 0;
        }
        if (w == TOMB) {
            if (!tomb)
                tomb = b;
        } else if (w == BUSY) {
            *st = bcl_set_error(BCL_ERR_STATE, "%s", broken);
            return 0;
        }
    }
    if (!(*at = tomb))
        *st = bcl_hm_full_error(m);
    return 0;
}

/* Value first, then the key word with a release store: a reader that sees
 * the key sees the value. */
static inline void store(unsigned char *b, uint64_t kw, const void *val, size_t vs)
{
    bcl_hm_copy_slot(b + BCL_HMC_VALUE, val, vs);
    __atomic_store_n((uint64_t *)b, kw, __ATOMIC_RELEASE);
}

bcl_status bcl_hmc_apply_local(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                               int accumulate, int *spilled)
{
    unsigned char *b;
    bcl_status st;
    uint64_t kw = bcl_hmc_word(k->bytes, m->key_size);
    int hit = local_find(m, kw, k->hash, &b, &st, "local insert met a bucket being written "
                         "by another rank: the local promise was broken");
    *spilled = st == BCL_OK && !b;
    if (st != BCL_OK || !b)
        return st;
    if (!hit)
        store(b, kw, val, m->val_size);
    else if (!accumulate)
        bcl_hm_copy_slot(b + BCL_HMC_VALUE, val, m->val_size);
    else if (bcl_hm_num_add(m, b + BCL_HMC_VALUE, val))
        return bcl_hm_overflow_error(m, val);
    return BCL_OK;
}

/* ---- bulk apply -------------------------------------------------------------- */

/* The first few buckets of the probe sequence from global home g for an
 * 8-byte value: 1 if that settled the entry as bcl_hmc_apply_local would
 * have; anything else (a bucket outside the block, a tombstone, an
 * overflow, a longer probe) is left, untouched, to the general path. */
static inline int apply_near_home(const bcl_hm_view *w, uint64_t g, uint64_t kw,
                                  const unsigned char *val, int how)
{
    for (uint64_t i = 0; i < INLINE_PROBES; i++) {
        uint64_t pos = w->linear ? (g + i < w->n ? g + i : g + i - w->n)
                                 : (g + i * (i + 1) / 2) & w->pmask;
        if (pos < w->first || pos - w->first >= w->block)
            return 0;
        unsigned char *b = w->base + (pos - w->first) * w->bsize;
        uint64_t x = bcl_hmc_load(b);
        if (x == EMPTY) {
            store(b, kw, val, 8);
            return 1;
        }
        if (x != kw) {
            if (x == TOMB || x == BUSY)
                return 0;
            continue;
        }
        return bcl_hm_near_settle(b + BCL_HMC_VALUE, val, how);
    }
    return 0;
}

/* A compact map's local apply: its reserved key words go to the side map. */
static bcl_status apply_compact(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                                int accumulate, int *spilled)
{
    return bcl_hmc_side_key(m, k->bytes)
               ? bcl_hm_classic_apply_local(m->side, k, val, accumulate, spilled)
               : bcl_hmc_apply_local(m, k, val, accumulate, spilled);
}

bcl_status bcl_hmc_apply_many_local(const bcl_hashmap *m, const bcl_hm_run *run, int grow,
                                    int *refusing, bcl_hm_bulk_fn fn, void *ctx)
{
    const unsigned char *keys = run->keys;
    size_t n = run->n, ks = run->kstride, i = 0;
    int acc = run->accumulate != 0;
    int how = bcl_hm_near_how(m, acc);
    int inline_ok = m->val_size == 8 && how >= 0 && m->limit >= INLINE_PROBES;
    bcl_hm_view w = bcl_hm_view_of(m);
    bcl_hm_ring ring;
    bcl_hm_ring_init(&ring, keys, ks, m->key_size, n, 0);
    for (; i < n && !*refusing; i++) {
        uint64_t h = bcl_hm_ring_next(&ring, &w, w.bsize, 2, i);
        const unsigned char *key = keys + i * ks, *val = run->vals + i * run->vstride;
        if (inline_ok) {
            uint64_t kw = bcl_hmc_word(key, m->key_size);
            uint64_t g = bcl_hm_view_home(&w, h);
            if (!bcl_hmc_reserved(kw) && apply_near_home(&w, g, kw, val, how))
                continue;
        }
        bcl_status st = bcl_hm_apply_general(m, apply_compact, key, val, acc, h, grow, refusing,
                                             fn, ctx);
        if (st != BCL_OK)
            return st;
    }
    return bcl_hm_report_full(run, i, fn, ctx);
}

/* ---- resize ------------------------------------------------------------------ */

/* An entry of m into this rank's block of the new table m2 (keys distinct,
 * table new: the first EMPTY bucket is the place); *spilled when its walk
 * leaves the block first. */
static bcl_status place_local(const bcl_hashmap *m2, uint64_t kw, const unsigned char *val,
                              int *spilled)
{
    unsigned char key[8], *b;
    bcl_status st;
    memcpy(key, &kw, 8);
    int hit = local_find(m2, kw, bcl_hm_hash(key, m2->key_size), &b, &st,
                         "resize met a bucket being written");
    *spilled = st == BCL_OK && !b;
    if (st == BCL_OK && b && !hit)
        store(b, kw, val, m2->val_size);
    return st;
}

/* Entries whose walk leaves the block: key word and value, placed with the
 * protocol after the barrier. */
typedef struct spills {
    unsigned char *e;
    size_t n, cap, w;
} spills;

static bcl_status spill_add(spills *s, uint64_t kw, const unsigned char *val, size_t vs)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        unsigned char *e = realloc(s->e, cap * s->w);
        if (!e)
            return bcl_set_error(BCL_ERR_NOMEM, "resize: no memory for the entries that "
                                 "leave this rank's block");
        s->e = e;
        s->cap = cap;
    }
    memcpy(s->e + s->n * s->w, &kw, 8);
    memcpy(s->e + s->n * s->w + 8, val, vs);
    s->n++;
    return BCL_OK;
}

bcl_status bcl_hmc_move_entries(const bcl_hashmap *m, const bcl_hashmap *m2, int release,
                                bcl_status *err)
{
    spills sp = { NULL, 0, 0, 8 + m->val_size };
    unsigned char *base = bcl_hm_local_bucket(m, 0);
    size_t given = 0;                  /* bytes of the old block handed back */
    bcl_status st = BCL_OK;
    /* In block order: a key's home is monotone in its hash at any table
     * size, so the new block fills front to back too and its pages are
     * touched about as fast as the old one's are given back. */
    for (uint64_t i = 0; i < m->block && st == BCL_OK; i++) {
        const unsigned char *b = base + i * m->bsize;
        uint64_t kw = bcl_hmc_load(b);
        if (!bcl_hmc_reserved(kw)) {
            int spilled = 0;
            st = place_local(m2, kw, b + BCL_HMC_VALUE, &spilled);
            if (st == BCL_OK && spilled)
                st = spill_add(&sp, kw, b + BCL_HMC_VALUE, m->val_size);
        }
        size_t done = (size_t)(i + 1) * m->bsize;
        if (release && done - given >= RELEASE_STEP) {
            bcl_pages_release(base + given, done - given);
            given = done;
        }
    }
    if (release && st == BCL_OK)
        bcl_pages_release(base + given, (size_t)m->block * m->bsize - given);
    bcl_status rc = bcl_barrier();     /* no plain store into any block after this */
    for (size_t j = 0; rc == BCL_OK && st == BCL_OK && j < sp.n; j++) {
        const unsigned char *e = sp.e + j * sp.w;
        bcl_hm_key k = bcl_hm_key_make(e, m->key_size);
        st = bcl_hmc_insert(m2, &k, e + 8);
    }
    free(sp.e);
    *err = st;
    return rc;
}
