/*
 * bcl_hashmap_engine.h -- what the two layouts' batch engines share
 * (bcl_hashmap_batch.c with bcl_hashmap_many.c for the classic buckets,
 * bcl_hashmap_compact_batch.c for the compact ones; internal to
 * containers/hashmap/).  Each runs its own protocol's steps; these are the
 * parts where the logic is the same whatever the bucket layout:
 *
 *   - a step along a key's probe sequence;
 *   - the round loop: issue every op's next step, send, complete, relax;
 *   - the keys an engine hands to the scalar protocol (a tombstone on the
 *     way, a failed placement check), kept as key, value, index records;
 *   - finding a batch's duplicate keys, and merging them.
 */
#ifndef BCL_HASHMAP_ENGINE_H
#define BCL_HASHMAP_ENGINE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcl_comm_batch.h"
#include "containers/hashmap/bcl_hashmap_internal.h"

/* The next bucket of the probe sequence into *b: 0 when the sequence is
 * exhausted (not found / full). */
static inline int bcl_hmb_probe_step(const bcl_hashmap *m, bcl_hm_probe *pr, bcl_gptr *b)
{
    uint64_t idx;
    if (!bcl_hm_probe_next(m, pr, &idx))
        return 0;
    *b = bcl_hm_bucket(m, idx);
    return 1;
}

/* Defines `static bcl_status name(BT *bt)`: the round loop of the engine
 * whose batch type is BT (fields round, ops, n; each op with phase -- 0,
 * PH_DONE, comes first in each engine's phases -- and waiting).  A round:
 * the engine's prelude(bt, &any) issues what must go before the keys'
 * steps (any: it issued something), then issue(bt, op) the next step of
 * every op not done (none left, and nothing from the prelude, ends the
 * loop); the steps are sent and completed; every op whose step was issued
 * hears its result from the engine's complete(bt, op), one deferred a
 * round (waiting < 0) heard nothing.  When any op waits (deferred, or it only polled a bucket
 * someone holds) the rank relaxes before the next round.  A macro so that
 * each engine's own op type and functions are called directly, with
 * nothing between them and the hot loop. */
#define BCL_HMB_DEFINE_RUN(name, BT, prelude, issue, complete)                 \
    static bcl_status name(BT *bt)                                              \
    {                                                                           \
        unsigned spins = 0;                                                     \
        for (;;) {                                                              \
            int any = 0, waiting = 0;                                           \
            bcl_status st = prelude(bt, &any);                                  \
            for (size_t i = 0; st == BCL_OK && i < bt->n; i++) {                \
                __typeof__(bt->ops) o = &bt->ops[i];                            \
                o->waiting = 0;                                                 \
                if (o->phase != 0) {                                            \
                    any = 1;                                                    \
                    st = issue(bt, o);                                          \
                }                                                               \
            }                                                                   \
            if (st != BCL_OK || !any)                                           \
                return st;                                                      \
            if ((st = bcl_round_send(&bt->round)) != BCL_OK)                    \
                return st;                                                      \
            for (size_t i = 0; i < bt->n; i++) {                                \
                __typeof__(bt->ops) o = &bt->ops[i];                            \
                if (o->phase == 0)                                              \
                    continue;                                                   \
                if (o->waiting < 0) {                                           \
                    waiting = 1;                                                \
                    continue;                                                   \
                }                                                               \
                complete(bt, o);                                                \
                waiting |= o->waiting;                                          \
            }                                                                   \
            if (waiting && (st = bcl_relax(&spins)) != BCL_OK)                  \
                return st;                                                      \
        }                                                                       \
    }

/* Keys finished with the scalar protocol after the engine's window or
 * chunk: each record is the key, the value and its index in the caller's
 * arrays (the op's slot may be refilled meanwhile). */
typedef struct bcl_hmb_defer {
    unsigned char *rec;
    size_t n, cap;
    int nomem;                 /* a record could not be kept: reported later */
} bcl_hmb_defer;

static inline size_t bcl_hmb_defer_width(const bcl_hashmap *m)
{
    return m->key_size + m->val_size + sizeof(size_t);
}

static inline void bcl_hmb_defer_add(bcl_hmb_defer *d, const bcl_hashmap *m, const void *key,
                                     const void *val, size_t src)
{
    size_t w = bcl_hmb_defer_width(m);
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        unsigned char *r = realloc(d->rec, cap * w);
        if (!r) {
            d->nomem = 1;
            return;
        }
        d->rec = r;
        d->cap = cap;
    }
    unsigned char *e = d->rec + d->n++ * w;
    memcpy(e, key, m->key_size);
    memcpy(e + m->key_size, val, m->val_size);
    memcpy(e + m->key_size + m->val_size, &src, sizeof src);
}

/* The layout's scalar insert (insert != 0) or accumulate of one key. */
typedef bcl_status (*bcl_hmb_scalar_fn)(const bcl_hashmap *m, const bcl_hm_key *k,
                                        const void *val, int insert);
/* A replayed key the map refused (st: BCL_ERR_FULL or BCL_ERR_OVERFLOW),
 * with its index in the caller's arrays: the engine records its outcome. */
typedef void (*bcl_hmb_refused_fn)(void *ctx, size_t src, bcl_status st);

/* Every record through `scalar`, in order; the list is then empty.  Any
 * error but a refusal ends the replay. */
static inline bcl_status bcl_hmb_defer_replay(bcl_hmb_defer *d, const bcl_hashmap *m, int insert,
                                              bcl_hmb_scalar_fn scalar,
                                              bcl_hmb_refused_fn refused, void *ctx)
{
    if (d->nomem)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a batch's deferred keys");
    for (size_t i = 0; i < d->n; i++) {
        const unsigned char *e = d->rec + i * bcl_hmb_defer_width(m);
        size_t src;
        memcpy(&src, e + m->key_size + m->val_size, sizeof src);
        bcl_hm_key k = bcl_hm_key_make(e, m->key_size);
        bcl_status st = scalar(m, &k, e + m->key_size, insert);
        if (st == BCL_ERR_FULL || st == BCL_ERR_OVERFLOW)
            refused(ctx, src, st);
        else if (st != BCL_OK)
            return st;
    }
    d->n = 0;
    return BCL_OK;
}

/* The keys of a batch that appeared earlier in it, found with an
 * open-addressing table of (index, hash) slots: key i has hash(ctx, i);
 * same(ctx, j, i) says keys j and i are equal (asked only when the hashes
 * are); a key met before, at the index j the table keeps for it, goes to
 * dup(ctx, j, i), which returns the index to keep from now on (i: a later
 * value wins; j: it was merged into the first).  Inlined, so the callers'
 * functions are called directly. */
static inline __attribute__((always_inline)) bcl_status
bcl_hmb_find_dups(size_t n, void *ctx, uint64_t (*hash)(void *ctx, size_t i),
                  int (*same)(void *ctx, size_t j, size_t i),
                  size_t (*dup)(void *ctx, size_t j, size_t i))
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap <<= 1;
    struct slot { size_t idx; uint64_t h; } *tab = malloc(cap * sizeof *tab);
    if (!tab)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to merge a batch's duplicates");
    for (size_t j = 0; j < cap; j++)
        tab[j].idx = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = hash(ctx, i);
        size_t j = (size_t)(h >> 7) & (cap - 1);
        while (tab[j].idx != SIZE_MAX && (tab[j].h != h || !same(ctx, tab[j].idx, i)))
            j = (j + 1) & (cap - 1);
        if (tab[j].idx == SIZE_MAX) {
            tab[j].idx = i;
            tab[j].h = h;
        } else {
            tab[j].idx = dup(ctx, tab[j].idx, i);
        }
    }
    free(tab);
    return BCL_OK;
}

/* Defines `static size_t name(void *bt, size_t j, size_t i)`, the merge
 * rule bcl_hmb_find_dups applies to a batch's duplicate keys, for the
 * engine whose batch type is BT (passed as the context; kind, m, ops with
 * phase, overflow and into; val_of(bt, op) an op's value): for an insert
 * (kind == insert_kind) the later value wins, the earlier op dropped and
 * carried by the later one; for an accumulate the later delta is summed
 * into the first occurrence, which carries it, unless the batch's own
 * deltas overflow, which the later op then reports. */
#define BCL_HMB_DEFINE_MERGE(name, BT, insert_kind)                            \
    static size_t name(void *ctx, size_t j, size_t i)                           \
    {                                                                           \
        BT *bt = ctx;                                                           \
        __typeof__(bt->ops) p = &bt->ops[j], o = &bt->ops[i];                   \
        if (bt->kind == (insert_kind)) {                                        \
            p->phase = 0;                                                       \
            p->into = i;                                                        \
            return i;                                                           \
        }                                                                       \
        if (bcl_hm_num_add(bt->m, val_of(bt, p), val_of(bt, o)))                \
            o->overflow = 1;                                                    \
        else                                                                    \
            o->into = j;                                                        \
        o->phase = 0;                                                           \
        return j;                                                               \
    }

#endif /* BCL_HASHMAP_ENGINE_H */
