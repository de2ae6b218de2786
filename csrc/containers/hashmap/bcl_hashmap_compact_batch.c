/* bcl_hashmap_compact_batch.c -- pipelined batches over the compact layout
 * (insert_many, accumulate_many, find_many; bcl_hashmap_compact.h).
 *
 * As in bcl_hashmap_batch.c every key runs the protocol as a small state
 * machine and a round issues one step of every unfinished key, completed by
 * one flush per touched rank; dependent steps (write the value, then publish
 * the key) are in different rounds, so the flush between orders them.  Reads
 * and writes of words go in the round's indexed calls (bcl_round); taking a
 * bucket is a compare-and-swap of its key word, which MPI cannot index, so
 * each is its own non-blocking operation in the round.
 *
 * Steps of a key:
 *   insert / accumulate: read the home stripe's placement word (first, so no
 *     bucket is passed before it), then per bucket CAS(key -> BUSY): held
 *     -> (accumulate: read the value, add) write the value -> publish the key;
 *     EMPTY -> CAS(EMPTY -> BUSY) -> write the value and re-read the
 *     placement word in one round -> publish the key if the word is the same
 *     and unlocked, else give the bucket back and finish the key with the
 *     scalar protocol; a tombstone on the way: the scalar protocol too.
 *   find: CAS(key -> BUSY) -> read the value -> publish the key again.
 *   find-only: read the whole bucket; a held one (the promise was not kept)
 *     turns the key into an atomic find.
 * Keys equal to the reserved words are the side map's: the caller
 * (bcl_hashmap_many.c) hands them to it and only the others to this file.
 * Duplicate keys are merged first (insert: the last value; accumulate: the
 * sum), so a batch never waits on itself for a key.  Work goes in lock-step
 * chunks of bcl_hm_chunk_keys keys.  What this engine shares with the
 * classic one (probe steps, the completion half of a round, the keys
 * deferred to the scalar protocol, the duplicate table) is in
 * bcl_hashmap_engine.h. */
#include "containers/hashmap/bcl_hashmap_engine.h"

#include <stdlib.h>
#include <string.h>

#include "comm/bcl_comm_batch.h"
#include "runtime/bcl_free.h"

#define EMPTY BCL_HMC_EMPTY
#define TOMB BCL_HMC_TOMB
#define BUSY BCL_HMC_BUSY

enum phase {
    PH_DONE,
    PH_STRIPE,    /* read the home stripe's placement word                */
    PH_TRY,       /* CAS(key -> BUSY)                                     */
    PH_CLAIM,     /* CAS(EMPTY -> BUSY)                                   */
    PH_CHECK,     /* write the value, re-read the placement word          */
    PH_GETVAL,    /* read the value of a held bucket                      */
    PH_PUTVAL,    /* write the value of a held bucket                     */
    PH_PUBLISH,   /* write the key word (give the bucket back)            */
    PH_GIVEBACK,  /* write EMPTY (a claim that failed its check)          */
    PH_GET        /* find-only: read the whole bucket                     */
};

typedef struct cop {
    bcl_hm_probe pr;
    bcl_gptr b;                /* the current bucket                           */
    uint64_t home;             /* global index of the home bucket              */
    uint64_t kw;               /* the key word                                 */
    uint64_t cas_exp, cas_des; /* the CAS's operands (live until the flush)    */
    uint64_t res;              /* the CAS's old word                           */
    uint64_t e0, chk;          /* placement word: before probing, after claim  */
    uint64_t pub;              /* the word PH_PUBLISH writes                   */
    int phase, waiting, full, found, overflow, atomic_find;
    size_t into;               /* a merged duplicate: the op that carries it   */
} cop;

typedef struct cbatch {
    const bcl_hashmap *m;
    int kind;
    bcl_round round;
    cop *ops;
    size_t n;
    unsigned char *buf;        /* per op: its value (vw bytes), then a bucket */
    size_t vw, stride;
    unsigned char *out, *found, *outcome;
    bcl_hmb_defer defer;       /* keys finished with the scalar protocol */
} cbatch;

static unsigned char *val_of(cbatch *bt, cop *o)
{
    return bt->buf + (size_t)(o - bt->ops) * bt->stride;
}

static unsigned char *read_of(cbatch *bt, cop *o)
{
    return val_of(bt, o) + bt->vw;
}

static int writes(const cbatch *bt)
{
    return bt->kind == BCL_HMC_INSERT || bt->kind == BCL_HMC_ACC;
}

static void advance(cbatch *bt, cop *o, int next)
{
    int more = bcl_hmb_probe_step(bt->m, &o->pr, &o->b);
    o->phase = more ? next : PH_DONE;
    o->full = !more && writes(bt);
}

/* Finish this key with the scalar protocol after the chunk (it holds no
 * bucket now). */
static void to_scalar(cbatch *bt, cop *o)
{
    o->phase = PH_DONE;
    bcl_hmb_defer_add(&bt->defer, bt->m, &o->kw, val_of(bt, o), (size_t)(o - bt->ops));
}

/* Write a bucket's key word: an atomic store on shm (others CAS it), a
 * REPLACE in the round's indexed call on rma. */
static bcl_status write_word(cbatch *bt, bcl_gptr b, uint64_t w)
{
    if (!bt->round.rma)
        return bcl_atomic_store(b, 8, w);
    return bcl_round_write(&bt->round, b, &w, 8);
}

static bcl_status cas_step(cbatch *bt, cop *o, uint64_t expect)
{
    o->cas_exp = expect;
    o->cas_des = BUSY;
    bcl_status s = bcl_cas_nb(o->b, 8, &o->cas_exp, &o->cas_des, &o->res);
    if (s == BCL_OK)
        bcl_round_touch(&bt->round, o->b.rank);
    return s;
}

static bcl_status issue(cbatch *bt, cop *o)
{
    const bcl_hashmap *m = bt->m;
    bcl_gptr v = bcl_hm_at(o->b, BCL_HMC_VALUE);
    int issued = 1;
    bcl_status s = BCL_OK;
    switch (o->phase) {
    case PH_STRIPE:
        s = bcl_round_fetch(&bt->round, bcl_hmc_stripe(m, o->home), BCL_OP_NOOP, 0, &o->e0,
                            &issued);
        break;
    case PH_TRY:
        s = cas_step(bt, o, o->kw);
        break;
    case PH_CLAIM:
        s = cas_step(bt, o, EMPTY);
        break;
    case PH_CHECK:
        s = bcl_round_write(&bt->round, v, val_of(bt, o), bt->vw);
        if (s == BCL_OK)
            s = bcl_round_fetch(&bt->round, bcl_hmc_stripe(m, o->home), BCL_OP_NOOP, 0,
                                &o->chk, &issued);
        break;
    case PH_GETVAL:
        s = bcl_round_read(&bt->round, v, read_of(bt, o), bt->vw);
        break;
    case PH_PUTVAL:
        s = bcl_round_write(&bt->round, v, val_of(bt, o), bt->vw);
        break;
    case PH_PUBLISH:
        s = write_word(bt, o->b, o->pub);
        break;
    case PH_GIVEBACK:
        s = write_word(bt, o->b, EMPTY);
        break;
    case PH_GET:
        s = bcl_round_read(&bt->round, o->b, read_of(bt, o), m->bsize);
        break;
    default:
        break;
    }
    if (s == BCL_OK && !issued)
        o->waiting = -1;                  /* deferred a round: nothing to complete */
    return s;
}

/* The bucket is ours (CAS(key -> BUSY) succeeded). */
static void on_held(cbatch *bt, cop *o)
{
    o->pub = o->kw;
    if (bt->kind == BCL_HMC_INSERT)
        o->phase = PH_PUTVAL;
    else
        o->phase = PH_GETVAL;             /* accumulate, find */
}

/* What a CAS found; `claim`: it was CAS(EMPTY -> BUSY). */
static void after_cas(cbatch *bt, cop *o, int claim)
{
    uint64_t w = o->res;
    int find = !writes(bt);
    if (claim && w == EMPTY) {
        o->phase = PH_CHECK;              /* ours: write, check, publish */
    } else if (w == o->kw) {
        if (claim)
            o->phase = PH_TRY;            /* placed meanwhile: take it */
        else
            on_held(bt, o);
    } else if (w == BUSY) {
        o->phase = PH_TRY;                /* look again next round */
        o->waiting = 1;
    } else if (w == EMPTY) {
        o->phase = find ? PH_DONE : PH_CLAIM;     /* absent */
    } else if (w == TOMB && !find) {
        to_scalar(bt, o);                 /* reuse it under the stripe's lock */
    } else {
        advance(bt, o, PH_TRY);           /* another key, or a tombstone */
    }
}

static void complete(cbatch *bt, cop *o)
{
    const bcl_hashmap *m = bt->m;
    switch (o->phase) {
    case PH_STRIPE:
        o->phase = PH_TRY;
        break;
    case PH_TRY:
        after_cas(bt, o, 0);
        break;
    case PH_CLAIM:
        after_cas(bt, o, 1);
        break;
    case PH_CHECK:
        if (o->chk == o->e0 && !(o->chk & BCL_HMC_PLOCK)) {
            o->pub = o->kw;
            o->phase = PH_PUBLISH;
        } else {
            o->phase = PH_GIVEBACK;
        }
        break;
    case PH_GETVAL:
        if (bt->kind != BCL_HMC_ACC) {            /* find */
            o->found = 1;
            if (bt->out)
                memcpy(bt->out + (size_t)(o - bt->ops) * m->val_size, read_of(bt, o),
                       m->val_size);
            o->phase = PH_PUBLISH;
        } else if (bcl_hm_num_add(m, read_of(bt, o), val_of(bt, o))) {
            o->overflow = 1;                      /* not applied */
            o->phase = PH_PUBLISH;
        } else {
            memcpy(val_of(bt, o), read_of(bt, o), m->val_size);
            o->phase = PH_PUTVAL;
        }
        break;
    case PH_PUTVAL:
        o->phase = PH_PUBLISH;
        break;
    case PH_PUBLISH:
        o->phase = PH_DONE;
        break;
    case PH_GIVEBACK:
        to_scalar(bt, o);
        break;
    case PH_GET: {
        uint64_t w;
        memcpy(&w, read_of(bt, o), 8);
        if (w == EMPTY) {
            o->phase = PH_DONE;
        } else if (w == BUSY) {
            o->atomic_find = 1;                   /* a writer after all */
            o->phase = PH_TRY;
        } else if (w == o->kw) {
            o->found = 1;
            if (bt->out)
                memcpy(bt->out + (size_t)(o - bt->ops) * m->val_size,
                       read_of(bt, o) + BCL_HMC_VALUE, m->val_size);
            o->phase = PH_DONE;
        } else {
            advance(bt, o, PH_GET);
        }
        break;
    }
    default:
        break;
    }
}

/* Nothing goes before the keys' steps in a round. */
static bcl_status prelude(cbatch *bt, int *any)
{
    return BCL_OK;
}

BCL_HMB_DEFINE_RUN(run, cbatch, prelude, issue, complete)

/* Merge duplicate keys: insert keeps the last value (the earlier ops are
 * dropped, carried by it), accumulate sums the deltas into the first. */
static uint64_t key_hash(void *ctx, size_t i)
{
    return bcl_hash_u64(((cbatch *)ctx)->ops[i].kw, 0);
}

static int same_key(void *ctx, size_t j, size_t i)
{
    cbatch *bt = ctx;
    return bt->ops[j].kw == bt->ops[i].kw;
}

BCL_HMB_DEFINE_MERGE(merge_key, cbatch, BCL_HMC_INSERT)

static bcl_status merge_duplicates(cbatch *bt)
{
    return bcl_hmb_find_dups(bt->n, bt, key_hash, same_key, merge_key);
}

/* The keys handed to the scalar protocol: a refusal is the op's outcome. */
static bcl_status scalar_apply(const bcl_hashmap *m, const bcl_hm_key *k, const void *v,
                               int insert)
{
    return insert ? bcl_hmc_insert(m, k, v) : bcl_hmc_accumulate(m, k, v);
}

static void scalar_refused(void *ctx, size_t src, bcl_status st)
{
    cbatch *bt = ctx;
    if (st == BCL_ERR_FULL)
        bt->ops[src].full = 1;
    else
        bt->ops[src].overflow = 1;
}

static bcl_status run_scalar(cbatch *bt)
{
    return bcl_hmb_defer_replay(&bt->defer, bt->m, bt->kind == BCL_HMC_INSERT, scalar_apply,
                                scalar_refused, bt);
}

/* One chunk of n keys, all in the compact table. */
static bcl_status run_chunk(cbatch *bt, const unsigned char *keys, const unsigned char *vals,
                            size_t *n_full, size_t *n_over)
{
    const bcl_hashmap *m = bt->m;
    int first = bt->kind == BCL_HMC_FIND_ONLY ? PH_GET
              : bt->kind == BCL_HMC_FIND ? PH_TRY : PH_STRIPE;
    memset(bt->ops, 0, bt->n * sizeof *bt->ops);
    memset(bt->buf, 0, bt->n * bt->stride);
    for (size_t i = 0; i < bt->n; i++) {
        cop *o = &bt->ops[i];
        o->kw = bcl_hmc_word(keys + i * m->key_size, m->key_size);
        if (vals)
            memcpy(val_of(bt, o), vals + i * m->val_size, m->val_size);
        bcl_hm_probe_init(m, &o->pr, bcl_hm_hash(keys + i * m->key_size, m->key_size));
        o->into = i;
        o->home = o->pr.h;                /* the first bucket of the sequence */
        advance(bt, o, first);
    }
    bcl_status st = writes(bt) ? merge_duplicates(bt) : BCL_OK;
    if (st == BCL_OK)
        st = run(bt);
    if (st == BCL_OK)
        st = run_scalar(bt);
    for (size_t i = 0; st == BCL_OK && i < bt->n; i++) {
        cop *o = &bt->ops[i], *c = &bt->ops[o->into];
        if (bt->found)
            bt->found[i] = (unsigned char)o->found;
        if (n_full)
            *n_full += (size_t)o->full;
        *n_over += (size_t)o->overflow;
        if (bt->outcome)
            bt->outcome[i] = o->overflow ? BCL_HM_OVERFLOW
                           : c->full ? BCL_HM_NOROOM : c->overflow ? BCL_HM_OVERFLOW
                                                                   : BCL_HM_DONE;
    }
    return st;
}

bcl_status bcl_hmc_batch(const bcl_hashmap *m, int kind, const void *keys, const void *vals,
                         size_t k, void *out, unsigned char *found, size_t *n_full,
                         unsigned char *outcome, size_t *n_over)
{
    cbatch bt = { .m = m, .kind = kind };
    bt.vw = ALIGN8(m->val_size);
    bt.stride = bt.vw + m->bsize;
    const size_t chunk = bcl_hm_chunk_keys(!bcl_comm_direct());
    size_t c = k < chunk ? k : chunk;
    bcl_status st = bcl_round_init(&bt.round, chunk);
    if (st != BCL_OK)
        return st;
    bt.ops = malloc((c ? c : 1) * sizeof *bt.ops);
    bt.buf = malloc((c ? c : 1) * bt.stride);
    if (!bt.ops || !bt.buf)
        st = bcl_set_error(BCL_ERR_NOMEM, "no memory for a batch of %zu keys", c);
    for (size_t done = 0; st == BCL_OK && done < k; done += bt.n) {
        bt.n = k - done < chunk ? k - done : chunk;
        bt.out = out ? (unsigned char *)out + done * m->val_size : NULL;
        bt.found = found ? found + done : NULL;
        bt.outcome = outcome ? outcome + done : NULL;
        st = run_chunk(&bt, (const unsigned char *)keys + done * m->key_size,
                       vals ? (const unsigned char *)vals + done * m->val_size : NULL, n_full,
                       n_over);
    }
    bcl_round_free(&bt.round);
    BCL_FREE_ALL(bt.defer.rec, bt.ops, bt.buf);
    return st;
}
