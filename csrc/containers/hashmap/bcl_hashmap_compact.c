/* bcl_hashmap_compact.c -- the scalar protocol of the compact layout:
 * holding a bucket, placement (fast and under the stripe's lock), insert,
 * find, accumulate, erase and modify's lock / commit / abort (layout and
 * argument: bcl_hashmap_compact.h; the interleavings: docs/hashmap.md). */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <string.h>

#define EMPTY BCL_HMC_EMPTY
#define TOMB BCL_HMC_TOMB
#define BUSY BCL_HMC_BUSY

static inline uint64_t kword(const bcl_hashmap *m, const bcl_hm_key *k)
{
    return bcl_hmc_word(k->bytes, m->key_size);
}

static bcl_status load_word(bcl_gptr b, uint64_t *w)
{
    return bcl_fetch_op(b, 8, BCL_OP_NOOP, 0, w);
}

/* Give a held bucket back with word w (the key, TOMB or EMPTY).  Posted:
 * it completes with our next flush of that rank, or before we spin, and
 * our own later atomics on the word are ordered after it. */
static bcl_status give_back(bcl_gptr b, uint64_t w)
{
    return bcl_atomic_post(b, 8, BCL_OP_REPLACE, w);
}

/* Wait while bucket b is held (*w: its word, BUSY on entry); *w ends as the
 * first other word seen.  A bucket this thread holds (modify's fn) would
 * never come back: BCL_ERR_REENTRY. */
static bcl_status wait_free(bcl_gptr b, uint64_t *w)
{
    unsigned spins = 0;
    bcl_status s = *w == BUSY ? bcl_hm_check_held(b) : BCL_OK;
    while (s == BCL_OK && *w == BUSY) {
        if ((s = bcl_relax(&spins)) == BCL_OK)
            s = load_word(b, w);
    }
    return s;
}

/* CAS(kw -> desired) on bucket b, retried once a holder gives it back:
 * *old ends as the word the last CAS met, never BUSY (kw: it took). */
static bcl_status cas_unless_held(bcl_gptr b, uint64_t kw, uint64_t desired, uint64_t *old)
{
    for (;;) {
        bcl_status st = bcl_cas(b, 8, kw, desired, old);
        if (st != BCL_OK || *old != BUSY)
            return st;
        if ((st = wait_free(b, old)) != BCL_OK)
            return st;
    }
}

/* ---- placement ------------------------------------------------------------ */

enum { LOC_LOCKED, LOC_FRESH, LOC_SLOW, LOC_RESTART };

static void lock_set(bcl_hm_lock *lk, uint64_t idx, int fresh, int tomb, uint64_t word)
{
    lk->idx = idx;
    lk->fresh = fresh;
    lk->tomb = tomb;
    lk->side = 0;
    lk->word = word;
}

/* The fast path: the key's bucket, held (LOC_LOCKED), or the first EMPTY
 * bucket claimed while no tombstone placement of a key of the home's stripe
 * started or ended (LOC_FRESH).  LOC_SLOW: a tombstone is on the way, or the
 * stripe's word moved. */
static bcl_status locate_fast(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                              int *res)
{
    bcl_hm_probe p;
    uint64_t kw = kword(m, k), idx, home, e0, old, h;
    bcl_hm_probe_init(m, &p, k->hash);
    if (!bcl_hm_probe_next(m, &p, &idx))
        return bcl_hm_full_error(m);
    home = idx;
    bcl_gptr sw = bcl_hmc_stripe(m, home);
    bcl_status st = load_word(sw, &e0);       /* before any bucket is passed */
    if (st != BCL_OK)
        return st;
    do {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        for (;;) {
            if ((st = bcl_cas(b, 8, kw, BUSY, &old)) != BCL_OK)
                return st;
            if (old == kw) {
                lock_set(lk, idx, 0, 0, kw);
                *res = LOC_LOCKED;
                return BCL_OK;
            }
            if (old == BUSY) {
                if ((st = wait_free(b, &old)) != BCL_OK)
                    return st;
                continue;                     /* look at it again */
            }
            if (old == TOMB) {
                *res = LOC_SLOW;
                return BCL_OK;
            }
            if (old != EMPTY)
                break;                        /* another key: go on */
            if ((st = bcl_cas(b, 8, EMPTY, BUSY, &old)) != BCL_OK)
                return st;
            if (old != EMPTY)
                continue;                     /* taken meanwhile: look again */
            lock_set(lk, idx, 1, 0, kw);
            if ((st = load_word(sw, &h)) != BCL_OK)
                return st;
            if (h == e0 && !(h & BCL_HMC_PLOCK)) {
                *res = LOC_FRESH;
                return BCL_OK;
            }
            *res = LOC_SLOW;
            return give_back(b, EMPTY);
        }
    } while (bcl_hm_probe_next(m, &p, &idx));
    return bcl_hm_full_error(m);
}

/* Clear the lock and count one epoch in one add (bit 0 is set). */
static bcl_status plock_release(bcl_gptr sw)
{
    return bcl_atomic_post(sw, 8, BCL_OP_ADD, 1);
}

/* One scan under the stripe's lock: the key's bucket (*eq), a bucket held by
 * someone (*busy: the caller waits for it without the lock), or the first
 * tombstone / the EMPTY bucket ending the sequence (*have, its word *atw). */
static bcl_status slow_scan(const bcl_hashmap *m, const bcl_hm_key *k, uint64_t *at,
                            uint64_t *atw, int *have, int *eq, int *busy)
{
    bcl_hm_probe p;
    uint64_t idx, w, kw = kword(m, k);
    *have = *eq = *busy = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_status st = load_word(bcl_hm_bucket(m, idx), &w);
        if (st != BCL_OK)
            return st;
        if (w == BUSY || w == kw) {
            *busy = w == BUSY;
            *eq = w == kw;
            *at = idx;
            return BCL_OK;
        }
        if (w != TOMB && w != EMPTY)
            continue;
        if (!*have) {
            *have = 1;
            *at = idx;
            *atw = w;
        }
        if (w == EMPTY)
            return BCL_OK;
    }
    return BCL_OK;
}

/* The slow path: under the stripe's lock no other placement of this key
 * happens, so one scan decides; the first tombstone (or the EMPTY bucket) is
 * taken, then the lock goes with a new epoch (the held bucket keeps the
 * key's other placers waiting). */
static bcl_status locate_slow(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                              int *res)
{
    uint64_t at = 0, atw = 0, old, kw = kword(m, k);
    bcl_gptr sw = bcl_hmc_stripe(m, bcl_hm_home(m, k->hash));
    bcl_status st = bcl_hm_plock_acquire(sw, BCL_HMC_PLOCK);
    if (st != BCL_OK)
        return st;
    for (;;) {
        int have, eq, busy;
        if ((st = slow_scan(m, k, &at, &atw, &have, &eq, &busy)) != BCL_OK)
            break;
        bcl_gptr b = bcl_hm_bucket(m, at);
        if (busy) {
            /* Wait without the lock (the holder may be a modify() whose fn
             * places a key of this stripe), then scan afresh. */
            uint64_t w = BUSY;
            if ((st = plock_release(sw)) != BCL_OK || (st = wait_free(b, &w)) != BCL_OK ||
                (st = bcl_hm_plock_acquire(sw, BCL_HMC_PLOCK)) != BCL_OK)
                return st;
            continue;
        }
        if (eq) {
            if ((st = plock_release(sw)) != BCL_OK ||
                (st = bcl_cas(b, 8, kw, BUSY, &old)) != BCL_OK)
                return st;
            lock_set(lk, at, 0, 0, kw);
            *res = old == kw ? LOC_LOCKED : LOC_RESTART;
            return BCL_OK;
        }
        if (!have) {
            st = bcl_hm_full_error(m);
            break;
        }
        if ((st = bcl_cas(b, 8, atw, BUSY, &old)) != BCL_OK)
            break;
        if (old == atw) {
            lock_set(lk, at, 1, atw == TOMB, kw);
            *res = LOC_FRESH;
            return plock_release(sw);
        }
        /* Another key's placement took it first: scan again (ours still
         * cannot appear while we hold the lock). */
    }
    plock_release(sw);
    return st;
}

/* The key's bucket, held (lk->fresh = 0), or a held place for it
 * (lk->fresh = 1), until commit / abort. */
static bcl_status locate(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk)
{
    for (;;) {
        int res = LOC_RESTART;
        bcl_status st = locate_fast(m, k, lk, &res);
        if (st == BCL_OK && res == LOC_SLOW)
            st = locate_slow(m, k, lk, &res);
        if (st != BCL_OK || res != LOC_RESTART)
            return st;
    }
}

/* The word a held bucket goes back with, unchanged. */
static uint64_t unchanged(const bcl_hm_lock *lk)
{
    return !lk->fresh ? lk->word : lk->tomb ? TOMB : EMPTY;
}

/* Store the value and publish the key (the put completes before the key
 * word changes: readers that see the key see the value). */
static bcl_status commit(const bcl_hashmap *m, const bcl_hm_lock *lk, const void *val)
{
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    bcl_status st = bcl_put(bcl_hm_at(b, BCL_HMC_VALUE), val, m->val_size);
    if (st != BCL_OK) {
        give_back(b, unchanged(lk));
        return st;
    }
    return give_back(b, lk->word);
}

/* ---- the operations ---------------------------------------------------------- */

bcl_status bcl_hmc_insert(const bcl_hashmap *m, const bcl_hm_key *k, const void *val)
{
    bcl_hm_lock lk;
    bcl_status st = locate(m, k, &lk);
    return st != BCL_OK ? st : commit(m, &lk, val);
}

/* Find-only: one get of the bucket per probe, nothing taken.  *fallback: a
 * bucket was held after all (the promise was not kept): use the protocol. */
bcl_status bcl_hmc_find_only(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                             int *found, int *fallback)
{
    bcl_hm_probe p;
    uint64_t idx, kw = kword(m, k), w;
    unsigned char small[512], *buf;
    bcl_status st = bcl_hm_scratch(small, sizeof small, m->bsize, &buf);
    *found = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (st == BCL_OK && bcl_hm_probe_next(m, &p, &idx)) {
        if ((st = bcl_get(buf, bcl_hm_bucket(m, idx), m->bsize)) != BCL_OK)
            break;
        memcpy(&w, buf, 8);
        if (w == EMPTY)
            break;
        if (w == BUSY) {
            *fallback = 1;
            break;
        }
        if (w == kw) {
            *found = 1;
            st = bcl_hm_slot_value_out(m, buf + BCL_HMC_VALUE, out);
            break;
        }
    }
    bcl_hm_scratch_end(buf, small);
    return st;
}

bcl_status bcl_hmc_find_atomic(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                               int *found)
{
    bcl_hm_probe p;
    uint64_t idx, kw = kword(m, k), old;
    unsigned char small[512], *val;
    bcl_status st = bcl_hm_scratch(small, sizeof small, m->val_slot, &val);
    *found = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (st == BCL_OK && bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        st = cas_unless_held(b, kw, BUSY, &old);
        if (st != BCL_OK || old == EMPTY)
            break;
        if (old != kw)
            continue;                         /* another key or a tombstone */
        st = bcl_get(val, bcl_hm_at(b, BCL_HMC_VALUE), m->val_slot);
        bcl_status gs = give_back(b, kw);
        if (st == BCL_OK)
            st = gs;
        if (st == BCL_OK) {
            *found = 1;
            st = bcl_hm_slot_value_out(m, val, out);
        }
        break;
    }
    bcl_hm_scratch_end(val, small);
    return st;
}

bcl_status bcl_hmc_accumulate(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta)
{
    bcl_hm_lock lk;
    unsigned char v[16];
    bcl_status st = locate(m, k, &lk);
    if (st != BCL_OK)
        return st;
    if (lk.fresh)
        return commit(m, &lk, delta);
    bcl_gptr b = bcl_hm_bucket(m, lk.idx);
    if ((st = bcl_get(v, bcl_hm_at(b, BCL_HMC_VALUE), m->val_size)) != BCL_OK ||
        bcl_hm_num_add(m, v, delta)) {
        bcl_status gs = give_back(b, lk.word);
        return st != BCL_OK ? st : gs != BCL_OK ? gs : bcl_hm_overflow_error(m, delta);
    }
    return commit(m, &lk, v);
}

bcl_status bcl_hmc_erase(const bcl_hashmap *m, const bcl_hm_key *k, int *found)
{
    bcl_hm_probe p;
    uint64_t idx, kw = kword(m, k), old;
    bcl_status st = BCL_OK;
    *found = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (st == BCL_OK && bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        /* One CAS removes the key: whoever held it has given it back. */
        st = cas_unless_held(b, kw, TOMB, &old);
        if (st != BCL_OK || old == EMPTY)
            break;
        if (old == kw) {
            *found = 1;
            break;
        }
    }
    return st;
}

/* ---- modify: lock / commit / abort ----------------------------------------- */

bcl_status bcl_hmc_lock_key(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                            bcl_mp_writer *out, int *found)
{
    *found = 0;
    bcl_status st = locate(m, k, lk);
    if (st != BCL_OK)
        return st;
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    if (!lk->fresh) {
        unsigned char small[512], *val;
        st = bcl_hm_scratch(small, sizeof small, m->val_slot, &val);
        if (st == BCL_OK)
            st = bcl_get(val, bcl_hm_at(b, BCL_HMC_VALUE), m->val_slot);
        if (st == BCL_OK)
            st = bcl_hm_slot_value_out(m, val, out);
        bcl_hm_scratch_end(val, small);
        if (st != BCL_OK) {
            give_back(b, unchanged(lk));
            return st;
        }
        *found = 1;
    }
    bcl_hm_hold(b);
    return BCL_OK;
}

bcl_status bcl_hmc_commit_slot(const bcl_hashmap *m, const bcl_hm_lock *lk, const void *val)
{
    bcl_hm_unhold(bcl_hm_bucket(m, lk->idx));
    return commit(m, lk, val);
}

bcl_status bcl_hmc_abort(const bcl_hashmap *m, const bcl_hm_lock *lk)
{
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    bcl_hm_unhold(b);
    return give_back(b, unchanged(lk));
}

/* ---- lock / commit / abort of either layout (bcl_hashmap.h): a compact
 * map's own, or its side map's (classic) for the keys in reserved words ---- */

bcl_status bcl_hm_lock_key(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                           bcl_mp_writer *out, int *found)
{
    if (!m->compact)
        return bcl_hm_classic_lock_key(m, k, lk, out, found);
    if (!bcl_hmc_side_key(m, k->bytes))
        return bcl_hmc_lock_key(m, k, lk, out, found);
    bcl_status st = bcl_hm_classic_lock_key(m->side, k, lk, out, found);
    lk->side = 1;
    return st;
}

bcl_status bcl_hm_abort(const bcl_hashmap *m, const bcl_hm_lock *lk)
{
    if (!m->compact)
        return bcl_hm_classic_abort(m, lk);
    return lk->side ? bcl_hm_classic_abort(m->side, lk) : bcl_hmc_abort(m, lk);
}

bcl_status bcl_hm_commit(const bcl_hashmap *m, const bcl_hm_lock *lk, const bcl_hm_key *k,
                         const void *val, size_t len)
{
    if (!m->compact)
        return bcl_hm_classic_commit(m, lk, k, val, len);
    if (lk->side)
        return bcl_hm_classic_commit(m->side, lk, k, val, len);
    bcl_objref ref;
    const void *slot;
    bcl_status st = bcl_hm_value_in(m, val, len, &ref, &slot);
    if (st != BCL_OK) {
        /* The bucket is ours until commit or abort: end the hold unchanged. */
        bcl_status ab = bcl_hmc_abort(m, lk);
        return ab != BCL_OK ? ab : st;
    }
    return bcl_hmc_commit_slot(m, lk, slot);
}
