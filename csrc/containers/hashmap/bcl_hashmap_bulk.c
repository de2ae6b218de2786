/* bcl_hashmap_bulk.c -- applying many entries to this rank's own block at
 * once: HashMapBuffer's owner-side kernel (bcl_hashmap.h, "Bulk apply").
 *
 * A random key's home bucket is a cache miss in a table of hundreds of MB.
 * The apply hashes entries a fixed distance ahead and prefetches their
 * home buckets, so that many misses are in flight while the entry at hand
 * is applied, and settles the common cases -- one of the first few
 * buckets of the probe sequence holds the key, or is free -- inline;
 * anything else (a tombstone, a longer probe, a full block, an overflow)
 * goes through bcl_hm_apply_local.  Entries go in
 * order, each with bcl_hm_apply_local's outcome: the map ends as if they
 * had been applied one by one.  (Partitioning a batch by home first, to
 * keep the misses in a few pages, measured no faster here.)
 *
 * A growing map must know beforehand how many keys an apply may add: see
 * bcl_hashmap_sketch.c. */
#include "containers/hashmap/bcl_hashmap_near.h"

#include <stdlib.h>
#include <string.h>

#define U64_BUCKET 24u        /* bucket and value offset of an 8-byte key and value */
#define U64_VALUE 16u
#define INLINE_PROBES 4u       /* probes tried inline before the general path */

/* The first few buckets of the probe sequence from global home g, for an
 * 8-byte key and an 8-byte value (`how` above): 1 if
 * that settled the entry, as bcl_hm_apply_local would have.  Anything
 * else -- a bucket outside our block, a tombstone, an overflow, a longer
 * probe -- is left, untouched, to bcl_hm_apply_local.  (At the half load a
 * grown map keeps, most keys are in their home bucket or the one after: a
 * call per entry cost more than the probe.) */
static inline int apply_near_home(const bcl_hm_view *w, uint64_t g, const unsigned char *key,
                                  const unsigned char *val, int how)
{
    for (uint64_t i = 0; i < INLINE_PROBES; i++) {
        uint64_t pos = (g + i * (i + 1) / 2) & w->pmask;
        if (pos < w->first || pos - w->first >= w->block)
            return 0;
        unsigned char *b = w->base + (pos - w->first) * U64_BUCKET;
        uint64_t s = bcl_hm_load_status(b);
        if (ST(s) == BCL_HM_FREE) {      /* bcl_hm_local_store, 8-byte slots */
            memcpy(b + 8, key, 8);
            memcpy(b + U64_VALUE, val, 8);
            __atomic_store_n((uint64_t *)b, (s & ~(uint64_t)BCL_HM_STATE) | BCL_HM_READY,
                             __ATOMIC_RELEASE);
            return 1;
        }
        if (ST(s) != BCL_HM_READY)
            return 0;
        if (!bcl_hm_same_key(b + 8, key, 8))
            continue;
        return bcl_hm_near_settle(b + U64_VALUE, val, how);
    }
    return 0;
}

/* The entries of a run from `i` on, one by one through the general path,
 * their home buckets prefetched a fixed distance ahead, until the map
 * refuses one; every later one is then reported full, in order. */
static bcl_status apply_general_run(const bcl_hashmap *m, const bcl_hm_run *run, size_t i,
                                    int grow, int *refusing, bcl_hm_bulk_fn fn, void *ctx)
{
    const unsigned char *keys = run->keys;
    size_t n = run->n, ks = run->kstride;
    int acc = run->accumulate != 0;
    bcl_hm_view w = bcl_hm_view_of(m);
    bcl_hm_ring ring;
    bcl_hm_ring_init(&ring, keys, ks, m->key_size, n, i);
    for (; i < n && !*refusing; i++) {
        uint64_t h = bcl_hm_ring_next(&ring, &w, w.bsize, 1, i);
        bcl_status st = bcl_hm_apply_general(m, bcl_hm_classic_apply_local, keys + i * ks,
                                             run->vals + i * run->vstride, acc, h, grow,
                                             refusing, fn, ctx);
        if (st != BCL_OK)
            return st;
    }
    return bcl_hm_report_full(run, i, fn, ctx);
}

/* The common case, 8-byte keys and values, as its own loop: the near-home
 * probe inline with constant bucket offsets, the general path called in
 * place for the few entries it leaves.  (Inside the general loop, with its
 * per-entry tests of the map's kind and of *refusing, it measured markedly
 * slower; benchmarks/floor/hm_apply_vs_floor.c compares the apply with a
 * plain table of the same layout.)  Returns how many entries it has dealt
 * with: n, or fewer after an error or once the map refuses one. */
static size_t apply_u64_run(const bcl_hashmap *m, const unsigned char *keys, size_t ks,
                            const unsigned char *vals, size_t vs, size_t n, int how,
                            int grow, int *refusing, bcl_hm_bulk_fn fn, void *ctx,
                            bcl_status *err)
{
    bcl_hm_view w = bcl_hm_view_of(m);
    bcl_hm_ring ring;
    bcl_hm_ring_init(&ring, keys, ks, 8, n, 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = bcl_hm_ring_next(&ring, &w, U64_BUCKET, 1, i);
        if (apply_near_home(&w, bcl_hm_view_home(&w, h), keys + i * ks, vals + i * vs, how))
            continue;
        *err = bcl_hm_apply_general(m, bcl_hm_classic_apply_local, keys + i * ks, vals + i * vs,
                                    how != BCL_HM_NEAR_REPLACE, h, grow, refusing, fn, ctx);
        if (*err != BCL_OK || *refusing)
            return i + 1;
    }
    return n;
}

bcl_status bcl_hm_apply_many_local(const bcl_hashmap *m, const bcl_hm_run *run, int grow,
                                   int *refusing, bcl_hm_bulk_fn fn, void *ctx)
{
    if (m->compact)
        return bcl_hmc_apply_many_local(m, run, grow, refusing, fn, ctx);
    int acc = run->accumulate != 0;
    int how = bcl_hm_near_how(m, acc);
    /* out-of-line keys or values hold references the general path manages */
    int fast = m->key_size == 8 && m->val_size == 8 && !m->key_var && !m->val_var &&
               m->bsize == U64_BUCKET && m->val_off == U64_VALUE && how >= 0 &&
               m->limit >= INLINE_PROBES;
    size_t i = 0;
    bcl_status err = BCL_OK;
    if (fast && !*refusing)
        i = apply_u64_run(m, run->keys, run->kstride, run->vals, run->vstride, run->n, how,
                          grow, refusing, fn, ctx, &err);
    return err != BCL_OK ? err : apply_general_run(m, run, i, grow, refusing, fn, ctx);
}
