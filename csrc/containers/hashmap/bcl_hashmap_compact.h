/*
 * bcl_hashmap_compact.h -- the compact bucket layout (internal to the hash
 * map's files: included by bcl_hashmap_internal.h; docs/hashmap.md,
 * "Compact buckets", states how each promise holds).
 *
 * A map of fixed-size keys of at most 8 bytes and a fixed-size value has no
 * status word in its buckets:
 *
 *     +0  uint64 key word   the key's bytes, zero-extended; or a reserved word
 *     +8  value slot        val_size bytes, rounded up to 8
 *
 * The key word is the bucket's state:
 *     EMPTY (0)    never used: zeroed (or never touched) memory is an empty table
 *     TOMB         erased; passed by lookups, reused by placements
 *     BUSY         held: a writer or an atomic reader owns the bucket
 *     other        the key stored there
 * A key whose word equals a reserved one (at most three keys; of keys shorter
 * than 8 bytes only the all-zero key, since TOMB and BUSY have no zero byte)
 * lives in a small map of the classic layout, m->side, with the same block
 * distribution (a key's side bucket is on the rank that owns its home), and
 * every operation on such a key goes there.
 *
 * Exclusive access instead of reader counts.  Every operation on a stored
 * entry that no promise covers holds the bucket while it reads or writes the
 * value: CAS(key -> BUSY) takes it -- and since the word *is* the key, the
 * CAS verifies the key too (no ABA check needed) -- and writing the key word
 * back gives it back.  Erase is one CAS(key -> TOMB).  Atomic finds of one
 * key take turns; the find-only promise reads key word and value with plain
 * loads (one get on rma) and takes nothing.
 *
 * Placement (storing a key in a bucket that does not hold it) follows the
 * classic protocol, with the placement lock and epoch in one word per
 * STRIPE buckets (after the block's buckets) instead of the home bucket's
 * status: bit 0 the lock, bits 1-63 the epoch.  The fast path reads the
 * key's home stripe word before its first probe, claims the first EMPTY
 * bucket with CAS(EMPTY -> BUSY) and re-reads the word: a held lock or a
 * new epoch gives the bucket back (EMPTY) and takes the slow path, which
 * holds the stripe's lock while it scans to the first EMPTY bucket and
 * reserves the first tombstone (or that bucket); releasing the lock adds 1
 * to the word (bit 0 set: clears it and carries one epoch).
 */
#ifndef BCL_HASHMAP_COMPACT_H
#define BCL_HASHMAP_COMPACT_H

#include <stdint.h>
#include <string.h>

#include "containers/hashmap/bcl_hashmap.h"

/* TOMB and BUSY: no zero byte (so no key shorter than 8 bytes is either),
 * the two top bits set (so no k-mer code of k <= 31 is either). */
#define BCL_HMC_EMPTY ((uint64_t)0)
#define BCL_HMC_TOMB ((uint64_t)0xE5A1C0DE7B3F9A41ull)
#define BCL_HMC_BUSY ((uint64_t)0xE5A1C0DE7B3F9A42ull)
#define BCL_HMC_VALUE 8u            /* the value slot's offset */
#define BCL_HMC_STRIPE 256u         /* buckets per placement word */
#define BCL_HMC_PLOCK ((uint64_t)1) /* the placement word's lock bit */
/* Buckets of the side map per rank: it holds at most three keys, and a
 * table accepts inserts until at least half full. */
#define BCL_HMC_SIDE_PER_RANK 8u
/* Keys whose word is reserved: three of 8-byte keys, the zero key of
 * shorter ones. */
#define BCL_HMC_SIDE_KEYS(key_size) ((key_size) == 8 ? 3u : 1u)

/* Does the compact layout apply to these types (fixed key of 1-8 bytes,
 * fixed value)? */
static inline int bcl_hmc_fits(size_t key_size, size_t val_size)
{
    return key_size >= 1 && key_size <= 8 && val_size >= 1;
}

/* A key's word: its bytes, zero-extended to 8. */
static inline uint64_t bcl_hmc_word(const void *key, size_t key_size)
{
    uint64_t w = 0;
    memcpy(&w, key, key_size);
    return w;
}

static inline int bcl_hmc_reserved(uint64_t w)
{
    return w == BCL_HMC_EMPTY || w == BCL_HMC_TOMB || w == BCL_HMC_BUSY;
}

/* Does this key of a compact map live in the side map? */
static inline int bcl_hmc_side_key(const bcl_hashmap *m, const void *key)
{
    return bcl_hmc_reserved(bcl_hmc_word(key, m->key_size));
}

static inline uint64_t bcl_hmc_load(const unsigned char *b)
{
    return __atomic_load_n((const uint64_t *)b, __ATOMIC_ACQUIRE);
}

/* The placement word of the stripe holding global bucket idx. */
static inline bcl_gptr bcl_hmc_stripe(const bcl_hashmap *m, uint64_t idx)
{
    uint64_t r = idx / m->block, local = idx - r * m->block;
    return bcl_gptr_make((int)r, m->base[r] + m->stripe_off + (local / BCL_HMC_STRIPE) * 8);
}

/* Bytes of a compact block: the buckets, then the placement words. */
static inline uint64_t bcl_hmc_block_bytes(uint64_t block, size_t bsize, uint64_t *stripe_off)
{
    *stripe_off = block * bsize;
    return *stripe_off + (block + BCL_HMC_STRIPE - 1) / BCL_HMC_STRIPE * 8;
}

/* ---- the operations on keys in the compact table (bcl_hashmap_compact.c);
 * the callers in bcl_hashmap.c sent the side map's keys there already. */
bcl_status bcl_hmc_insert(const bcl_hashmap *m, const bcl_hm_key *k, const void *val);
/* find: under the find-only promise, one get a probe (*fallback: a bucket
 * was held after all, use the protocol); else the protocol's. */
bcl_status bcl_hmc_find_only(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                             int *found, int *fallback);
bcl_status bcl_hmc_find_atomic(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                               int *found);
bcl_status bcl_hmc_accumulate(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta);
bcl_status bcl_hmc_erase(const bcl_hashmap *m, const bcl_hm_key *k, int *found);
bcl_status bcl_hmc_lock_key(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                            bcl_mp_writer *out, int *found);
bcl_status bcl_hmc_commit_slot(const bcl_hashmap *m, const bcl_hm_lock *lk,
                               const void *val);
bcl_status bcl_hmc_abort(const bcl_hashmap *m, const bcl_hm_lock *lk);

/* ---- batches (bcl_hashmap_compact_batch.c): keys in the compact table
 * only (bcl_hashmap_many.c gives the keys in reserved words to the side
 * map); outcome / found / out as bcl_hashmap_many.c's run_all; *n_full (may
 * be NULL) and *n_over are added to.  kind: 0 insert, 1 accumulate, 2 find,
 * 3 find-only. */
enum { BCL_HMC_INSERT, BCL_HMC_ACC, BCL_HMC_FIND, BCL_HMC_FIND_ONLY };
bcl_status bcl_hmc_batch(const bcl_hashmap *m, int kind, const void *keys, const void *vals,
                         size_t k, void *out, unsigned char *found, size_t *n_full,
                         unsigned char *outcome, size_t *n_over);

/* ---- this rank's block with plain loads and stores
 * (bcl_hashmap_compact_local.c) */
bcl_status bcl_hmc_apply_local(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                               int accumulate, int *spilled);
bcl_status bcl_hmc_apply_many_local(const bcl_hashmap *m, const bcl_hm_run *run, int grow,
                                    int *refusing, bcl_hm_bulk_fn fn, void *ctx);
/* Resize's move of this rank's entries into m2 (bcl_hm_resize's contract:
 * plain stores into our new block, a barrier, the spills atomically; *err
 * this rank's failure).  release: give the old block's pages back to the
 * system as they are read (the move cannot fail once it starts: every
 * rank agreed the entries fill at most half of m2). */
bcl_status bcl_hmc_move_entries(const bcl_hashmap *m, const bcl_hashmap *m2, int release,
                                bcl_status *err);

#endif /* BCL_HASHMAP_COMPACT_H */
