/*
 * bcl_hashmap_internal.h -- what the hash table's source files share (not
 * part of the core's API: include it only from containers/hashmap/bcl_hashmap*.c).
 *
 *   bcl_hashmap_bucket.c  the bucket protocol: status-word transitions, the
 *                         buckets this thread holds, writing a bucket,
 *                         placement (finding the key's bucket or a place for
 *                         it), modify's lock / commit / abort
 *   bcl_hashmap.c         the operations: insert, find, accumulate, erase,
 *                         local insert
 *   bcl_hashmap_seq.c     batches key by key with the operations above
 *   bcl_hashmap_bulk.c    many entries applied to this rank's own block
 *                         (HashMapBuffer's owner side)
 *   bcl_hashmap_table.c   whole-table operations: create, destroy, size,
 *                         local scan, resize
 *   bcl_hashmap_batch.c   the pipelined batches' engine: each key's protocol
 *                         as a state machine, rounds (bcl_hashmap_batch.h)
 *   bcl_hashmap_many.c    insert/accumulate_many and the protocol's
 *                         find_many: chunks, windows, duplicates merged
 *   bcl_hashmap_find_direct.c  find_many: plain loads under the find-only
 *                         promise on shm, else the protocol's
 *   bcl_hashmap_find_exchange.c  the collective find_many
 *   bcl_hashmap_compact*.c  the compact layout (bcl_hashmap_compact.h):
 *                         its protocol, batches, and own-block work
 *   bcl_hashmap_values.c  this rank's integer values read in place
 *   bcl_hashmap_num.c     the checked add of numeric values (both layouts)
 *   bcl_hashmap_local.c   one entry into this rank's block (classic layout)
 *
 * The protocol itself is described in bcl_hashmap.h.
 */
#ifndef BCL_HASHMAP_INTERNAL_H
#define BCL_HASHMAP_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "containers/hashmap/bcl_hashmap.h"
#include "containers/hashmap/bcl_hashmap_compact.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define ST(x) ((x) & BCL_HM_STATE)
#define META(x) ((x) & BCL_HM_META)
#define RELEASE_READER ((uint64_t)0 - BCL_HM_READER)
/* RESERVED -> READY and drop our reader count, in one fetch-add. */
#define PUBLISH_AS_READER ((uint64_t)(BCL_HM_READY - BCL_HM_RESERVED) - BCL_HM_READER)
#define RESERVED_TO_READY (BCL_HM_RESERVED ^ BCL_HM_READY)    /* XOR mask */
/* The same transitions as additions (when the state is known RESERVED). */
#define PUBLISH ((uint64_t)(BCL_HM_READY - BCL_HM_RESERVED))
#define UNRESERVE ((uint64_t)0 - BCL_HM_RESERVED)

/* Stack buffer for small slots, heap for large ones (keys may be long S
 * dtypes or structured types). */
typedef struct scratch {
    unsigned char small[256];
    unsigned char *p;
} scratch;

static inline unsigned char *scratch_get(scratch *s, size_t n)
{
    s->p = n <= sizeof s->small ? s->small : malloc(n);
    if (!s->p)
        bcl_set_error(BCL_ERR_NOMEM, "no memory for a %zu-byte slot", n);
    return s->p;
}

static inline void scratch_free(scratch *s)
{
    if (s->p && s->p != s->small)
        free(s->p);
}

/* This rank's bucket i (of its own block), for plain CPU access. */
static inline unsigned char *bcl_hm_local_bucket(const bcl_hashmap *m, uint64_t i)
{
    return bcl_rt.local_base + m->base[bcl_rt.rank] + i * m->bsize;
}

static inline uint64_t bcl_hm_load_status(const unsigned char *b)
{
    return __atomic_load_n((const uint64_t *)b, __ATOMIC_ACQUIRE);
}

/* Plain copies and compares of a key or value: a word or two inline for
 * the common sizes (a call to the C library costs more than the bucket
 * access once the bulk apply hides its latency). */
static inline void bcl_hm_copy_slot(void *dst, const void *src, size_t n)
{
    if (n == 8)
        memcpy(dst, src, 8);
    else if (n == 4)
        memcpy(dst, src, 4);
    else
        memcpy(dst, src, n);
}

static inline int bcl_hm_same_key(const void *slot, const void *key, size_t n)
{
    if (n == 8) {
        uint64_t a, b;
        memcpy(&a, slot, 8);
        memcpy(&b, key, 8);
        return a == b;
    }
    return memcmp(slot, key, n) == 0;
}

/* The global bucket index a hash starts its probe sequence at. */
static inline uint64_t bcl_hm_home(const bcl_hashmap *m, uint64_t h)
{
    return (uint64_t)(((unsigned __int128)h * m->n) >> 64);
}

/* A lookup with plain loads along the key's probe sequence, through the
 * buckets this process maps (bcl_local_addr: its own block, or every block
 * on shm).  Only while no rank writes the map: under the find-only promise,
 * or with every rank inside a collective call.  1 found (value copied), 0
 * absent, -1 ask the protocol: a writer holds a bucket on the way, or the
 * sequence reaches a bucket not mapped here. */
#define BCL_HM_PLAIN_ON 2      /* bcl_hm_plain_step: another key or a tombstone */

/* One bucket of such a lookup, at address b: 1 the key (value copied), 0
 * free (the key is absent), -1 a writer holds it, BCL_HM_PLAIN_ON go on. */
static inline int bcl_hm_plain_step(const bcl_hashmap *m, const unsigned char *b,
                                    const unsigned char *key, unsigned char *val)
{
    if (m->compact) {
        uint64_t w = bcl_hmc_load(b);
        if (w == BCL_HMC_BUSY)
            return -1;
        if (w == BCL_HMC_EMPTY)
            return 0;
        if (w != bcl_hmc_word(key, m->key_size))
            return BCL_HM_PLAIN_ON;
        bcl_hm_copy_slot(val, b + BCL_HMC_VALUE, m->val_size);
        return 1;
    }
    uint64_t s = bcl_hm_load_status(b);
    if (s & BCL_HM_BUSY)
        return -1;
    if (ST(s) == BCL_HM_FREE)
        return 0;
    if (ST(s) == BCL_HM_READY && bcl_hm_same_key(b + 8, key, m->key_size)) {
        bcl_hm_copy_slot(val, b + m->val_off, m->val_size);
        return 1;
    }
    return BCL_HM_PLAIN_ON;
}

static inline int bcl_hm_find_plain(const bcl_hashmap *m, const unsigned char *key,
                                    uint64_t h, unsigned char *val)
{
    bcl_hm_probe p;
    uint64_t idx;
    if (m->compact && bcl_hmc_side_key(m, key))
        return bcl_hm_find_plain(m->side, key, h, val);
    bcl_hm_probe_init(m, &p, h);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        const unsigned char *b = bcl_local_addr(bcl_hm_bucket(m, idx));
        int r = b ? bcl_hm_plain_step(m, b, key, val) : -1;
        if (r != BCL_HM_PLAIN_ON)
            return r;
    }
    return 0;
}

/* A plain store of key and value into a bucket of this rank's block no other
 * rank touches (local promise, bulk apply), then READY with a release
 * store: readers that see READY see the bytes. */
static inline void bcl_hm_local_store(const bcl_hashmap *m, unsigned char *b,
                                      const bcl_hm_key *k, const void *val)
{
    bcl_hm_copy_slot(b + 8, k->bytes, m->key_size);
    bcl_hm_copy_slot(b + m->val_off, val, m->val_size);
    uint64_t s = bcl_hm_load_status(b);
    __atomic_store_n((uint64_t *)b, (s & ~(uint64_t)BCL_HM_STATE) | BCL_HM_READY,
                     __ATOMIC_RELEASE);
}

/* Does bucket b of this rank's block hold an entry (either layout)?  For
 * the whole-block scans, which run while nobody writes the block. */
static inline int bcl_hm_local_entry(const bcl_hashmap *m, const unsigned char *b)
{
    if (m->compact)
        return !bcl_hmc_reserved(bcl_hmc_load(b));
    return (bcl_hm_load_status(b) & BCL_HM_STATE) == BCL_HM_READY;
}

/* The end of one entry of a bulk apply: the callback hears of anything but
 * a plain success (st, spilled: the local apply's); a full map that grows
 * refuses the rest of the run. */
static inline bcl_status bcl_hm_apply_heard(bcl_status st, int spilled,
                                            const unsigned char *key,
                                            const unsigned char *val, int acc, int grow,
                                            int *refusing, bcl_hm_bulk_fn fn, void *ctx)
{
    if (st == BCL_OK && !spilled)
        return BCL_OK;
    if (st == BCL_ERR_FULL && grow)
        *refusing = 1;     /* grown before the next try: stop probing */
    if (st != BCL_OK && st != BCL_ERR_FULL && st != BCL_ERR_OVERFLOW)
        return st;
    return fn(ctx, key, val, acc, st, spilled);
}

/* bcl_hm_apply_local for a map of the classic layout (bcl_hashmap_local.c). */
bcl_status bcl_hm_classic_apply_local(const bcl_hashmap *m, const bcl_hm_key *k,
                                      const void *val, int accumulate, int *spilled);

/* bcl_hm_erase_many of k fixed-size keys, one scratch slot for them all
 * (bcl_hashmap.c; bcl_hashmap_seq.c calls it). */
bcl_status bcl_hm_erase_fixed(const bcl_hashmap *m, const void *keys, size_t k,
                              unsigned char *found);

/* Keys per chunk of a pipelined batch (bcl_hashmap_batch.c). */
size_t bcl_hm_chunk_keys(int rma);

/* ---- bucket protocol steps (bcl_hashmap_bucket.c) ------------------------ */

/* bcl_hm_lock_key / _commit / _abort (bcl_hashmap.h) for a map of the
 * classic layout; the public ones choose the layout (bcl_hashmap_compact.c). */
bcl_status bcl_hm_classic_lock_key(const bcl_hashmap *m, const bcl_hm_key *k,
                                   bcl_hm_lock *lk, bcl_mp_writer *out, int *found);
bcl_status bcl_hm_classic_commit(const bcl_hashmap *m, const bcl_hm_lock *lk,
                                 const bcl_hm_key *k, const void *val, size_t len);
bcl_status bcl_hm_classic_abort(const bcl_hashmap *m, const bcl_hm_lock *lk);

/* BCL_ERR_FULL: no free bucket along the key's probe sequence. */
bcl_status bcl_hm_full_error(const bcl_hashmap *m);

/* The probe of one key through this rank's own block with plain loads, as
 * every local apply walks it (fixed-size and variable-length entries alike):
 * no other rank writes the block meanwhile, so the first tombstone can be
 * reused once the key is known absent.  Inline: the fixed apply is the bulk
 * path's fallback. */
typedef struct bcl_hm_local_walk {
    bcl_hm_probe p;
    uint64_t first;            /* this rank's first bucket */
    unsigned char *tomb;       /* the first tombstone seen */
    unsigned char *b;          /* see bcl_hm_local_next */
    bcl_status st;
} bcl_hm_local_walk;

static inline bcl_hm_local_walk bcl_hm_local_walk_of(const bcl_hashmap *m, uint64_t hash)
{
    bcl_hm_local_walk w = { .first = (uint64_t)bcl_rt.rank * m->block };
    bcl_hm_probe_init(m, &w.p, hash);
    return w;
}

/* 1: w->b is the next READY bucket of the probe (the caller compares its
 * key).  0: the walk is over -- w->st BCL_OK with w->b the bucket to store
 * the key in (the first tombstone, else the free bucket that ended the
 * probe), or NULL when the probe leaves the block first (the entry spills to
 * the owner's shared path); else w->st the error: a bucket being written
 * (the rule that nobody else writes the block was broken: message `broken`)
 * or a full table. */
static inline int bcl_hm_local_next(const bcl_hashmap *m, bcl_hm_local_walk *w,
                                    const char *broken)
{
    uint64_t idx;
    while (bcl_hm_probe_next(m, &w->p, &idx)) {
        w->b = NULL;
        if (idx < w->first || idx >= w->first + m->block)
            return 0;                            /* leaves our block */
        unsigned char *c = bcl_hm_local_bucket(m, idx - w->first);
        uint64_t s = ST(bcl_hm_load_status(c));
        if (s == BCL_HM_TOMB) {
            if (!w->tomb)
                w->tomb = c;
            continue;
        }
        w->b = s == BCL_HM_FREE && w->tomb ? w->tomb : c;
        if (s == BCL_HM_READY)
            return 1;
        if (s != BCL_HM_FREE)
            w->st = bcl_set_error(BCL_ERR_STATE, "%s", broken);
        return 0;
    }
    if (!(w->b = w->tomb))
        w->st = bcl_hm_full_error(m);
    return 0;
}

/* Scratch space for a bucket, value or key copied out for a moment: the
 * caller's `small` stack array (cap bytes) when n bytes fit -- the common,
 * fixed-size case, with no allocation -- else the heap.  *buf is NULL after
 * a failure (the error set); bcl_hm_scratch_end gives it back either way. */
static inline bcl_status bcl_hm_scratch(unsigned char *small, size_t cap, size_t n,
                                        unsigned char **buf)
{
    *buf = n <= cap ? small : malloc(n);
    return *buf ? BCL_OK
                : bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu bytes of scratch space", n);
}

static inline void bcl_hm_scratch_end(unsigned char *buf, const unsigned char *small)
{
    if (buf != small)
        free(buf);
}

/* The buckets this thread holds between lock and commit/abort (see
 * bcl_hm_check_held). */
void bcl_hm_hold(bcl_gptr b);
void bcl_hm_unhold(bcl_gptr b);

/* Spin (atomic loads only) until no writer holds the bucket (BUSY clear). */
bcl_status bcl_hm_wait_unreserved(bcl_gptr st, uint64_t *cur);

/* Take the placement lock `bit` of the word at `word` (a classic home's
 * status, a compact stripe's placement word): fetch-or it until it was
 * clear.  Each layout releases it with its own add, which also counts the
 * word's epoch. */
bcl_status bcl_hm_plock_acquire(bcl_gptr word, uint64_t bit);

/* Try to reserve a FREE bucket (*taken = 1), else *cur: its status. */
bcl_status bcl_hm_claim_free(bcl_gptr st, uint64_t expect, uint64_t *cur, int *taken,
                             uint64_t *seen);

/* Publish, unreserve, drop a reader count: nobody waits for the result, so
 * the op is posted and completes with this rank's next flush of the owner
 * (our own later atomics on the word are ordered after it; others who need
 * the bucket wait for it, and we complete our posted ops before we spin).
 * Inline: every scalar operation calls it, from three files. */
static inline bcl_status bcl_hm_add_status(bcl_gptr st, uint64_t delta)
{
    return bcl_atomic_post(st, 8, BCL_OP_ADD, delta);
}

/* Read the key slot of bucket b. */
static inline bcl_status bcl_hm_read_key_slot(const bcl_hashmap *m, bcl_gptr b, void *slot)
{
    return bcl_get(slot, bcl_hm_at(b, 8), m->key_slot);
}

/* Bytes of a value slot (the slot itself, or the out-of-line bytes) -> out. */
bcl_status bcl_hm_slot_value_out(const bcl_hashmap *m, const void *slot,
                                 bcl_mp_writer *out);

/* Write key and value slot into a bucket reserved from FREE, then publish. */
bcl_status bcl_hm_write_fresh(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                              const void *val, uint64_t publish, uint64_t undo);

/* Lock bucket b, which held k when we looked; *lost = 1: it no longer does. */
bcl_status bcl_hm_lock_entry(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                             unsigned char *slot, int *lost);

/* The key's bucket, locked (lk->fresh = 0), or a reserved place for it
 * (lk->fresh = 1); either way held until commit / abort.  `slot`: scratch
 * of key_slot bytes. */
bcl_status bcl_hm_locate(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                         unsigned char *slot);

/* Commit with the value slot's contents (a fixed value, or a bcl_objref the
 * map takes over on BCL_OK). */
bcl_status bcl_hm_commit_slot(const bcl_hashmap *m, const bcl_hm_lock *lk,
                              const bcl_hm_key *k, const void *slot);

/* ---- values: the map owns their out-of-line storage ----------------------
 * A value arrives as its serialized bytes.  bcl_hm_value_in turns them into
 * the contents of a value slot: a fixed value is its own slot (len must be
 * val_size); a variable one is stored out of line now, in this rank's
 * segment, and *slot points to its reference in *ref.  An operation that
 * then fails gives the storage back with bcl_hm_value_back (returns st). */
bcl_status bcl_hm_value_in(const bcl_hashmap *m, const void *val, size_t len,
                           bcl_objref *ref, const void **slot);
bcl_status bcl_hm_value_back(const bcl_hashmap *m, bcl_status st, bcl_objref ref);

/* ---- find_many's paths -------------------------------------------------- */

/* find_many by the batch protocol (bcl_hashmap_many.c), whatever the
 * transport: what bcl_hm_find_many does where plain loads may not serve. */
bcl_status bcl_hm_find_protocol(const bcl_hashmap *m, const void *keys, size_t k, void *vals,
                                unsigned char *found, int promise);

/* bcl_hashmap_find_direct.c: */

/* May find_many with this promise read buckets with plain loads (the
 * find-only promise, fixed-size keys and values, every block mapped)? */
int bcl_hm_find_direct_ok(const bcl_hashmap *m, int promise);
bcl_status bcl_hm_find_direct(const bcl_hashmap *m, const void *keys, size_t n, void *vals,
                              unsigned char *found);

#endif /* BCL_HASHMAP_INTERNAL_H */
