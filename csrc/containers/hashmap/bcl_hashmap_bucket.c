/* bcl_hashmap_bucket.c -- the hash table's bucket protocol: status-word
 * transitions, held buckets, writing a bucket, placement, and modify's
 * lock / commit / abort (protocol: bcl_hashmap.h). */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"

/* ---- small protocol steps ---------------------------------------------- */

bcl_status bcl_hm_full_error(const bcl_hashmap *m)
{
    return bcl_set_error(BCL_ERR_FULL, "hash map full: no free bucket among the %llu "
                         "the key may use (capacity %llu); resize() makes room",
                         (unsigned long long)m->limit, (unsigned long long)m->n);
}

bcl_status bcl_hm_key_equal(const bcl_hashmap *m, const void *slot, const bcl_hm_key *k,
                            int *eq)
{
    if (!m->key_var) {
        *eq = memcmp(slot, k->bytes, m->key_size) == 0;
        return BCL_OK;
    }
    bcl_objref r;
    memcpy(&r, slot, sizeof r);
    *eq = 0;
    if (r.len != k->len)
        return BCL_OK;
    unsigned char small[256], *buf;
    bcl_status st = bcl_hm_scratch(small, sizeof small, r.len, &buf);
    if (st == BCL_OK && r.len)
        st = bcl_obj_load(r, buf);
    if (st == BCL_OK)
        *eq = memcmp(buf, k->bytes, r.len) == 0;
    bcl_hm_scratch_end(buf, small);
    return st;
}

/* ---- buckets this thread holds (modify's lock .. commit/abort) ---------- */
#define HELD_MAX 16
static _Thread_local struct { bcl_gptr b[HELD_MAX]; int n; } held;

void bcl_hm_hold(bcl_gptr b)
{
    if (held.n < HELD_MAX)          /* deeper nesting: just not detected */
        held.b[held.n] = b;
    held.n++;
}

void bcl_hm_unhold(bcl_gptr b)
{
    int kept = held.n < HELD_MAX ? held.n : HELD_MAX;
    for (int i = kept - 1; i >= 0; i--)
        if (held.b[i].rank == b.rank && held.b[i].offset == b.offset) {
            held.b[i] = held.b[kept - 1];
            held.n--;
            return;
        }
    if (held.n > HELD_MAX)          /* one of the unrecorded ones */
        held.n--;
}

bcl_status bcl_hm_check_held(bcl_gptr b)
{
    for (int i = 0; i < held.n && i < HELD_MAX; i++)
        if (held.b[i].rank == b.rank && held.b[i].offset == b.offset)
            return bcl_set_error(BCL_ERR_REENTRY,
                                 "HashMap: this thread holds the bucket it would wait for "
                                 "(a modify() fn used the map on the key it is modifying, "
                                 "or on a key probing through it): it would deadlock");
    return BCL_OK;
}

/* Spin (atomic loads only) until no writer holds the bucket (BUSY clear). */
bcl_status bcl_hm_wait_unreserved(bcl_gptr st, uint64_t *cur)
{
    unsigned spins = 0;
    bcl_status s = (*cur & BCL_HM_BUSY) ? bcl_hm_check_held(st) : BCL_OK;
    while ((*cur & BCL_HM_BUSY) && s == BCL_OK) {
        if ((s = bcl_relax(&spins)) == BCL_OK)
            s = bcl_fetch_op(st, 8, BCL_OP_NOOP, 0, cur);
    }
    return s;
}

bcl_status bcl_hm_plock_acquire(bcl_gptr word, uint64_t bit)
{
    unsigned spins = 0;
    uint64_t prev;
    for (;;) {
        bcl_status st = bcl_fetch_op(word, 8, BCL_OP_OR, bit, &prev);
        if (st != BCL_OK || !(prev & bit))
            return st;
        /* Held: wait with loads, not fetch-ors, so the holder's release is
         * not contended by our retries. */
        do {
            if ((st = bcl_relax(&spins)) == BCL_OK)
                st = bcl_fetch_op(word, 8, BCL_OP_NOOP, 0, &prev);
        } while (st == BCL_OK && (prev & bit));
        if (st != BCL_OK)
            return st;
    }
}

/* Try to reserve a FREE bucket.  *taken = 1: it is ours (RESERVED, the
 * previous reader count kept).  *taken = 0: it is READY or TOMB (*cur: the
 * status).  *seen (if given): the last status observed before we leave the
 * bucket (the home's epoch for the placement check). */
bcl_status bcl_hm_claim_free(bcl_gptr st, uint64_t expect, uint64_t *cur, int *taken,
                             uint64_t *seen)
{
    bcl_status s;
    for (;;) {
        if ((s = bcl_cas(st, 8, expect, expect | BCL_HM_RESERVED, cur)) != BCL_OK)
            return s;
        if (*cur == expect) {
            *taken = 1;
            if (seen)
                *seen = expect;
            return BCL_OK;
        }
        if ((*cur & BCL_HM_BUSY) && (s = bcl_hm_wait_unreserved(st, cur)) != BCL_OK)
            return s;
        if (seen)
            *seen = *cur;
        if (ST(*cur) != BCL_HM_FREE) {
            *taken = 0;
            return BCL_OK;
        }
        expect = *cur;            /* FREE with readers passing by */
    }
}

/* Bytes of a value slot (the slot itself, or the out-of-line bytes) -> out. */
bcl_status bcl_hm_slot_value_out(const bcl_hashmap *m, const void *slot,
                                 bcl_mp_writer *out)
{
    size_t len = m->val_slot;
    bcl_objref r;
    if (m->val_var) {
        memcpy(&r, slot, sizeof r);
        len = r.len;
    }
    bcl_status st = bcl_mp_reserve(out, len);
    if (st != BCL_OK)
        return st;
    if (!m->val_var)
        memcpy(out->buf + out->len, slot, len);
    else if (len && (st = bcl_obj_load(r, out->buf + out->len)) != BCL_OK)
        return st;
    out->len += len;
    return BCL_OK;
}

/* Write key and value into a bucket we reserved from FREE, then publish it
 * with `publish` (added to the status word).  A variable key's bytes are
 * stored first; without room the reservation is undone (`undo`). */
bcl_status bcl_hm_write_fresh(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                              const void *val, uint64_t publish, uint64_t undo)
{
    unsigned char small[512], *buf;          /* the bucket after its status */
    bcl_status st = bcl_hm_scratch(small, sizeof small, m->bsize - 8, &buf);
    if (st != BCL_OK)
        return st;
    memset(buf, 0, m->bsize - 8);
    if (m->key_var) {
        bcl_objref r;
        st = bcl_obj_store(k->bytes, k->len, &r);
        memcpy(buf, &r, sizeof r);
    } else {
        memcpy(buf, k->bytes, m->key_size);
    }
    if (st != BCL_OK) {
        bcl_hm_add_status(b, undo);
    } else {
        memcpy(buf + m->val_off - 8, val, m->val_slot);
        st = bcl_put(bcl_hm_at(b, 8), buf, m->bsize - 8);
        if (st == BCL_OK)
            st = bcl_hm_add_status(b, publish);
    }
    bcl_hm_scratch_end(buf, small);
    return st;
}

/* Under our exclusive lock: replace the value, free the old one, publish.
 * The old block is released while we still hold the lock (no reader can be
 * on the bucket: locking needs a zero reader count, and readers wait for
 * BUSY), so a failed release can still be undone: the old reference goes
 * back, the bucket is unlocked unchanged, and the error means what every
 * insert error means -- the new value was not stored, and the caller gives
 * its block back.  Reporting a release failure *after* publishing would make
 * the caller free a block the map now references (a dangling value that a
 * later overwrite releases a second time). */
static bcl_status overwrite_locked(const bcl_hashmap *m, bcl_gptr b, const void *val)
{
    bcl_objref old = { 0, 0, 0 };
    bcl_status st = BCL_OK;
    if (m->val_var)
        st = bcl_get(&old, bcl_hm_at(b, m->val_off), sizeof old);
    if (st == BCL_OK)
        st = bcl_put(bcl_hm_at(b, m->val_off), val, m->val_slot);
    if (st == BCL_OK && m->val_var && (st = bcl_obj_release(old)) != BCL_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", bcl_last_error());
        bcl_status undo = bcl_put(bcl_hm_at(b, m->val_off), &old, sizeof old);
        if (undo == BCL_OK)
            undo = bcl_atomic_post(b, 8, BCL_OP_XOR, RESERVED_TO_READY);
        return undo != BCL_OK ? undo : bcl_set_error(st, "%s", why);
    }
    if (st == BCL_OK)
        st = bcl_atomic_post(b, 8, BCL_OP_XOR, RESERVED_TO_READY);
    return st;
}

/* ---- placement: find the key's bucket or a place for it ------------------
 * (protocol: "Deletion" in bcl_hashmap.h; interleavings: docs/hashmap.md) */

/* Compare the key of bucket b with k.  A fixed key is read with a plain get
 * (a READY key only changes through erase + reuse, and whoever acts on a
 * match verifies it under the lock); a variable key's reference must not be
 * followed after erase released it, so it is read under a reader count. */
static bcl_status read_key_at(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                              unsigned char *slot, int *eq)
{
    *eq = 0;
    if (!m->key_var) {
        bcl_status st = bcl_hm_read_key_slot(m, b, slot);
        if (st == BCL_OK)
            st = bcl_hm_key_equal(m, slot, k, eq);
        return st;
    }
    uint64_t cur;
    bcl_status st = bcl_fetch_op(b, 8, BCL_OP_ADD, BCL_HM_READER, &cur);
    cur += BCL_HM_READER;
    if (st == BCL_OK)
        st = bcl_hm_wait_unreserved(b, &cur);
    if (st == BCL_OK && ST(cur) == BCL_HM_READY && (st = bcl_hm_read_key_slot(m, b, slot)) == BCL_OK)
        st = bcl_hm_key_equal(m, slot, k, eq);
    bcl_status rs = bcl_hm_add_status(b, RELEASE_READER);
    return st != BCL_OK ? st : rs;
}

/* Lock bucket b, which held k when we looked without holding it: wait until
 * no writer and no reader, CAS READY -> RESERVED (lock, count and epoch bits
 * kept), then verify the key -- erase and a reuse may have come in between.
 * *lost = 1: the bucket no longer holds k, and nothing is held. */
bcl_status bcl_hm_lock_entry(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                             unsigned char *slot, int *lost)
{
    unsigned spins = 0;
    uint64_t cur, prev;
    int eq = 0;
    bcl_status st = bcl_fetch_op(b, 8, BCL_OP_NOOP, 0, &cur);
    *lost = 0;
    while (st == BCL_OK) {
        int busy = (cur & BCL_HM_BUSY) != 0;
        if (!busy && ST(cur) != BCL_HM_READY) {
            *lost = 1;                    /* erased meanwhile */
            return BCL_OK;
        }
        if (!busy && BCL_HM_READERS(cur) == 0) {
            uint64_t want = (cur & ~(uint64_t)BCL_HM_STATE) | BCL_HM_RESERVED;
            if ((st = bcl_cas(b, 8, cur, want, &prev)) != BCL_OK)
                return st;
            if (prev == cur)
                break;
            cur = prev;
            continue;
        }
        /* Our own modify() lock on b would never go away. */
        if ((st = bcl_hm_check_held(b)) != BCL_OK ||
            (st = bcl_relax(&spins)) != BCL_OK)
            return st;
        st = bcl_fetch_op(b, 8, BCL_OP_NOOP, 0, &cur);
    }
    if (st != BCL_OK)
        return st;
    if ((st = bcl_hm_read_key_slot(m, b, slot)) == BCL_OK)
        st = bcl_hm_key_equal(m, slot, k, &eq);
    if (st == BCL_OK && eq)
        return BCL_OK;
    bcl_status rs = bcl_atomic_post(b, 8, BCL_OP_XOR, RESERVED_TO_READY);
    *lost = 1;
    return st != BCL_OK ? st : rs;
}

enum { LOC_LOCKED, LOC_FRESH, LOC_SLOW, LOC_RESTART };

static void lock_set(bcl_hm_lock *lk, uint64_t idx, int fresh, int tomb)
{
    lk->idx = idx;
    lk->fresh = fresh;
    lk->tomb = tomb;
}

/* The fast path, without the placement lock: the key's READY bucket
 * (locked, LOC_LOCKED), or a FREE bucket reserved and checked against the
 * home's placement word (LOC_FRESH).  LOC_SLOW: a tombstone is on the way
 * (reuse it) or a placement in a tombstone may have raced with ours. */
static bcl_status locate_fast(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                              unsigned char *slot, int *res)
{
    bcl_hm_probe p;
    uint64_t idx, cur, seen = 0, e0 = 0, home = 0;
    int first = 1;
    bcl_hm_probe_init(m, &p, k->hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int taken, eq, lost;
        bcl_status st = bcl_hm_claim_free(b, 0, &cur, &taken, &seen);
        if (st != BCL_OK)
            return st;
        if (first) {
            e0 = META(seen);
            home = idx;
            first = 0;
        }
        if (taken) {
            /* Placement check: no tombstone placement of a key homed here
             * started (lock) or ended (epoch) since we first saw the home. */
            uint64_t h;
            lock_set(lk, idx, 1, 0);
            st = bcl_fetch_op(bcl_hm_bucket(m, home), 8, BCL_OP_NOOP, 0, &h);
            if (st == BCL_OK && META(h) == e0 && !(h & BCL_HM_PLOCK)) {
                *res = LOC_FRESH;
                return BCL_OK;
            }
            *res = LOC_SLOW;
            bcl_status us = bcl_hm_add_status(b, UNRESERVE);
            return st != BCL_OK ? st : us;
        }
        if (ST(cur) == BCL_HM_TOMB) {
            *res = LOC_SLOW;
            return BCL_OK;
        }
        if ((st = read_key_at(m, b, k, slot, &eq)) != BCL_OK)
            return st;
        if (!eq)
            continue;
        if ((st = bcl_hm_lock_entry(m, b, k, slot, &lost)) != BCL_OK)
            return st;
        lock_set(lk, idx, 0, 0);
        *res = lost ? LOC_RESTART : LOC_LOCKED;
        return BCL_OK;
    }
    return bcl_hm_full_error(m);
}


/* Clear the lock and start a new epoch in one add (the epoch wraps off the
 * top of the word).  Posted: it completes with our next flush or spin. */
static bcl_status plock_release(bcl_gptr home)
{
    return bcl_atomic_post(home, 8, BCL_OP_ADD, BCL_HM_EPOCH1 - BCL_HM_PLOCK);
}

/* One scan under the placement lock: the key's bucket (*at, *eq = 1) or the
 * first tombstone, else the first FREE bucket (*at, its status *tcur).
 * *busy = 1: bucket *at has a writer; the scan stops without waiting for it
 * (the writer may be another rank's modify(), whose fn may wait for this
 * very placement lock: the caller waits without the lock, then rescans). */
static bcl_status slow_scan(const bcl_hashmap *m, const bcl_hm_key *k, unsigned char *slot,
                            uint64_t *at, uint64_t *tcur, int *have, int *eq, int *busy)
{
    bcl_hm_probe p;
    uint64_t idx, cur;
    *have = *eq = *busy = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        bcl_status st = bcl_fetch_op(b, 8, BCL_OP_NOOP, 0, &cur);
        if (st != BCL_OK)
            return st;
        if (cur & BCL_HM_BUSY) {
            *busy = 1;
            *at = idx;
            return BCL_OK;
        }
        if (ST(cur) != BCL_HM_READY) {
            if (!*have) {
                *have = 1;
                *at = idx;
                *tcur = cur;
            }
            if (ST(cur) == BCL_HM_FREE)
                return BCL_OK;
            continue;
        }
        if ((st = read_key_at(m, b, k, slot, eq)) != BCL_OK || *eq) {
            *at = idx;
            return st;
        }
    }
    return BCL_OK;
}

/* The slow path: under the placement lock of the key's home no other
 * placement of this key can happen, so one scan decides; the first
 * tombstone (or FREE bucket) is reserved, then the lock is released with a
 * new epoch (the reservation keeps the key's other placers out). */
static bcl_status locate_slow(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                              unsigned char *slot, int *res)
{
    uint64_t at = 0, tcur = 0, prev;
    bcl_gptr hs = bcl_hm_bucket(m, bcl_hm_home(m, k->hash));
    bcl_status st = bcl_hm_plock_acquire(hs, BCL_HM_PLOCK);
    if (st != BCL_OK)
        return st;
    for (;;) {
        int have, eq, lost, busy;
        if ((st = slow_scan(m, k, slot, &at, &tcur, &have, &eq, &busy)) != BCL_OK)
            break;
        if (busy) {
            /* Wait for the writer without holding the lock (no lock held
             * while waiting: no cycle through it), then scan afresh. */
            bcl_gptr bb = bcl_hm_bucket(m, at);
            uint64_t c = BCL_HM_BUSY;
            if ((st = plock_release(hs)) != BCL_OK ||
                (st = bcl_hm_wait_unreserved(bb, &c)) != BCL_OK ||
                (st = bcl_hm_plock_acquire(hs, BCL_HM_PLOCK)) != BCL_OK)
                return st;
            continue;
        }
        if (eq) {
            if ((st = plock_release(hs)) != BCL_OK ||
                (st = bcl_hm_lock_entry(m, bcl_hm_bucket(m, at), k, slot, &lost)) != BCL_OK)
                return st;
            lock_set(lk, at, 0, 0);
            *res = lost ? LOC_RESTART : LOC_LOCKED;
            return BCL_OK;
        }
        if (!have) {
            st = bcl_hm_full_error(m);
            break;
        }
        /* Reserve it unless another key's placement took it first (then
         * scan again: our key still cannot appear). */
        bcl_gptr tb = bcl_hm_bucket(m, at);
        for (;;) {
            if ((st = bcl_cas(tb, 8, tcur, tcur | BCL_HM_BUSY, &prev)) != BCL_OK)
                break;
            if (prev == tcur) {
                /* Ours.  The lock can go now: a placer of this key that
                 * passed the bucket before we took it fails its check (new
                 * epoch); one that comes later waits on the busy bucket. */
                lock_set(lk, at, 1, ST(tcur) == BCL_HM_TOMB);
                *res = LOC_FRESH;
                return plock_release(hs);
            }
            if ((prev & BCL_HM_BUSY) || ST(prev) != ST(tcur))
                break;
            tcur = prev;                  /* only readers or the epoch moved */
        }
        if (st != BCL_OK)
            break;
    }
    plock_release(hs);
    return st;
}

/* The key's bucket, locked (lk->fresh = 0), or a reserved place for it
 * (lk->fresh = 1); either way held until bcl_hm_commit / bcl_hm_abort. */
bcl_status bcl_hm_locate(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                         unsigned char *slot)
{
    for (;;) {
        int res = LOC_RESTART;
        bcl_status st = locate_fast(m, k, lk, slot, &res);
        if (st == BCL_OK && res == LOC_SLOW)
            st = locate_slow(m, k, lk, slot, &res);
        if (st != BCL_OK || res != LOC_RESTART)
            return st;
    }
}

/* ---- modify: lock / commit / abort (the classic layout; bcl_hm_lock_key
 * and its kin choose the layout: bcl_hashmap_compact.c) -------------------- */

static bcl_status lock_probe(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                             bcl_mp_writer *out, int *found, unsigned char *slot)
{
    *found = 0;
    bcl_status st = bcl_hm_locate(m, k, lk, slot);
    if (st != BCL_OK || lk->fresh)
        return st;
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    st = bcl_get(slot, bcl_hm_at(b, m->val_off), m->val_slot);
    if (st == BCL_OK)
        st = bcl_hm_slot_value_out(m, slot, out);
    if (st != BCL_OK) {
        bcl_hm_classic_abort(m, lk);
        return st;
    }
    *found = 1;
    return BCL_OK;
}

bcl_status bcl_hm_classic_lock_key(const bcl_hashmap *m, const bcl_hm_key *k,
                                   bcl_hm_lock *lk, bcl_mp_writer *out, int *found)
{
    scratch sc;
    size_t n = m->key_slot > m->val_slot ? m->key_slot : m->val_slot;
    unsigned char *slot = scratch_get(&sc, n);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = lock_probe(m, k, lk, out, found, slot);
    scratch_free(&sc);
    if (st == BCL_OK)
        bcl_hm_hold(bcl_hm_bucket(m, lk->idx));
    return st;
}

bcl_status bcl_hm_commit_slot(const bcl_hashmap *m, const bcl_hm_lock *lk,
                              const bcl_hm_key *k, const void *val)
{
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    bcl_hm_unhold(b);
    if (!lk->fresh)
        return overwrite_locked(m, b, val);
    /* FREE: RESERVED -> READY; tombstone: TOMB|BUSY -> READY. */
    uint64_t publish = lk->tomb ? (uint64_t)BCL_HM_READY - (BCL_HM_TOMB | BCL_HM_BUSY)
                                : PUBLISH;
    return bcl_hm_write_fresh(m, b, k, val, publish, UNRESERVE);
}

bcl_status bcl_hm_classic_abort(const bcl_hashmap *m, const bcl_hm_lock *lk)
{
    /* RESERVED -> FREE, TOMB|BUSY -> TOMB (fresh) or back to READY: readers'
     * counts kept. */
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    uint64_t bits = lk->fresh ? BCL_HM_BUSY : RESERVED_TO_READY;
    bcl_hm_unhold(b);
    return bcl_atomic_post(b, 8, BCL_OP_XOR, bits);
}

bcl_status bcl_hm_classic_commit(const bcl_hashmap *m, const bcl_hm_lock *lk,
                                 const bcl_hm_key *k, const void *val, size_t len)
{
    bcl_objref ref;
    const void *slot;
    bcl_status st = bcl_hm_value_in(m, val, len, &ref, &slot);
    if (st != BCL_OK) {
        /* The bucket is ours until commit or abort: end the hold unchanged. */
        bcl_status ab = bcl_hm_classic_abort(m, lk);
        return ab != BCL_OK ? ab : st;
    }
    return bcl_hm_value_back(m, bcl_hm_commit_slot(m, lk, k, slot), ref);
}

/* ---- values ------------------------------------------------------------- */

bcl_status bcl_hm_value_in(const bcl_hashmap *m, const void *val, size_t len,
                           bcl_objref *ref, const void **slot)
{
    if (!m->val_var) {
        if (len != m->val_size)
            return bcl_set_error(BCL_ERR_ARG, "a value of %zu bytes for a map of %zu-byte "
                                 "values", len, m->val_size);
        *slot = val;
        return BCL_OK;
    }
    *slot = ref;
    return bcl_obj_store(val, len, ref);
}

bcl_status bcl_hm_value_back(const bcl_hashmap *m, bcl_status st, bcl_objref ref)
{
    /* Nobody references the stored value: the caller reports st. */
    if (st != BCL_OK && m->val_var)
        bcl_obj_release(ref);
    return st;
}
