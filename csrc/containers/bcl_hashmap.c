/* bcl_hashmap.c -- the hash table's scalar operations and whole-table
 * operations (protocol: bcl_hashmap.h; batches: bcl_hashmap_batch.c). */
#include "containers/bcl_hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"
#include "serial/bcl_hash.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define STATUS(b) (b)
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

static unsigned char *scratch_get(scratch *s, size_t n)
{
    s->p = n <= sizeof s->small ? s->small : malloc(n);
    if (!s->p)
        bcl_set_error(BCL_ERR_NOMEM, "no memory for a %zu-byte slot", n);
    return s->p;
}

static void scratch_free(scratch *s)
{
    if (s->p && s->p != s->small)
        free(s->p);
}

uint64_t bcl_hm_hash(const void *bytes, size_t len)
{
    if (len == 8) {
        /* bcl_hash_u64 == bcl_hash64 of the 8 little-endian bytes. */
        const unsigned char *b = bytes;
        uint64_t x = 0;
        for (int i = 7; i >= 0; i--)
            x = x << 8 | b[i];
        return bcl_hash_u64(x, 0);
    }
    return bcl_hash64(bytes, len, 0);
}

/* ---- creation ---------------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static void layout(bcl_hashmap *m, uint64_t capacity, size_t key_size, size_t val_size)
{
    m->key_var = key_size == 0;
    m->val_var = val_size == 0;
    m->key_size = key_size;
    m->val_size = val_size;
    m->key_slot = m->key_var ? sizeof(bcl_objref) : key_size;
    m->val_slot = m->val_var ? sizeof(bcl_objref) : val_size;
    m->val_off = ALIGN8(8 + m->key_slot);
    m->bsize = ALIGN8(m->val_off + m->val_slot);
    uint64_t p = (uint64_t)bcl_rt.nprocs;
    m->block = capacity / p + (capacity % p != 0);
    if (m->block == 0)
        m->block = 1;
    m->n = m->block * p;          /* every rank owns the same number */
    m->pmask = pow2_at_least(m->n) - 1;
    m->limit = m->n / 2 + 1;
    if (m->limit > m->n)
        m->limit = m->n;
}

/* Collective: allocate and zero this rank's block, learn everybody's. */
static bcl_status alloc_blocks(bcl_hashmap *m)
{
    int p = bcl_rt.nprocs;
    m->base = calloc((size_t)p, sizeof *m->base);
    if (!m->base)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for the hash map's block table");
    uint64_t off = 0, bytes = m->block * m->bsize;
    bcl_status st = bytes / m->bsize != m->block ? BCL_ERR_SEGFULL
                                                  : bcl_alloc(bytes, 64, &off);
    if (st == BCL_OK)
        memset(bcl_rt.local_base + off, 0, bytes);
    m->base[bcl_rt.rank] = off;
    bcl_status rc = bcl_allreduce(m->base, (size_t)p, BCL_U64, BCL_MAX);
    int ok = 1;
    for (int r = 0; r < p; r++)
        ok &= m->base[r] != 0;
    if (rc == BCL_OK && ok)
        return bcl_barrier();     /* zeroed blocks visible before any RMA */
    if (off)
        bcl_free(off);
    free(m->base);
    m->base = NULL;
    if (rc != BCL_OK)
        return rc;
    return bcl_set_error(BCL_ERR_SEGFULL, "a hash map block of %llu buckets (%llu "
                         "bytes) does not fit in some rank's segment",
                         (unsigned long long)m->block, (unsigned long long)bytes);
}

bcl_status bcl_hm_create(bcl_hashmap *m, uint64_t capacity, size_t key_size,
                         size_t val_size, int val_atomic, bcl_hm_num num)
{
    BCL_REQUIRE_INIT();
    memset(m, 0, sizeof *m);
    if (capacity == 0 || capacity > ((uint64_t)1 << 48))
        return bcl_set_error(BCL_ERR_ARG, "capacity must be in [1, 2**48], got %llu",
                             (unsigned long long)capacity);
    layout(m, capacity, key_size, val_size);
    m->val_atomic = val_atomic && (val_size == 4 || val_size == 8) ? (int)val_size : 0;
    m->num = num;
    return alloc_blocks(m);
}

static unsigned char *local_bucket(const bcl_hashmap *m, uint64_t i)
{
    return bcl_rt.local_base + m->base[bcl_rt.rank] + i * m->bsize;
}

static uint64_t load_status(const unsigned char *b)
{
    return __atomic_load_n((const uint64_t *)b, __ATOMIC_ACQUIRE);
}

/* Free this rank's block; release_refs: also the out-of-line storage its
 * buckets own (not when resize moved the references to a new table). */
static void free_block(bcl_hashmap *m, int release_refs)
{
    if (!m->base || !bcl_rt.initialized)
        return;
    for (uint64_t i = 0; release_refs && i < m->block; i++) {
        unsigned char *b = local_bucket(m, i);
        if ((load_status(b) & BCL_HM_STATE) != BCL_HM_READY)
            continue;
        bcl_objref r;
        if (m->key_var && (memcpy(&r, b + 8, sizeof r), 1))
            bcl_obj_release(r);
        if (m->val_var && (memcpy(&r, b + m->val_off, sizeof r), 1))
            bcl_obj_release(r);
    }
    bcl_free(m->base[bcl_rt.rank]);
}

void bcl_hm_destroy(bcl_hashmap *m)
{
    free_block(m, 1);
    free(m->base);
    m->base = NULL;
}

int bcl_hm_owner(const bcl_hashmap *m, const bcl_hm_key *k)
{
    bcl_hm_probe p;
    uint64_t idx = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    bcl_hm_probe_next(m, &p, &idx);
    return (int)(idx / m->block);
}

/* ---- small protocol steps ---------------------------------------------- */

static bcl_status full_error(const bcl_hashmap *m)
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
    unsigned char small[256], *buf = r.len <= sizeof small ? small : malloc(r.len);
    if (!buf)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to compare a %u-byte key", r.len);
    bcl_status st = r.len ? bcl_obj_load(r, buf) : BCL_OK;
    if (st == BCL_OK)
        *eq = memcmp(buf, k->bytes, r.len) == 0;
    if (buf != small)
        free(buf);
    return st;
}

/* ---- buckets this thread holds (modify's lock .. commit/abort) ---------- */
#define HELD_MAX 16
static _Thread_local struct { bcl_gptr b[HELD_MAX]; int n; } held;

static void hold(bcl_gptr b)
{
    if (held.n < HELD_MAX)          /* deeper nesting: just not detected */
        held.b[held.n] = b;
    held.n++;
}

static void unhold(bcl_gptr b)
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
static bcl_status wait_unreserved(bcl_gptr st, uint64_t *cur)
{
    unsigned spins = 0;
    bcl_status s = (*cur & BCL_HM_BUSY) ? bcl_hm_check_held(st) : BCL_OK;
    while ((*cur & BCL_HM_BUSY) && s == BCL_OK) {
        if ((s = bcl_relax(&spins)) == BCL_OK)
            s = bcl_fetch_op(st, 8, BCL_OP_NOOP, 0, cur);
    }
    return s;
}

/* Try to reserve a FREE bucket.  *taken = 1: it is ours (RESERVED, the
 * previous reader count kept).  *taken = 0: it is READY or TOMB (*cur: the
 * status).  *seen (if given): the last status observed before we leave the
 * bucket (the home's epoch for the placement check). */
static bcl_status claim_free(bcl_gptr st, uint64_t expect, uint64_t *cur, int *taken,
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
        if ((*cur & BCL_HM_BUSY) && (s = wait_unreserved(st, cur)) != BCL_OK)
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

/* Publish, unreserve, drop a reader count: nobody waits for the result, so
 * the op is posted and completes with this rank's next flush of the owner
 * (our own later atomics on the word are ordered after it; others who need
 * the bucket wait for it, and we complete our posted ops before we spin). */
static bcl_status add_status(bcl_gptr st, uint64_t delta)
{
    return bcl_atomic_post(st, 8, BCL_OP_ADD, delta);
}

static bcl_status read_key_slot(const bcl_hashmap *m, bcl_gptr b, void *slot)
{
    return bcl_get(slot, bcl_hm_at(b, 8), m->key_slot);
}

/* Bytes of a value slot (the slot itself, or the out-of-line bytes) -> out. */
static bcl_status slot_value_out(const bcl_hashmap *m, const void *slot,
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
static bcl_status write_fresh(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                              const void *val, uint64_t publish, uint64_t undo)
{
    unsigned char small[512], *buf = m->bsize <= sizeof small + 8 ? small
                                                                   : calloc(1, m->bsize);
    if (!buf)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a %zu-byte bucket", m->bsize);
    memset(buf, 0, m->bsize - 8);
    bcl_status st = BCL_OK;
    if (m->key_var) {
        bcl_objref r;
        st = bcl_obj_store(k->bytes, k->len, &r);
        memcpy(buf, &r, sizeof r);
    } else {
        memcpy(buf, k->bytes, m->key_size);
    }
    if (st != BCL_OK) {
        add_status(STATUS(b), undo);
    } else {
        memcpy(buf + m->val_off - 8, val, m->val_slot);
        st = bcl_put(bcl_hm_at(b, 8), buf, m->bsize - 8);
        if (st == BCL_OK)
            st = add_status(STATUS(b), publish);
    }
    if (buf != small)
        free(buf);
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
            undo = bcl_atomic_post(STATUS(b), 8, BCL_OP_XOR, RESERVED_TO_READY);
        return undo != BCL_OK ? undo : bcl_set_error(st, "%s", why);
    }
    if (st == BCL_OK)
        st = bcl_atomic_post(STATUS(b), 8, BCL_OP_XOR, RESERVED_TO_READY);
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
        bcl_status st = read_key_slot(m, b, slot);
        if (st == BCL_OK)
            st = bcl_hm_key_equal(m, slot, k, eq);
        return st;
    }
    uint64_t cur;
    bcl_status st = bcl_fetch_op(STATUS(b), 8, BCL_OP_ADD, BCL_HM_READER, &cur);
    cur += BCL_HM_READER;
    if (st == BCL_OK)
        st = wait_unreserved(STATUS(b), &cur);
    if (st == BCL_OK && ST(cur) == BCL_HM_READY && (st = read_key_slot(m, b, slot)) == BCL_OK)
        st = bcl_hm_key_equal(m, slot, k, eq);
    bcl_status rs = add_status(STATUS(b), RELEASE_READER);
    return st != BCL_OK ? st : rs;
}

/* Lock bucket b, which held k when we looked without holding it: wait until
 * no writer and no reader, CAS READY -> RESERVED (lock, count and epoch bits
 * kept), then verify the key -- erase and a reuse may have come in between.
 * *lost = 1: the bucket no longer holds k, and nothing is held. */
static bcl_status lock_entry(const bcl_hashmap *m, bcl_gptr b, const bcl_hm_key *k,
                             unsigned char *slot, int *lost)
{
    unsigned spins = 0;
    uint64_t cur, prev;
    int eq = 0;
    bcl_status st = bcl_fetch_op(STATUS(b), 8, BCL_OP_NOOP, 0, &cur);
    *lost = 0;
    while (st == BCL_OK) {
        int busy = (cur & BCL_HM_BUSY) != 0;
        if (!busy && ST(cur) != BCL_HM_READY) {
            *lost = 1;                    /* erased meanwhile */
            return BCL_OK;
        }
        if (!busy && BCL_HM_READERS(cur) == 0) {
            uint64_t want = (cur & ~(uint64_t)BCL_HM_STATE) | BCL_HM_RESERVED;
            if ((st = bcl_cas(STATUS(b), 8, cur, want, &prev)) != BCL_OK)
                return st;
            if (prev == cur)
                break;
            cur = prev;
            continue;
        }
        /* Our own modify() lock on b would never go away. */
        if ((st = bcl_hm_check_held(STATUS(b))) != BCL_OK ||
            (st = bcl_relax(&spins)) != BCL_OK)
            return st;
        st = bcl_fetch_op(STATUS(b), 8, BCL_OP_NOOP, 0, &cur);
    }
    if (st != BCL_OK)
        return st;
    if ((st = read_key_slot(m, b, slot)) == BCL_OK)
        st = bcl_hm_key_equal(m, slot, k, &eq);
    if (st == BCL_OK && eq)
        return BCL_OK;
    bcl_status rs = bcl_atomic_post(STATUS(b), 8, BCL_OP_XOR, RESERVED_TO_READY);
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
        bcl_status st = claim_free(STATUS(b), 0, &cur, &taken, &seen);
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
            st = bcl_fetch_op(STATUS(bcl_hm_bucket(m, home)), 8, BCL_OP_NOOP, 0, &h);
            if (st == BCL_OK && META(h) == e0 && !(h & BCL_HM_PLOCK)) {
                *res = LOC_FRESH;
                return BCL_OK;
            }
            *res = LOC_SLOW;
            bcl_status us = add_status(STATUS(b), UNRESERVE);
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
        if ((st = lock_entry(m, b, k, slot, &lost)) != BCL_OK)
            return st;
        lock_set(lk, idx, 0, 0);
        *res = lost ? LOC_RESTART : LOC_LOCKED;
        return BCL_OK;
    }
    return full_error(m);
}

static bcl_status plock_acquire(bcl_gptr home)
{
    unsigned spins = 0;
    uint64_t prev;
    for (;;) {
        bcl_status st = bcl_fetch_op(home, 8, BCL_OP_OR, BCL_HM_PLOCK, &prev);
        if (st != BCL_OK || !(prev & BCL_HM_PLOCK))
            return st;
        do {
            if ((st = bcl_relax(&spins)) == BCL_OK)
                st = bcl_fetch_op(home, 8, BCL_OP_NOOP, 0, &prev);
        } while (st == BCL_OK && (prev & BCL_HM_PLOCK));
        if (st != BCL_OK)
            return st;
    }
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
        bcl_status st = bcl_fetch_op(STATUS(b), 8, BCL_OP_NOOP, 0, &cur);
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
    bcl_hm_probe p;
    uint64_t home = 0, at = 0, tcur = 0, prev;
    bcl_hm_probe_init(m, &p, k->hash);
    bcl_hm_probe_next(m, &p, &home);
    bcl_gptr hs = STATUS(bcl_hm_bucket(m, home));
    bcl_status st = plock_acquire(hs);
    if (st != BCL_OK)
        return st;
    for (;;) {
        int have, eq, lost, busy;
        if ((st = slow_scan(m, k, slot, &at, &tcur, &have, &eq, &busy)) != BCL_OK)
            break;
        if (busy) {
            /* Wait for the writer without holding the lock (no lock held
             * while waiting: no cycle through it), then scan afresh. */
            bcl_gptr bb = STATUS(bcl_hm_bucket(m, at));
            uint64_t c = BCL_HM_BUSY;
            if ((st = plock_release(hs)) != BCL_OK ||
                (st = wait_unreserved(bb, &c)) != BCL_OK ||
                (st = plock_acquire(hs)) != BCL_OK)
                return st;
            continue;
        }
        if (eq) {
            if ((st = plock_release(hs)) != BCL_OK ||
                (st = lock_entry(m, bcl_hm_bucket(m, at), k, slot, &lost)) != BCL_OK)
                return st;
            lock_set(lk, at, 0, 0);
            *res = lost ? LOC_RESTART : LOC_LOCKED;
            return BCL_OK;
        }
        if (!have) {
            st = full_error(m);
            break;
        }
        /* Reserve it unless another key's placement took it first (then
         * scan again: our key still cannot appear). */
        bcl_gptr tb = STATUS(bcl_hm_bucket(m, at));
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
static bcl_status locate(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
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

/* ---- insert ------------------------------------------------------------- */

static bcl_status insert_probe(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                               unsigned char *slot)
{
    bcl_hm_lock lk;
    bcl_status st = locate(m, k, &lk, slot);
    if (st != BCL_OK)
        return st;
    hold(bcl_hm_bucket(m, lk.idx));      /* bcl_hm_commit unholds it */
    return bcl_hm_commit(m, &lk, k, val);
}

static bcl_status insert_atomic(const bcl_hashmap *m, const bcl_hm_key *k, const void *val)
{
    scratch sc;
    unsigned char *slot = scratch_get(&sc, m->key_slot);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = insert_probe(m, k, val, slot);
    scratch_free(&sc);
    return st;
}

bcl_status bcl_hm_insert(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                         int promise)
{
    if (!(promise & BCL_HM_P_LOCAL))
        return insert_atomic(m, k, val);
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "the local promise needs fixed-size key and "
                             "value types");
    int owner = bcl_hm_owner(m, k), spilled;
    if (owner != bcl_rt.rank)
        return bcl_set_error(BCL_ERR_ARG, "local promise: the key belongs to rank %d, "
                             "not to this rank (%d)", owner, bcl_rt.rank);
    bcl_status st = bcl_hm_apply_local(m, k, val, 0, &spilled);
    if (st == BCL_OK && spilled)
        return bcl_set_error(BCL_ERR_FULL, "local promise: the key's probe sequence "
                             "leaves this rank's block (insert it without the promise)");
    return st;
}

/* ---- find --------------------------------------------------------------- */

/* Read key and value of a READY bucket we hold a reader count on. */
static bcl_status read_entry(const bcl_hashmap *m, bcl_gptr b, unsigned char *buf)
{
    if (!m->val_atomic)
        return bcl_get(buf, bcl_hm_at(b, 8), m->bsize - 8);
    /* Accumulate adds to this word atomically: load it atomically too. */
    uint64_t zero = 0;
    bcl_status st = bcl_get_nb(buf, bcl_hm_at(b, 8), m->key_slot);
    if (st == BCL_OK)
        st = bcl_fetch_op_nb(bcl_hm_at(b, m->val_off), m->val_atomic, BCL_OP_NOOP, &zero,
                             buf + m->val_off - 8);
    return st == BCL_OK ? bcl_flush_rank(b.rank) : st;
}

static bcl_status find_atomic(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                              int *found)
{
    bcl_hm_probe p;
    uint64_t idx, cur;
    unsigned char small[512], *buf = m->bsize <= sizeof small + 8 ? small
                                                                   : malloc(m->bsize);
    if (!buf)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a %zu-byte bucket", m->bsize);
    bcl_status st = BCL_OK;
    *found = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (st == BCL_OK && bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int eq = 0;
        st = bcl_fetch_op(STATUS(b), 8, BCL_OP_ADD, BCL_HM_READER, &cur);
        cur += BCL_HM_READER;
        if (st == BCL_OK)
            st = wait_unreserved(STATUS(b), &cur);
        int ready = ST(cur) == BCL_HM_READY;
        if (st == BCL_OK && ready)
            st = read_entry(m, b, buf);
        if (st == BCL_OK && ready)
            st = bcl_hm_key_equal(m, buf, k, &eq);
        if (st == BCL_OK && eq)
            st = slot_value_out(m, buf + m->val_off - 8, out);
        bcl_status rs = add_status(STATUS(b), RELEASE_READER);
        if (st == BCL_OK)
            st = rs;
        if (ST(cur) == BCL_HM_FREE || eq) {      /* tombstones: go on */
            *found = eq;
            break;
        }
    }
    if (buf != small)
        free(buf);
    return st;
}

/* Promise find: one get of the whole bucket; no concurrent writer exists. */
static bcl_status find_only(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                            int *found, int *fallback)
{
    bcl_hm_probe p;
    uint64_t idx;
    unsigned char small[512], *buf = m->bsize <= sizeof small ? small : malloc(m->bsize);
    if (!buf)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a %zu-byte bucket", m->bsize);
    bcl_status st = BCL_OK;
    *found = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (st == BCL_OK && bcl_hm_probe_next(m, &p, &idx)) {
        int eq = 0;
        uint64_t status;
        st = bcl_get(buf, bcl_hm_bucket(m, idx), m->bsize);
        memcpy(&status, buf, 8);
        if (st != BCL_OK || (status & BCL_HM_STATE) == BCL_HM_FREE)
            break;
        if (status & BCL_HM_BUSY) {
            *fallback = 1;        /* a writer after all: use the protocol */
            break;
        }
        if (ST(status) == BCL_HM_TOMB)
            continue;
        if ((st = bcl_hm_key_equal(m, buf + 8, k, &eq)) == BCL_OK && eq) {
            *found = 1;
            st = slot_value_out(m, buf + m->val_off, out);
            break;
        }
    }
    if (buf != small)
        free(buf);
    return st;
}

bcl_status bcl_hm_find(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                       int *found, int promise)
{
    if (promise == BCL_HM_P_FIND) {
        int fallback = 0;
        size_t len0 = out->len;
        bcl_status st = find_only(m, k, out, found, &fallback);
        if (st != BCL_OK || !fallback)
            return st;
        out->len = len0;
    }
    return find_atomic(m, k, out, found);
}

/* ---- accumulate ---------------------------------------------------------- */

int bcl_hm_num_add(const bcl_hashmap *m, void *value, const void *delta)
{
    /* Integers: checked (API.md: values convert without loss or raise);
     * floats follow IEEE (inf is a float). */
#define ADD(T)                                                  \
    do {                                                        \
        T a_, b_, s_;                                           \
        memcpy(&a_, value, sizeof a_);                          \
        memcpy(&b_, delta, sizeof b_);                          \
        if (__builtin_add_overflow(a_, b_, &s_))                \
            return 1;                                           \
        memcpy(value, &s_, sizeof s_);                          \
    } while (0)
#define FADD(T)                                                 \
    do {                                                        \
        T a_, b_;                                               \
        memcpy(&a_, value, sizeof a_);                          \
        memcpy(&b_, delta, sizeof b_);                          \
        a_ = (T)(a_ + b_);                                      \
        memcpy(value, &a_, sizeof a_);                          \
    } while (0)
    size_t w = m->val_size;
    if (m->num == BCL_HM_NUM_FLOAT) {
        if (w == 4) FADD(float); else FADD(double);
        return 0;
    }
    int sgn = m->num == BCL_HM_NUM_INT;
    switch (w) {
    case 1: if (sgn) ADD(int8_t); else ADD(uint8_t); break;
    case 2: if (sgn) ADD(int16_t); else ADD(uint16_t); break;
    case 4: if (sgn) ADD(int32_t); else ADD(uint32_t); break;
    default: if (sgn) ADD(int64_t); else ADD(uint64_t); break;
    }
    return 0;
#undef ADD
#undef FADD
}

bcl_status bcl_hm_overflow_error(const bcl_hashmap *m, const void *delta)
{
    long long d = 0;
    if (m->val_size == 8) { int64_t t; memcpy(&t, delta, 8); d = t; }
    else if (m->val_size == 4) { int32_t t; memcpy(&t, delta, 4); d = t; }
    else if (m->val_size == 2) { int16_t t; memcpy(&t, delta, 2); d = t; }
    else { int8_t t; memcpy(&t, delta, 1); d = t; }
    if (m->num == BCL_HM_NUM_UINT)
        return bcl_set_error(BCL_ERR_OVERFLOW, "accumulate: the sum does not fit the "
                             "%zu-byte unsigned value type; not applied (the stored "
                             "value is unchanged)", m->val_size);
    return bcl_set_error(BCL_ERR_OVERFLOW, "accumulate: adding %lld overflows the "
                         "%zu-byte integer value type; not applied (the stored value is "
                         "unchanged)", d, m->val_size);
}

/* The fast path of accumulate (a fetch-add under a reader count) is exact
 * only where no sum can overflow, and an add is only seen after it is done.
 * So: deltas of at most D take it, and an add whose *old* value lies outside
 * the zone [-Z, Z) is undone at once (a second fetch-add, under the same
 * reader count) and redone exactly under the bucket's lock, which waits
 * until no fast add is in flight.  An undone add leaves a transient of at
 * most D per rank; with Z = 2^(w-2) and D = Z / (4 (P + 1)) an add that
 * sees an old value in the zone stays in range whatever transients it saw,
 * and a value pushed over a limit by a transient lands outside the zone.
 * Signed 4/8-byte values only (the binding makes unsigned ones locked: a
 * wrapped unsigned transient would land near 0, inside any zone). */
static int64_t zone_of(const bcl_hashmap *m)
{
    return (int64_t)1 << (m->val_atomic * 8 - 2);
}

int bcl_hm_fast_delta(const bcl_hashmap *m, uint64_t d)
{
    int64_t v = m->val_atomic == 4 ? (int64_t)(int32_t)(uint32_t)d : (int64_t)d;
    int64_t lim = zone_of(m) / (4 * ((int64_t)bcl_rt.nprocs + 1));
    return m->num == BCL_HM_NUM_INT && v >= -lim && v <= lim;
}

int bcl_hm_fast_old(const bcl_hashmap *m, uint64_t old)
{
    int64_t v = m->val_atomic == 4 ? (int64_t)(int32_t)(uint32_t)old : (int64_t)old;
    return v >= -zone_of(m) && v < zone_of(m);
}

/* Native 4/8-byte integer value: readers' count is a shared lock; the add
 * is an atomic fetch-add on the value word while we hold it.  A fresh key
 * goes into a FREE bucket reserved under our count and checked like the
 * fast placement (its value is the delta, which bcl_hm_fast_delta bounds:
 * no overflow).  *slow = 1: nothing is left done -- a tombstone on the way
 * or a failed placement check (the key needs the placement lock), or an add
 * that found a value near a limit and was undone (see bcl_hm_fast_old):
 * redo it under the lock. */
static bcl_status acc_shared_probe(const bcl_hashmap *m, const bcl_hm_key *k,
                                   const void *delta, unsigned char *slot, int *slow)
{
    bcl_hm_probe p;
    uint64_t idx, cur, prev, d = 0, old = 0, e0 = 0, home = 0;
    memcpy(&d, delta, m->val_size);
    *slow = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int eq = 0;
        bcl_status st = bcl_fetch_op(STATUS(b), 8, BCL_OP_ADD, BCL_HM_READER, &cur);
        if (p.visited == 1) {
            e0 = META(cur);
            home = idx;
        }
        cur += BCL_HM_READER;
        while (st == BCL_OK && ST(cur) != BCL_HM_READY) {
            if (cur & BCL_HM_BUSY) {
                st = wait_unreserved(STATUS(b), &cur);
                continue;
            }
            if (ST(cur) == BCL_HM_TOMB) {
                *slow = 1;
                return add_status(STATUS(b), RELEASE_READER);
            }
            /* FREE: reserve it, keeping the counts (ours included). */
            if ((st = bcl_cas(STATUS(b), 8, cur, cur | BCL_HM_RESERVED, &prev)) != BCL_OK)
                return st;
            if (prev != cur) {
                cur = prev;
                continue;
            }
            uint64_t h;
            st = bcl_fetch_op(STATUS(bcl_hm_bucket(m, home)), 8, BCL_OP_NOOP, 0, &h);
            if (st == BCL_OK && META(h) == e0 && !(h & BCL_HM_PLOCK))
                return write_fresh(m, b, k, delta, PUBLISH_AS_READER,
                                   (uint64_t)0 - BCL_HM_RESERVED - BCL_HM_READER);
            *slow = 1;
            bcl_status us = add_status(STATUS(b), (uint64_t)0 - BCL_HM_RESERVED - BCL_HM_READER);
            return st != BCL_OK ? st : us;
        }
        if (st == BCL_OK)
            st = read_key_slot(m, b, slot);
        if (st == BCL_OK)
            st = bcl_hm_key_equal(m, slot, k, &eq);
        if (st == BCL_OK && eq)
            st = bcl_fetch_op(bcl_hm_at(b, m->val_off), m->val_atomic, BCL_OP_ADD, d, &old);
        if (st == BCL_OK && eq && !bcl_hm_fast_old(m, old)) {
            *slow = 1;                   /* undo while our reader count holds */
            st = bcl_fetch_op(bcl_hm_at(b, m->val_off), m->val_atomic, BCL_OP_ADD,
                              (uint64_t)0 - d, NULL);
        }
        bcl_status rs = add_status(STATUS(b), RELEASE_READER);
        if (st != BCL_OK || rs != BCL_OK || eq)
            return st != BCL_OK ? st : rs;
    }
    return full_error(m);
}

static bcl_status acc_shared(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta,
                             int *slow)
{
    scratch sc;
    unsigned char *slot = scratch_get(&sc, m->key_slot);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = acc_shared_probe(m, k, delta, slot, slow);
    scratch_free(&sc);
    return st;
}

/* Read-add-write under the bucket's lock (placing the key if absent):
 * exact, overflow checked. */
static bcl_status acc_locked(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta)
{
    bcl_hm_lock lk;
    unsigned char v[16];
    bcl_mp_writer w = { v, 0, sizeof v };   /* fixed, small: never grows */
    int found;
    bcl_status st = bcl_hm_lock_key(m, k, &lk, &w, &found);
    if (st != BCL_OK)
        return st;
    if (!found) {
        memcpy(v, delta, m->val_size);
    } else if (bcl_hm_num_add(m, v, delta)) {
        st = bcl_hm_abort(m, &lk);
        return st != BCL_OK ? st : bcl_hm_overflow_error(m, delta);
    }
    return bcl_hm_commit(m, &lk, k, v);
}

bcl_status bcl_hm_accumulate(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta)
{
    if (m->num == BCL_HM_NUM_NONE || m->num == BCL_HM_NUM_BOOL || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
    uint64_t d = 0;
    memcpy(&d, delta, m->val_size);
    if (m->val_atomic && bcl_hm_fast_delta(m, d)) {
        int slow = 0;
        bcl_status st = acc_shared(m, k, delta, &slow);
        if (st != BCL_OK || !slow)
            return st;
    }
    /* Other numbers (floats, small ints), big deltas, values near a limit. */
    return acc_locked(m, k, delta);
}

/* ---- modify: lock / commit / abort --------------------------------------- */

static bcl_status lock_probe(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                             bcl_mp_writer *out, int *found, unsigned char *slot)
{
    *found = 0;
    bcl_status st = locate(m, k, lk, slot);
    if (st != BCL_OK || lk->fresh)
        return st;
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    st = bcl_get(slot, bcl_hm_at(b, m->val_off), m->val_slot);
    if (st == BCL_OK)
        st = slot_value_out(m, slot, out);
    if (st != BCL_OK) {
        bcl_hm_abort(m, lk);
        return st;
    }
    *found = 1;
    return BCL_OK;
}

bcl_status bcl_hm_lock_key(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                           bcl_mp_writer *out, int *found)
{
    scratch sc;
    size_t n = m->key_slot > m->val_slot ? m->key_slot : m->val_slot;
    unsigned char *slot = scratch_get(&sc, n);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = lock_probe(m, k, lk, out, found, slot);
    scratch_free(&sc);
    if (st == BCL_OK)
        hold(bcl_hm_bucket(m, lk->idx));
    return st;
}

bcl_status bcl_hm_commit(const bcl_hashmap *m, const bcl_hm_lock *lk, const bcl_hm_key *k,
                         const void *val)
{
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    unhold(b);
    if (!lk->fresh)
        return overwrite_locked(m, b, val);
    /* FREE: RESERVED -> READY; tombstone: TOMB|BUSY -> READY. */
    uint64_t publish = lk->tomb ? (uint64_t)BCL_HM_READY - (BCL_HM_TOMB | BCL_HM_BUSY)
                                : PUBLISH;
    return write_fresh(m, b, k, val, publish, UNRESERVE);
}

bcl_status bcl_hm_abort(const bcl_hashmap *m, const bcl_hm_lock *lk)
{
    /* RESERVED -> FREE, TOMB|BUSY -> TOMB (fresh) or back to READY: readers'
     * counts kept. */
    bcl_gptr b = bcl_hm_bucket(m, lk->idx);
    uint64_t bits = lk->fresh ? BCL_HM_BUSY : RESERVED_TO_READY;
    unhold(b);
    return bcl_atomic_post(STATUS(b), 8, BCL_OP_XOR, bits);
}

/* ---- local insert -------------------------------------------------------- */

static void local_store(const bcl_hashmap *m, unsigned char *b, const bcl_hm_key *k,
                        const void *val)
{
    memcpy(b + 8, k->bytes, m->key_size);
    memcpy(b + m->val_off, val, m->val_size);
    uint64_t s = load_status(b);
    __atomic_store_n((uint64_t *)b, (s & ~(uint64_t)BCL_HM_STATE) | BCL_HM_READY,
                     __ATOMIC_RELEASE);
}

/* No other rank writes these buckets (the promise, or the buffer's flush),
 * so the first tombstone is reused once the key is known absent. */
bcl_status bcl_hm_apply_local(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                              int accumulate, int *spilled)
{
    bcl_hm_probe p;
    uint64_t idx, first = (uint64_t)bcl_rt.rank * m->block;
    unsigned char *tomb = NULL;
    bcl_hm_probe_init(m, &p, k->hash);
    *spilled = 1;
    while (bcl_hm_probe_next(m, &p, &idx)) {
        if (idx < first || idx >= first + m->block)
            return BCL_OK;                       /* leaves our block */
        unsigned char *b = local_bucket(m, idx - first);
        uint64_t s = ST(load_status(b));
        if (s == BCL_HM_TOMB) {
            if (!tomb)
                tomb = b;
            continue;
        }
        if (s == BCL_HM_FREE) {
            local_store(m, tomb ? tomb : b, k, val);
            *spilled = 0;
            return BCL_OK;
        }
        if (s != BCL_HM_READY)
            return bcl_set_error(BCL_ERR_STATE, "local insert met a bucket being written "
                                 "by another rank: the local promise was broken");
        if (memcmp(b + 8, k->bytes, m->key_size) == 0) {
            if (accumulate && bcl_hm_num_add(m, b + m->val_off, val)) {
                *spilled = 0;
                return bcl_hm_overflow_error(m, val);
            } else if (!accumulate)
                memcpy(b + m->val_off, val, m->val_size);
            *spilled = 0;
            return BCL_OK;
        }
    }
    if (tomb) {
        local_store(m, tomb, k, val);
        *spilled = 0;
        return BCL_OK;
    }
    return full_error(m);
}

/* ---- erase ----------------------------------------------------------------- */

/* Under our lock (RESERVED from READY): READY -> TOMB, then give back the
 * out-of-line key and value.  Nobody follows those references afterwards:
 * readers hold a count (excluded by our lock) or see TOMB. */
static bcl_status erase_locked(const bcl_hashmap *m, bcl_gptr b, const unsigned char *kslot)
{
    bcl_objref kr = { 0, 0, 0 }, vr = { 0, 0, 0 };
    bcl_status st = BCL_OK;
    if (m->key_var)
        memcpy(&kr, kslot, sizeof kr);
    if (m->val_var)
        st = bcl_get(&vr, bcl_hm_at(b, m->val_off), sizeof vr);
    bcl_status ts = add_status(STATUS(b), (uint64_t)BCL_HM_TOMB - BCL_HM_RESERVED);
    if (st == BCL_OK)
        st = ts;
    if (st == BCL_OK && m->key_var)
        st = bcl_obj_release(kr);
    if (st == BCL_OK && m->val_var)
        st = bcl_obj_release(vr);
    return st;
}

static bcl_status erase_probe(const bcl_hashmap *m, const bcl_hm_key *k, int *found,
                              unsigned char *slot)
{
    for (;;) {
        bcl_hm_probe p;
        uint64_t idx, cur;
        int lost = 0;
        *found = 0;
        bcl_hm_probe_init(m, &p, k->hash);
        while (!lost && bcl_hm_probe_next(m, &p, &idx)) {
            bcl_gptr b = bcl_hm_bucket(m, idx);
            int eq = 0;
            bcl_status st = bcl_fetch_op(STATUS(b), 8, BCL_OP_ADD, BCL_HM_READER, &cur);
            cur += BCL_HM_READER;
            if (st == BCL_OK)
                st = wait_unreserved(STATUS(b), &cur);
            if (st == BCL_OK && ST(cur) == BCL_HM_READY &&
                (st = read_key_slot(m, b, slot)) == BCL_OK)
                st = bcl_hm_key_equal(m, slot, k, &eq);
            bcl_status rs = add_status(STATUS(b), RELEASE_READER);
            if (st != BCL_OK || rs != BCL_OK)
                return st != BCL_OK ? st : rs;
            if (ST(cur) == BCL_HM_FREE)
                return BCL_OK;                   /* where a miss stops */
            if (!eq)
                continue;                        /* tombstone or another key */
            if ((st = lock_entry(m, b, k, slot, &lost)) != BCL_OK)
                return st;
            if (!lost) {
                *found = 1;
                return erase_locked(m, b, slot);
            }
        }
        if (!lost)
            return BCL_OK;
        /* Erased (and maybe re-inserted) between our look and our lock. */
    }
}

bcl_status bcl_hm_erase(const bcl_hashmap *m, const bcl_hm_key *k, int *found)
{
    scratch sc;
    unsigned char *slot = scratch_get(&sc, m->key_slot);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = erase_probe(m, k, found, slot);
    scratch_free(&sc);
    return st;
}

bcl_status bcl_hm_erase_many(const bcl_hashmap *m, const void *keys, size_t k,
                             unsigned char *found)
{
    if (m->key_var)
        return bcl_set_error(BCL_ERR_TYPE, "erase_many of an array needs a fixed-size "
                             "key type");
    scratch sc;
    unsigned char *slot = scratch_get(&sc, m->key_slot);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = BCL_OK;
    for (size_t i = 0; i < k && st == BCL_OK; i++) {
        bcl_hm_key key = bcl_hm_key_make((const unsigned char *)keys + i * m->key_size,
                                         m->key_size);
        int f = 0;
        st = erase_probe(m, &key, &f, slot);
        found[i] = (unsigned char)f;
    }
    scratch_free(&sc);
    return st;
}

/* ---- whole table ---------------------------------------------------------- */

bcl_status bcl_hm_size(const bcl_hashmap *m, uint64_t *size)
{
    bcl_status st = bcl_barrier();
    if (st != BCL_OK)
        return st;
    uint64_t n = 0;
    for (uint64_t i = 0; i < m->block; i++)
        n += (load_status(local_bucket(m, i)) & BCL_HM_STATE) == BCL_HM_READY;
    st = bcl_allreduce(&n, 1, BCL_U64, BCL_SUM);
    *size = n;
    return st;
}

void bcl_hm_local_scan(const bcl_hashmap *m, bcl_hm_visit_fn fn, void *ctx)
{
    for (uint64_t i = 0; i < m->block; i++) {
        unsigned char *b = local_bucket(m, i);
        if ((load_status(b) & BCL_HM_STATE) == BCL_HM_READY &&
            fn(ctx, b + 8, b + m->val_off))
            return;
    }
}

/* Resize: place one moved entry (keys are distinct: no key comparison). */
static bcl_status place(const bcl_hashmap *m, const unsigned char *src)
{
    bcl_hm_probe p;
    uint64_t idx, cur, h;
    if (m->key_var) {
        bcl_objref r;
        memcpy(&r, src + 8, sizeof r);
        unsigned char small[256], *buf = r.len <= sizeof small ? small : malloc(r.len);
        if (!buf)
            return bcl_set_error(BCL_ERR_NOMEM, "no memory for a %u-byte key", r.len);
        bcl_status st = r.len ? bcl_obj_load(r, buf) : BCL_OK;
        h = bcl_hm_hash(buf, r.len);
        if (buf != small)
            free(buf);
        if (st != BCL_OK)
            return st;
    } else {
        h = bcl_hm_hash(src + 8, m->key_size);
    }
    bcl_hm_probe_init(m, &p, h);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int taken;
        bcl_status st = claim_free(STATUS(b), 0, &cur, &taken, NULL);
        if (st != BCL_OK)
            return st;
        if (!taken)
            continue;
        if ((st = bcl_put(bcl_hm_at(b, 8), src + 8, m->bsize - 8)) != BCL_OK)
            return st;
        return add_status(STATUS(b), PUBLISH);
    }
    return bcl_set_error(BCL_ERR_FULL, "resize: %llu buckets are too few for the "
                         "entries", (unsigned long long)m->n);
}

bcl_status bcl_hm_resize(bcl_hashmap *m, uint64_t new_capacity)
{
    bcl_hashmap m2;
    bcl_status st = bcl_barrier();
    if (st != BCL_OK)
        return st;
    st = bcl_hm_create(&m2, new_capacity, m->key_size, m->val_size, m->val_atomic, m->num);
    if (st != BCL_OK)
        return st;
    for (uint64_t i = 0; i < m->block && st == BCL_OK; i++) {
        unsigned char *b = local_bucket(m, i);
        if ((load_status(b) & BCL_HM_STATE) == BCL_HM_READY)
            st = place(&m2, b);
    }
    int64_t ok = st == BCL_OK, err = st;
    bcl_status rc = bcl_allreduce(&ok, 1, BCL_I64, BCL_MIN);
    if (rc == BCL_OK)
        rc = bcl_barrier();
    if (rc != BCL_OK)
        return rc;
    if (!ok) {
        /* The moved references still belong to the old table. */
        free_block(&m2, 0);
        free(m2.base);
        if (err == BCL_OK)
            return bcl_set_error(BCL_ERR_FULL, "resize to %llu buckets failed on another "
                                 "rank; the table is unchanged",
                                 (unsigned long long)new_capacity);
        return (bcl_status)err;
    }
    free_block(m, 0);
    free(m->base);
    *m = m2;
    return BCL_OK;
}
