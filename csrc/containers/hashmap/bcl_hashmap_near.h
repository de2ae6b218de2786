/* bcl_hashmap_near.h -- what the two bucket layouts' bulk apply loops
 * (bcl_hashmap_bulk.c, bcl_hashmap_compact_local.c) share: this rank's
 * block as the loops see it, the ring of hashes whose home buckets are
 * prefetched ahead, how an entry meets a value already in its bucket,
 * settled inline near the key's home, and the general path for what the
 * inline probe leaves. */
#ifndef BCL_HASHMAP_NEAR_H
#define BCL_HASHMAP_NEAR_H

#include <string.h>

#include "containers/hashmap/bcl_hashmap_internal.h"

/* This rank's block as an apply loop sees it: invariants in locals, so the
 * compiler keeps them in registers across the bucket stores (which, through
 * unsigned char pointers, could alias any field of the map). */
typedef struct bcl_hm_view {
    unsigned char *base;
    uint64_t first, block, n, pmask;
    size_t bsize, voff;
    int linear;
} bcl_hm_view;

static inline bcl_hm_view bcl_hm_view_of(const bcl_hashmap *m)
{
    bcl_hm_view w = { bcl_hm_local_bucket(m, 0), (uint64_t)bcl_rt.rank * m->block, m->block,
                      m->n, m->pmask, m->bsize, m->val_off, m->linear };
    return w;
}

/* The global home bucket of hash h. */
static inline uint64_t bcl_hm_view_home(const bcl_hm_view *w, uint64_t h)
{
    return (uint64_t)(((unsigned __int128)h * w->n) >> 64);
}

/* A random key's home bucket is a cache miss in a large table: the loops
 * hash entries BCL_HM_AHEAD ahead and prefetch their home buckets, so many
 * misses are in flight while the entry at hand is applied.  The ring keeps
 * the hashes between their prefetch and their use. */
#define BCL_HM_AHEAD 32u

typedef struct bcl_hm_ring {
    uint64_t h[BCL_HM_AHEAD];
    const unsigned char *keys;
    size_t kstride, key_size, n;
} bcl_hm_ring;

/* The hashes of keys[from .. from + BCL_HM_AHEAD). */
static inline void bcl_hm_ring_init(bcl_hm_ring *r, const unsigned char *keys, size_t kstride,
                                    size_t key_size, size_t n, size_t from)
{
    r->keys = keys;
    r->kstride = kstride;
    r->key_size = key_size;
    r->n = n;
    for (size_t j = from; j < n && j < from + BCL_HM_AHEAD; j++)
        r->h[j % BCL_HM_AHEAD] = bcl_hm_hash(keys + j * kstride, key_size);
}

/* Entry i's hash; entry i + BCL_HM_AHEAD's takes its place, and that
 * entry's home bucket (of bsize bytes) is prefetched when it is in this
 * block: its first cache line, and the next where `lines` is 2 (a linear
 * probe runs on past the home's line at high load). */
static inline __attribute__((always_inline)) uint64_t
bcl_hm_ring_next(bcl_hm_ring *r, const bcl_hm_view *w, size_t bsize, int lines, size_t i)
{
    uint64_t h = r->h[i % BCL_HM_AHEAD];
    if (i + BCL_HM_AHEAD < r->n) {
        uint64_t ahead = bcl_hm_hash(r->keys + (i + BCL_HM_AHEAD) * r->kstride, r->key_size);
        uint64_t at = bcl_hm_view_home(w, ahead) - w->first;
        r->h[i % BCL_HM_AHEAD] = ahead;
        if (at < w->block) {
            const unsigned char *pf = w->base + at * bsize;
            __builtin_prefetch(pf, 1);
            if (lines > 1)
                __builtin_prefetch(pf + 64, 1);
        }
    }
    return h;
}

/* How an entry meets a value already there (8-byte values): replaced, or
 * added as a signed or unsigned 64-bit integer; -1 neither (the general
 * path's arithmetic). */
enum { BCL_HM_NEAR_REPLACE, BCL_HM_NEAR_ADD_SIGNED, BCL_HM_NEAR_ADD_UNSIGNED };

static inline int bcl_hm_near_how(const bcl_hashmap *m, int accumulate)
{
    return !accumulate ? BCL_HM_NEAR_REPLACE
         : m->num == BCL_HM_NUM_INT ? BCL_HM_NEAR_ADD_SIGNED
         : m->num == BCL_HM_NUM_UINT ? BCL_HM_NEAR_ADD_UNSIGNED : -1;
}

/* The 8-byte value at `slot` meets `val` as `how` says: 1 settled, 0 an
 * overflow, left untouched for the general path to report. */
static inline int bcl_hm_near_settle(unsigned char *slot, const unsigned char *val, int how)
{
    if (how == BCL_HM_NEAR_REPLACE) {
        memcpy(slot, val, 8);
        return 1;
    }
    uint64_t v, d;
    memcpy(&v, slot, 8);
    memcpy(&d, val, 8);
    int over = how == BCL_HM_NEAR_ADD_SIGNED
        ? __builtin_add_overflow((int64_t)v, (int64_t)d, (int64_t *)&v)
        : __builtin_add_overflow(v, d, &v);
    if (over)
        return 0;
    memcpy(slot, &v, 8);
    return 1;
}

/* The local apply of one entry to one layout's table (bcl_hm_apply_local's
 * contract), which bcl_hm_apply_general takes from its caller: each
 * layout's file passes its own, so neither calls into the other. */
typedef bcl_status (*bcl_hm_local_fn)(const bcl_hashmap *m, const bcl_hm_key *k,
                                      const void *val, int accumulate, int *spilled);

/* An entry the inline probe did not settle: `apply` (the layout's local
 * apply), and the caller's fn hears of anything but a plain success.  Out
 * of line, so the loops around the common case stay small. */
static __attribute__((noinline, unused))
bcl_status bcl_hm_apply_general(const bcl_hashmap *m, bcl_hm_local_fn apply,
                                const unsigned char *key, const unsigned char *val, int acc,
                                uint64_t h, int grow, int *refusing, bcl_hm_bulk_fn fn,
                                void *ctx)
{
    bcl_hm_key k = { key, m->key_size, h };
    int spilled = 0;
    bcl_status st = apply(m, &k, val, acc, &spilled);
    return bcl_hm_apply_heard(st, spilled, key, val, acc, grow, refusing, fn, ctx);
}

/* Once the map refuses an entry, run entries i.. are reported full, in
 * order. */
static inline bcl_status bcl_hm_report_full(const bcl_hm_run *run, size_t i, bcl_hm_bulk_fn fn,
                                            void *ctx)
{
    for (; i < run->n; i++) {
        bcl_status st = fn(ctx, run->keys + i * run->kstride, run->vals + i * run->vstride,
                           run->accumulate != 0, BCL_ERR_FULL, 0);
        if (st != BCL_OK)
            return st;
    }
    return BCL_OK;
}

#endif
