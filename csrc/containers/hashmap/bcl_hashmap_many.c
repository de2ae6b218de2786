/* bcl_hashmap_many.c -- insert_many, accumulate_many, batch outcomes and the
 * protocol's find_many: the caller's keys go through the batch engine
 * (bcl_hashmap_batch.c) in windows of refilled slots (inserts, finds) or in
 * lock-step chunks (accumulates), duplicate keys merged first, and the keys
 * the engine handed over finished with the scalar protocol.  A compact map's
 * batch goes to its own engine (bcl_hashmap_compact_batch.c), its side
 * map's keys apart. */
#include "containers/hashmap/bcl_hashmap_batch.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_free.h"

/* ---- set-up: chunks, duplicate merging -------------------------------------- */

/* Merge duplicate keys of ops[0..n) (set-up of a chunk: bt->hash holds
 * their hashes).  Dropped ops are marked PH_DONE. */
static uint64_t chunk_hash(void *ctx, size_t i)
{
    return ((batch *)ctx)->hash[i];
}

static int chunk_same(void *ctx, size_t j, size_t i)
{
    batch *bt = ctx;
    return bcl_hmb_key_eq(bt, &bt->ops[j], key_of(bt, &bt->ops[i]));
}

BCL_HMB_DEFINE_MERGE(chunk_merge, batch, K_INSERT)

/* The keys the batch handed over (to_scalar): the scalar protocol reuses
 * tombstones under the placement lock (and accumulate applies its overflow
 * rule there).  A full table or an overflowing sum counts like the batch's
 * own: in a refilled window the slot is gone, so the outcome is written
 * here; in a chunk the op is still there and run_chunk reads its flags. */
static bcl_status scalar_apply(const bcl_hashmap *m, const bcl_hm_key *k, const void *v,
                               int insert)
{
    return insert ? bcl_hm_insert(m, k, v, m->val_size, 0) : bcl_hm_accumulate(m, k, v);
}

static void scalar_refused(void *ctx, size_t src, bcl_status st)
{
    batch *bt = ctx;
    if (bt->refill) {
        if (bt->n_full && st == BCL_ERR_FULL)
            ++*bt->n_full;
        if (bt->outcome)
            bt->outcome[src] = st == BCL_ERR_FULL ? BCL_HM_NOROOM : BCL_HM_OVERFLOW;
        bt->n_over += st == BCL_ERR_OVERFLOW;
    } else if (st == BCL_ERR_FULL) {
        bt->ops[src].full = 1;
    } else {
        bt->ops[src].overflow = 1;
    }
}

static bcl_status run_scalar(batch *bt)
{
    return bcl_hmb_defer_replay(&bt->defer, bt->m, bt->kind == K_INSERT, scalar_apply,
                                scalar_refused, bt);
}

/* skip[i] = 1 when a later key of the window equals key i (insert). */
static uint64_t window_hash(void *ctx, size_t i)
{
    batch *bt = ctx;
    return bcl_hm_hash(bt->wkeys + i * bt->m->key_size, bt->m->key_size);
}

static int window_same(void *ctx, size_t j, size_t i)
{
    batch *bt = ctx;
    size_t ks = bt->m->key_size;
    return !memcmp(bt->wkeys + j * ks, bt->wkeys + i * ks, ks);
}

static size_t window_supersede(void *ctx, size_t j, size_t i)
{
    ((batch *)ctx)->skip[j] = 1;
    return i;
}

static bcl_status mark_superseded(batch *bt)
{
    memset(bt->skip, 0, bt->wn);
    return bcl_hmb_find_dups(bt->wn, bt, window_hash, window_same, window_supersede);
}

/* One window of keys through `slots` refilled slots. */
static bcl_status run_window(batch *bt, size_t slots)
{
    if (bt->kind == K_INSERT) {
        bcl_status st = mark_superseded(bt);
        if (st != BCL_OK)
            return st;
    }
    bt->next = 0;
    bt->n = slots < bt->wn ? slots : bt->wn;
    for (size_t s = 0; s < bt->n; s++) {
        memset(&bt->ops[s], 0, sizeof bt->ops[s]);
        bt->ops[s].phase = PH_DONE;
        bt->ops[s].recorded = 1;
    }
    bcl_status st = bcl_hmb_run(bt);
    return st == BCL_OK ? run_scalar(bt) : st;
}

/* One chunk: keys[0..n), vals (insert/accumulate), out/found (find). */
static bcl_status run_chunk(batch *bt, const unsigned char *keys, const unsigned char *vals,
                            size_t vstride, size_t *n_full)
{
    const bcl_hashmap *m = bt->m;
    uint64_t *hash = malloc(bt->n * sizeof *hash);
    if (!hash)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a batch of %zu keys", bt->n);
    memset(bt->ops, 0, bt->n * sizeof *bt->ops);
    for (size_t i = 0; i < bt->n; i++) {
        op *o = &bt->ops[i];
        memcpy(key_of(bt, o), keys + i * m->key_size, m->key_size);
        if (vals)
            memcpy(val_of(bt, o), vals + i * vstride, m->val_size);
        hash[i] = bcl_hm_hash(key_of(bt, o), m->key_size);
        bcl_hm_probe_init(m, &o->pr, hash[i]);
        o->src = o->into = i;
        bcl_hmb_advance(bt, o, bcl_hmb_first_phase(bt->kind));
        o->home = o->b;
    }
    bcl_status st = BCL_OK;
    bt->hash = hash;
    if (bt->kind == K_INSERT || bt->kind == K_ACC_SHARED || bt->kind == K_ACC_LOCKED)
        st = bcl_hmb_find_dups(bt->n, bt, chunk_hash, chunk_same, chunk_merge);
    bt->hash = NULL;
    free(hash);
    /* Deltas too big for the fetch-add (bcl_hm_fast_delta): locked from the start. */
    for (size_t i = 0; st == BCL_OK && bt->kind == K_ACC_SHARED && i < bt->n; i++) {
        uint64_t d = 0;
        memcpy(&d, val_of(bt, &bt->ops[i]), m->val_size);
        if (bt->ops[i].phase != PH_DONE && !bcl_hm_fast_delta(m, d))
            bcl_hmb_go_slow(bt, &bt->ops[i]);
    }
    if (st == BCL_OK)
        st = bcl_hmb_run(bt);
    if (st == BCL_OK)
        st = run_scalar(bt);
    for (size_t i = 0; st == BCL_OK && i < bt->n; i++) {
        op *o = &bt->ops[i], *c = &bt->ops[o->into];   /* c: carried it */
        if (bt->found)
            bt->found[i] = (unsigned char)o->found;
        if (n_full)
            *n_full += (size_t)o->full;
        bt->n_over += (size_t)o->overflow;
        if (bt->outcome)
            bt->outcome[i] = o->overflow ? BCL_HM_OVERFLOW
                           : c->full ? BCL_HM_NOROOM : c->overflow ? BCL_HM_OVERFLOW
                                                                   : BCL_HM_DONE;
    }
    return st;
}

/* ---- a compact map: the side map's keys apart ------------------------------ */

/* Gather the entries idx[0..n) of an array of w-byte elements. */
static unsigned char *gather(const unsigned char *a, size_t w, const size_t *idx, size_t n)
{
    unsigned char *g = malloc(n * w + 1);
    for (size_t i = 0; g && i < n; i++)
        memcpy(g + i * w, a + idx[i] * w, w);
    return g;
}

/* One part of a split batch (the side map's keys, or the compact table's):
 * its keys and values gathered, its results scattered back. */
typedef struct part {
    size_t *idx, n;
    unsigned char *keys, *vals, *out, *found, *outcome;
} part;

static void part_free(part *p)
{
    BCL_FREE_ALL(p->idx, p->keys, p->vals, p->out, p->found, p->outcome);
}

static bcl_status part_make(const bcl_hashmap *m, part *p, const unsigned char *keys,
                            const unsigned char *vals, int want_out)
{
    p->keys = gather(keys, m->key_size, p->idx, p->n);
    p->vals = vals ? gather(vals, m->val_size, p->idx, p->n) : NULL;
    p->out = want_out ? malloc(p->n * m->val_size + 1) : NULL;
    p->found = malloc(p->n + 1);
    p->outcome = malloc(p->n + 1);
    if (!p->keys || (vals && !p->vals) || (want_out && !p->out) || !p->found || !p->outcome)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to split a batch of %zu keys", p->n);
    memset(p->found, 0, p->n);
    memset(p->outcome, BCL_HM_DONE, p->n);
    return BCL_OK;
}

static void part_back(const bcl_hashmap *m, const part *p, unsigned char *out,
                      unsigned char *found, unsigned char *outcome)
{
    for (size_t i = 0; i < p->n; i++) {
        size_t j = p->idx[i];
        if (found)
            found[j] = p->found[i];
        if (outcome)
            outcome[j] = p->outcome[i];
        if (out && p->found[i])
            memcpy(out + j * m->val_size, p->out + i * m->val_size, m->val_size);
    }
}

static bcl_status run_all(const bcl_hashmap *m, enum kind kind, const void *keys,
                          const void *vals, size_t vstride, size_t k, void *out,
                          unsigned char *found, size_t *n_full, unsigned char *outcome,
                          size_t *n_over);

/* The side map's keys through its own (classic) batch. */
static bcl_status run_side(const bcl_hashmap *m, enum kind kind, part *p, size_t *n_full,
                           size_t *n_over)
{
    if (!p->n)
        return BCL_OK;
    if (kind == K_FIND || kind == K_FIND_ONLY)
        return run_all(m->side, kind, p->keys, NULL, 0, p->n, p->out, p->found, NULL, NULL,
                       NULL);
    bcl_status st = run_all(m->side, kind, p->keys, p->vals, m->val_size, p->n, NULL, NULL,
                            NULL, p->outcome, NULL);
    for (size_t i = 0; st == BCL_OK && i < p->n; i++) {
        if (n_full)
            *n_full += p->outcome[i] == BCL_HM_NOROOM;
        *n_over += p->outcome[i] == BCL_HM_OVERFLOW;
    }
    return st;
}

/* A compact map's batch: the keys equal to its reserved words go to the
 * side map, the others to the compact table (bcl_hashmap_compact_batch.c). */
static bcl_status run_compact(const bcl_hashmap *m, enum kind kind, const void *keys,
                              const void *vals, size_t k, void *out, unsigned char *found,
                              size_t *n_full, unsigned char *outcome, size_t *n_over)
{
    const unsigned char *kb = keys, *vb = vals;
    const int ck = kind == K_INSERT ? BCL_HMC_INSERT
                 : kind == K_FIND ? BCL_HMC_FIND
                 : kind == K_FIND_ONLY ? BCL_HMC_FIND_ONLY : BCL_HMC_ACC;
    size_t nside = 0, over = 0;
    if (n_full)
        *n_full = 0;
    for (size_t i = 0; i < k; i++)
        nside += bcl_hmc_side_key(m, kb + i * m->key_size);
    bcl_status st;
    if (!nside) {
        st = bcl_hmc_batch(m, ck, kb, vb, k, out, found, n_full, outcome, &over);
    } else {
        part side = { 0 }, rest = { 0 };
        side.idx = malloc(nside * sizeof *side.idx);
        rest.idx = malloc((k - nside + 1) * sizeof *rest.idx);
        st = side.idx && rest.idx ? BCL_OK
                                  : bcl_set_error(BCL_ERR_NOMEM, "no memory to split a batch");
        for (size_t i = 0; st == BCL_OK && i < k; i++) {
            part *p = bcl_hmc_side_key(m, kb + i * m->key_size) ? &side : &rest;
            p->idx[p->n++] = i;
        }
        if (st == BCL_OK)
            st = part_make(m, &side, kb, vb, out != NULL);
        if (st == BCL_OK)
            st = part_make(m, &rest, kb, vb, out != NULL);
        if (st == BCL_OK)
            st = run_side(m, kind, &side, n_full, &over);
        size_t full2 = 0;
        if (st == BCL_OK)
            st = bcl_hmc_batch(m, ck, rest.keys, rest.vals, rest.n, rest.out, rest.found,
                               n_full ? &full2 : NULL, rest.outcome, &over);
        if (n_full)
            *n_full += full2;
        if (st == BCL_OK) {
            part_back(m, &side, out, found, outcome);
            part_back(m, &rest, out, found, outcome);
        }
        part_free(&side);
        part_free(&rest);
    }
    if (n_over)
        *n_over = over;
    return st;
}

static bcl_status run_all(const bcl_hashmap *m, enum kind kind, const void *keys,
                          const void *vals, size_t vstride, size_t k, void *out,
                          unsigned char *found, size_t *n_full, unsigned char *outcome,
                          size_t *n_over)
{
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "batches need fixed-size key and value types");
    if (m->compact)
        return run_compact(m, kind, keys, vals, k, out, found, n_full, outcome, n_over);
    if (n_full)
        *n_full = 0;
    batch bt = { .m = m, .kind = kind, .stride = 2 * m->bsize };
    const size_t chunk = bcl_hm_chunk_keys(!bcl_comm_direct());
    size_t c = k < chunk ? k : chunk;
    /* A slot claims at most 2 words a round (a posted add, then its step). */
    bcl_status st = bcl_round_init(&bt.round, 2 * chunk);
    if (st != BCL_OK)
        return st;
    bt.ops = malloc((c ? c : 1) * sizeof *bt.ops);
    bt.buf = calloc(c ? c : 1, bt.stride);
    int ok = bt.ops && bt.buf;
    bt.refill = kind == K_INSERT || kind == K_FIND || kind == K_FIND_ONLY;
    /* Insert windows are bounded (their duplicate merge needs 17 bytes a
     * key); finds need no merge: one window. */
    size_t window = kind == K_INSERT ? 16 * chunk : k;
    if (ok && kind == K_INSERT && !(bt.skip = malloc(k < window ? (k ? k : 1) : window)))
        ok = 0;
    if (!ok)
        st = bcl_set_error(BCL_ERR_NOMEM, "no memory for a batch of %zu keys", c);
    for (size_t done = 0; bt.refill && st == BCL_OK && done < k; done += bt.wn) {
        bt.wn = k - done < window ? k - done : window;
        bt.wkeys = (const unsigned char *)keys + done * m->key_size;
        bt.wvals = vals ? (const unsigned char *)vals + done * vstride : NULL;
        bt.vstride = vstride;
        bt.n_full = n_full;
        bt.out = out ? (unsigned char *)out + done * m->val_size : NULL;
        bt.found = found ? found + done : NULL;
        bt.outcome = outcome ? outcome + done : NULL;
        if (bt.outcome)               /* superseded keys never run: done */
            memset(bt.outcome, BCL_HM_DONE, bt.wn);
        st = run_window(&bt, c);
    }
    for (size_t done = 0; !bt.refill && st == BCL_OK && done < k; done += bt.n) {
        bt.n = k - done < chunk ? k - done : chunk;
        bt.out = out ? (unsigned char *)out + done * m->val_size : NULL;
        bt.found = found ? found + done : NULL;
        bt.outcome = outcome ? outcome + done : NULL;
        st = run_chunk(&bt, (const unsigned char *)keys + done * m->key_size,
                       vals ? (const unsigned char *)vals + done * vstride : NULL, vstride,
                       n_full);
    }
    bcl_round_free(&bt.round);
    BCL_FREE_ALL(bt.skip, bt.defer.rec, bt.ops, bt.buf);
    if (n_over)
        *n_over = bt.n_over;
    return st;
}

bcl_status bcl_hm_insert_many(const bcl_hashmap *m, const void *keys, const void *vals,
                              size_t k, size_t *n_full)
{
    return run_all(m, K_INSERT, keys, vals, m->val_size, k, NULL, NULL, n_full, NULL,
                   NULL);
}

bcl_status bcl_hm_insert_many_local(const bcl_hashmap *m, const void *keys,
                                    const void *vals, size_t k, size_t *n_full)
{
    const unsigned char *kb = keys, *vb = vals;
    *n_full = 0;
    for (size_t i = 0; i < k; i++) {
        bcl_hm_key key = bcl_hm_key_make(kb + i * m->key_size, m->key_size);
        bcl_status st = bcl_hm_insert(m, &key, vb + i * m->val_size, m->val_size,
                                      BCL_HM_P_LOCAL);
        if (st != BCL_OK)
            return st;
    }
    return BCL_OK;
}

bcl_status bcl_hm_find_protocol(const bcl_hashmap *m, const void *keys, size_t k, void *vals,
                                unsigned char *found, int promise)
{
    enum kind kind = promise == BCL_HM_P_FIND ? K_FIND_ONLY : K_FIND;
    return run_all(m, kind, keys, NULL, 0, k, vals, found, NULL, NULL, NULL);
}

bcl_status bcl_hm_accumulate_many(const bcl_hashmap *m, const void *keys,
                                  const void *deltas, size_t k, size_t *n_full)
{
    if (m->num == BCL_HM_NUM_NONE || m->num == BCL_HM_NUM_BOOL)
        return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
    enum kind kind = m->val_atomic ? K_ACC_SHARED : K_ACC_LOCKED;
    size_t n_over = 0;
    bcl_status st = run_all(m, kind, keys, deltas, m->val_size, k, NULL, NULL, n_full,
                            NULL, &n_over);
    if (st == BCL_OK && n_over)
        st = bcl_set_error(BCL_ERR_OVERFLOW, "accumulate_many: %zu of %zu deltas were not "
                           "applied: the sums overflow the %zu-byte integer value type "
                           "(the others were applied)", n_over, k, m->val_size);
    return st;
}

bcl_status bcl_hm_batch_outcome(const bcl_hashmap *m, int accumulate, const void *keys,
                                const void *vals, size_t k, unsigned char *outcome)
{
    if (accumulate && (m->num == BCL_HM_NUM_NONE || m->num == BCL_HM_NUM_BOOL))
        return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
    enum kind kind = !accumulate ? K_INSERT : m->val_atomic ? K_ACC_SHARED : K_ACC_LOCKED;
    return run_all(m, kind, keys, vals, m->val_size, k, NULL, NULL, NULL, outcome, NULL);
}

