/* bcl_hashmap.c -- the hash table's scalar operations: insert, find,
 * accumulate, erase, local insert (protocol: bcl_hashmap.h; bucket steps:
 * bcl_hashmap_bucket.c; whole table: bcl_hashmap_table.c; batches:
 * bcl_hashmap_batch.c). */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"
#include "serial/bcl_hash.h"

/* ---- insert ------------------------------------------------------------- */

/* The shared-path operations of one key: `in` its operand, `out` its
 * result, `slot` scratch of key_slot bytes for the keys the probe reads. */
typedef bcl_status (*slot_probe)(const bcl_hashmap *m, const bcl_hm_key *k, const void *in,
                                 void *out, unsigned char *slot);

static bcl_status with_slot(slot_probe fn, const bcl_hashmap *m, const bcl_hm_key *k,
                            const void *in, void *out)
{
    scratch sc;
    unsigned char *slot = scratch_get(&sc, m->key_slot);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = fn(m, k, in, out, slot);
    scratch_free(&sc);
    return st;
}

static bcl_status insert_probe(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                               void *unused, unsigned char *slot)
{
    bcl_hm_lock lk;
    bcl_status st = bcl_hm_locate(m, k, &lk, slot);
    if (st != BCL_OK)
        return st;
    bcl_hm_hold(bcl_hm_bucket(m, lk.idx));      /* the commit unholds it */
    return bcl_hm_commit_slot(m, &lk, k, val);
}

/* Local promise: plain CPU insert into this rank's block (fixed types). */
static bcl_status insert_local(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                               size_t len)
{
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "the local promise needs fixed-size key and "
                             "value types");
    if (len != m->val_size)
        return bcl_set_error(BCL_ERR_ARG, "a value of %zu bytes for a map of %zu-byte "
                             "values", len, m->val_size);
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

/* A compact map's key whose word is reserved lives in its side map. */
#define SIDE(m, k) ((m)->compact && bcl_hmc_side_key((m), (k)->bytes))

bcl_status bcl_hm_insert(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                         size_t len, int promise)
{
    if (SIDE(m, k))
        return bcl_hm_insert(m->side, k, val, len, promise);
    if (promise & BCL_HM_P_LOCAL)
        return insert_local(m, k, val, len);
    if (m->compact) {
        if (len != m->val_size)
            return bcl_set_error(BCL_ERR_ARG, "a value of %zu bytes for a map of %zu-byte "
                                 "values", len, m->val_size);
        return bcl_hmc_insert(m, k, val);
    }
    bcl_objref ref;
    const void *slot;
    bcl_status st = bcl_hm_value_in(m, val, len, &ref, &slot);
    if (st != BCL_OK)
        return st;
    return bcl_hm_value_back(m, with_slot(insert_probe, m, k, slot, NULL), ref);
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
    unsigned char small[512], *buf;          /* the bucket after its status */
    bcl_status st = bcl_hm_scratch(small, sizeof small, m->bsize - 8, &buf);
    *found = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (st == BCL_OK && bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int eq = 0;
        st = bcl_fetch_op(b, 8, BCL_OP_ADD, BCL_HM_READER, &cur);
        cur += BCL_HM_READER;
        if (st == BCL_OK)
            st = bcl_hm_wait_unreserved(b, &cur);
        int ready = ST(cur) == BCL_HM_READY;
        if (st == BCL_OK && ready)
            st = read_entry(m, b, buf);
        if (st == BCL_OK && ready)
            st = bcl_hm_key_equal(m, buf, k, &eq);
        if (st == BCL_OK && eq)
            st = bcl_hm_slot_value_out(m, buf + m->val_off - 8, out);
        bcl_status rs = bcl_hm_add_status(b, RELEASE_READER);
        if (st == BCL_OK)
            st = rs;
        if (ST(cur) == BCL_HM_FREE || eq) {      /* tombstones: go on */
            *found = eq;
            break;
        }
    }
    bcl_hm_scratch_end(buf, small);
    return st;
}

/* Promise find: one get of the whole bucket; no concurrent writer exists. */
static bcl_status find_only(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                            int *found, int *fallback)
{
    bcl_hm_probe p;
    uint64_t idx;
    unsigned char small[512], *buf;
    bcl_status st = bcl_hm_scratch(small, sizeof small, m->bsize, &buf);
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
            st = bcl_hm_slot_value_out(m, buf + m->val_off, out);
            break;
        }
    }
    bcl_hm_scratch_end(buf, small);
    return st;
}

bcl_status bcl_hm_find(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                       int *found, int promise)
{
    if (SIDE(m, k))
        return bcl_hm_find(m->side, k, out, found, promise);
    if (promise == BCL_HM_P_FIND) {
        int fallback = 0;
        size_t len0 = out->len;
        bcl_status st = m->compact ? bcl_hmc_find_only(m, k, out, found, &fallback)
                                   : find_only(m, k, out, found, &fallback);
        if (st != BCL_OK || !fallback)
            return st;
        out->len = len0;
    }
    return m->compact ? bcl_hmc_find_atomic(m, k, out, found) : find_atomic(m, k, out, found);
}

/* ---- accumulate ---------------------------------------------------------- */

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
static bcl_status acc_shared(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta,
                             void *slow_out, unsigned char *slot)
{
    int *slow = slow_out;
    bcl_hm_probe p;
    uint64_t idx, cur, prev, d = 0, old = 0, e0 = 0, home = 0;
    memcpy(&d, delta, m->val_size);
    *slow = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int eq = 0;
        bcl_status st = bcl_fetch_op(b, 8, BCL_OP_ADD, BCL_HM_READER, &cur);
        if (p.visited == 1) {
            e0 = META(cur);
            home = idx;
        }
        cur += BCL_HM_READER;
        while (st == BCL_OK && ST(cur) != BCL_HM_READY) {
            if (cur & BCL_HM_BUSY) {
                st = bcl_hm_wait_unreserved(b, &cur);
                continue;
            }
            if (ST(cur) == BCL_HM_TOMB) {
                *slow = 1;
                return bcl_hm_add_status(b, RELEASE_READER);
            }
            /* FREE: reserve it, keeping the counts (ours included). */
            if ((st = bcl_cas(b, 8, cur, cur | BCL_HM_RESERVED, &prev)) != BCL_OK)
                return st;
            if (prev != cur) {
                cur = prev;
                continue;
            }
            uint64_t h;
            st = bcl_fetch_op(bcl_hm_bucket(m, home), 8, BCL_OP_NOOP, 0, &h);
            if (st == BCL_OK && META(h) == e0 && !(h & BCL_HM_PLOCK))
                return bcl_hm_write_fresh(m, b, k, delta, PUBLISH_AS_READER,
                                   (uint64_t)0 - BCL_HM_RESERVED - BCL_HM_READER);
            *slow = 1;
            bcl_status us = bcl_hm_add_status(b, (uint64_t)0 - BCL_HM_RESERVED - BCL_HM_READER);
            return st != BCL_OK ? st : us;
        }
        if (st == BCL_OK)
            st = bcl_hm_read_key_slot(m, b, slot);
        if (st == BCL_OK)
            st = bcl_hm_key_equal(m, slot, k, &eq);
        if (st == BCL_OK && eq)
            st = bcl_fetch_op(bcl_hm_at(b, m->val_off), m->val_atomic, BCL_OP_ADD, d, &old);
        if (st == BCL_OK && eq && !bcl_hm_fast_old(m, old)) {
            *slow = 1;                   /* undo while our reader count holds */
            st = bcl_fetch_op(bcl_hm_at(b, m->val_off), m->val_atomic, BCL_OP_ADD,
                              (uint64_t)0 - d, NULL);
        }
        bcl_status rs = bcl_hm_add_status(b, RELEASE_READER);
        if (st != BCL_OK || rs != BCL_OK || eq)
            return st != BCL_OK ? st : rs;
    }
    return bcl_hm_full_error(m);
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
    return bcl_hm_commit_slot(m, &lk, k, v);
}

bcl_status bcl_hm_accumulate(const bcl_hashmap *m, const bcl_hm_key *k, const void *delta)
{
    if (m->num == BCL_HM_NUM_NONE || m->num == BCL_HM_NUM_BOOL || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
    if (SIDE(m, k))
        return bcl_hm_accumulate(m->side, k, delta);
    if (m->compact)
        return bcl_hmc_accumulate(m, k, delta);
    uint64_t d = 0;
    memcpy(&d, delta, m->val_size);
    if (m->val_atomic && bcl_hm_fast_delta(m, d)) {
        int slow = 0;
        bcl_status st = with_slot(acc_shared, m, k, delta, &slow);
        if (st != BCL_OK || !slow)
            return st;
    }
    /* Other numbers (floats, small ints), big deltas, values near a limit. */
    return acc_locked(m, k, delta);
}

/* ---- local insert -------------------------------------------------------- */

bcl_status bcl_hm_apply_local(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                              int accumulate, int *spilled)
{
    if (SIDE(m, k))
        return bcl_hm_classic_apply_local(m->side, k, val, accumulate, spilled);
    if (m->compact)
        return bcl_hmc_apply_local(m, k, val, accumulate, spilled);
    return bcl_hm_classic_apply_local(m, k, val, accumulate, spilled);
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
    bcl_status ts = bcl_hm_add_status(b, (uint64_t)BCL_HM_TOMB - BCL_HM_RESERVED);
    if (st == BCL_OK)
        st = ts;
    if (st == BCL_OK && m->key_var)
        st = bcl_obj_release(kr);
    if (st == BCL_OK && m->val_var)
        st = bcl_obj_release(vr);
    return st;
}

static bcl_status erase_probe(const bcl_hashmap *m, const bcl_hm_key *k, const void *unused,
                              void *found_out, unsigned char *slot)
{
    int *found = found_out;
    for (;;) {
        bcl_hm_probe p;
        uint64_t idx, cur;
        int lost = 0;
        *found = 0;
        bcl_hm_probe_init(m, &p, k->hash);
        while (!lost && bcl_hm_probe_next(m, &p, &idx)) {
            bcl_gptr b = bcl_hm_bucket(m, idx);
            int eq = 0;
            bcl_status st = bcl_fetch_op(b, 8, BCL_OP_ADD, BCL_HM_READER, &cur);
            cur += BCL_HM_READER;
            if (st == BCL_OK)
                st = bcl_hm_wait_unreserved(b, &cur);
            if (st == BCL_OK && ST(cur) == BCL_HM_READY &&
                (st = bcl_hm_read_key_slot(m, b, slot)) == BCL_OK)
                st = bcl_hm_key_equal(m, slot, k, &eq);
            bcl_status rs = bcl_hm_add_status(b, RELEASE_READER);
            if (st != BCL_OK || rs != BCL_OK)
                return st != BCL_OK ? st : rs;
            if (ST(cur) == BCL_HM_FREE)
                return BCL_OK;                   /* where a miss stops */
            if (!eq)
                continue;                        /* tombstone or another key */
            if ((st = bcl_hm_lock_entry(m, b, k, slot, &lost)) != BCL_OK)
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
    if (SIDE(m, k))
        return bcl_hm_erase(m->side, k, found);
    if (m->compact)
        return bcl_hmc_erase(m, k, found);
    return with_slot(erase_probe, m, k, NULL, found);
}

/* erase_many of fixed-size keys: one scratch slot for them all
 * (bcl_hashmap_seq.c's bcl_hm_erase_many calls this). */
bcl_status bcl_hm_erase_fixed(const bcl_hashmap *m, const void *keys, size_t k,
                              unsigned char *found)
{
    scratch sc;
    unsigned char *slot = scratch_get(&sc, m->key_slot);
    if (!slot)
        return BCL_ERR_NOMEM;
    bcl_status st = BCL_OK;
    for (size_t i = 0; i < k && st == BCL_OK; i++) {
        bcl_hm_key key = bcl_hm_key_make((const unsigned char *)keys + i * m->key_size,
                                         m->key_size);
        int f = 0;
        st = m->compact ? bcl_hm_erase(m, &key, &f) : erase_probe(m, &key, NULL, &f, slot);
        found[i] = (unsigned char)f;
    }
    scratch_free(&sc);
    return st;
}
