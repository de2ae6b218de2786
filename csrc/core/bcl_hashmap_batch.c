/* bcl_hashmap_batch.c -- pipelined batches of fixed-size keys/values.
 *
 * Each key runs the same protocol as the scalar code in bcl_hashmap.c, as a
 * small state machine.  A round issues the next step of every unfinished
 * key with non-blocking operations, flushes once, and advances each key by
 * its result: a batch costs the round trips of one key (three for a fresh
 * insert: CAS, put, publish) plus the few rounds collisions and contention
 * add.  Steps that depend on each other (put, then publish) are always in
 * different rounds, so the flush between them orders them.
 *
 * Duplicate keys in a batch are merged first (insert: the last value wins;
 * accumulate: deltas are summed), so a batch never races with itself for a
 * key.  Work proceeds in chunks of CHUNK keys to bound memory and the
 * number of operations in flight.
 */
#include "bcl_hashmap.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 4096

enum kind { K_INSERT, K_FIND, K_FIND_ONLY, K_ACC_SHARED, K_ACC_LOCKED };

enum phase {
    PH_DONE, PH_CAS, PH_KEY, PH_LOCK, PH_GETVAL, PH_PUT, PH_PUTVAL, PH_PUBLISH,
    PH_ACQ, PH_WAIT, PH_READ, PH_CASR, PH_KEYS, PH_ADD, PH_REL, PH_GET
};

typedef struct op {
    bcl_hm_probe pr;
    bcl_gptr b;               /* current bucket                             */
    bcl_gptr rel;             /* bucket whose reader count we still hold    */
    int phase, rel_pending, full, found, waiting;
    uint64_t cur;             /* expected / last seen status word           */
    uint64_t desired, res;    /* CAS / fetch-op operand and result          */
    uint64_t rel_op, rel_res; /* the release's operand and result           */
    uint64_t publish;         /* added to the status to publish             */
    size_t src;               /* index in the caller's arrays               */
} op;

typedef struct batch {
    const bcl_hashmap *m;
    enum kind kind;
    op *ops;
    size_t n;                 /* ops in this chunk                          */
    unsigned char *buf;       /* per op: entry (key+value), then read area  */
    size_t stride;
    unsigned char *out;       /* find: values                               */
    unsigned char *found;
    int target;               /* the one rank touched this round, or -1/-2  */
    int waiting;              /* some key only polled this round            */
} batch;

#define R (uint64_t)BCL_HM_READER
#define STATE(x) ((x) & BCL_HM_STATE)

static unsigned char *entry(batch *bt, op *o) { return bt->buf + (size_t)(o - bt->ops) * bt->stride; }
static unsigned char *readbuf(batch *bt, op *o) { return entry(bt, o) + bt->m->bsize; }
static unsigned char *key_of(batch *bt, op *o) { return entry(bt, o); }
static unsigned char *val_of(batch *bt, op *o) { return entry(bt, o) + bt->m->val_off - 8; }

static void touch(batch *bt, int rank)
{
    if (bt->target == -1)
        bt->target = rank;
    else if (bt->target != rank)
        bt->target = -2;
}

/* Move to the next bucket of the key's probe sequence (phase `next`), or
 * finish: not found / full. */
static void advance(batch *bt, op *o, int next)
{
    uint64_t idx;
    if (bcl_hm_probe_next(bt->m, &o->pr, &idx)) {
        o->b = bcl_hm_bucket(bt->m, idx);
        o->cur = 0;
        o->phase = next;
        return;
    }
    o->phase = PH_DONE;
    o->full = bt->kind != K_FIND && bt->kind != K_FIND_ONLY;
}

static void hold_release(op *o)
{
    o->rel = o->b;
    o->rel_pending = 1;
}

/* ---- issuing one step ----------------------------------------------------- */

static bcl_status issue(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    bcl_gptr st = o->b;
    static const uint64_t ready = BCL_HM_READY, reserved = BCL_HM_RESERVED;
    touch(bt, o->b.rank);
    switch (o->phase) {
    case PH_CAS:
    case PH_CASR:
        o->desired = o->cur | BCL_HM_RESERVED;
        return bcl_cas_nb(st, 8, &o->cur, &o->desired, &o->res);
    case PH_KEY:
    case PH_KEYS:
        return bcl_get_nb(readbuf(bt, o), bcl_hm_at(st, 8), m->key_slot);
    case PH_LOCK:
        return bcl_cas_nb(st, 8, &ready, &reserved, &o->res);
    case PH_GETVAL:
        return bcl_get_nb(readbuf(bt, o) + m->val_off - 8, bcl_hm_at(st, m->val_off),
                          m->val_slot);
    case PH_PUT:
        return bcl_put_nb(bcl_hm_at(st, 8), entry(bt, o), m->bsize - 8);
    case PH_PUTVAL:
        return bcl_put_nb(bcl_hm_at(st, m->val_off), val_of(bt, o), m->val_slot);
    case PH_PUBLISH:
        return bcl_fetch_op_nb(st, 8, BCL_OP_ADD, &o->publish, &o->res);
    case PH_ACQ:
        o->desired = R;
        return bcl_fetch_op_nb(st, 8, BCL_OP_ADD, &o->desired, &o->res);
    case PH_WAIT:
        o->desired = 0;
        return bcl_fetch_op_nb(st, 8, BCL_OP_NOOP, &o->desired, &o->res);
    case PH_READ:
        if (!m->val_atomic)
            return bcl_get_nb(readbuf(bt, o), bcl_hm_at(st, 8), m->bsize - 8);
        {
            bcl_status s = bcl_get_nb(readbuf(bt, o), bcl_hm_at(st, 8), m->key_slot);
            o->desired = 0;
            return s != BCL_OK ? s
                               : bcl_fetch_op_nb(bcl_hm_at(st, m->val_off), m->val_atomic,
                                                 BCL_OP_NOOP, &o->desired,
                                                 readbuf(bt, o) + m->val_off - 8);
        }
    case PH_ADD:
        memcpy(&o->desired, val_of(bt, o), m->val_size);
        return bcl_fetch_op_nb(bcl_hm_at(st, m->val_off), m->val_atomic, BCL_OP_ADD,
                               &o->desired, &o->res);
    case PH_REL:
        o->desired = (uint64_t)0 - R;
        return bcl_fetch_op_nb(st, 8, BCL_OP_ADD, &o->desired, &o->res);
    case PH_GET:
        return bcl_get_nb(readbuf(bt, o), st, m->bsize);
    default:
        return BCL_OK;
    }
}

static bcl_status issue_release(batch *bt, op *o)
{
    o->rel_op = (uint64_t)0 - R;
    o->rel_pending = 0;
    touch(bt, o->rel.rank);
    return bcl_fetch_op_nb(o->rel, 8, BCL_OP_ADD, &o->rel_op, &o->rel_res);
}

/* ---- completing one step --------------------------------------------------- */

static int key_eq(batch *bt, op *o, const unsigned char *slot)
{
    return memcmp(slot, key_of(bt, o), bt->m->key_size) == 0;
}

/* The bucket's status after an acquire/wait: dispatch on its state. */
static void on_status(batch *bt, op *o)
{
    switch (STATE(o->cur)) {
    case BCL_HM_READY:
        o->phase = bt->kind == K_FIND ? PH_READ : PH_KEYS;
        break;
    case BCL_HM_RESERVED:
        o->phase = PH_WAIT;
        o->waiting = 1;
        break;
    default:                                  /* FREE */
        if (bt->kind == K_FIND) {
            hold_release(o);
            o->phase = PH_DONE;
        } else {
            o->phase = PH_CASR;
        }
    }
}

static void complete(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    unsigned char *rb = readbuf(bt, o);
    switch (o->phase) {
    case PH_CAS:
        if (o->res == o->cur) {
            o->phase = PH_PUT;
        } else if (STATE(o->res) == BCL_HM_READY) {
            o->phase = PH_KEY;
        } else {                                /* FREE with readers, or RESERVED */
            o->waiting = STATE(o->res) == BCL_HM_RESERVED;
            o->cur = o->res & ~(uint64_t)BCL_HM_STATE;
        }
        break;
    case PH_KEY:
        if (key_eq(bt, o, rb))
            o->phase = PH_LOCK;
        else
            advance(bt, o, PH_CAS);
        break;
    case PH_LOCK:
        if (o->res == BCL_HM_READY)
            o->phase = bt->kind == K_ACC_LOCKED ? PH_GETVAL : PH_PUTVAL;
        else
            o->waiting = 1;
        break;
    case PH_GETVAL: {
        /* The stored value plus our delta, written back under the lock. */
        unsigned char *v = rb + m->val_off - 8;
        bcl_hm_num_add(m, v, val_of(bt, o));
        memcpy(val_of(bt, o), v, m->val_size);
        o->phase = PH_PUTVAL;
        break;
    }
    case PH_PUT:
    case PH_PUTVAL:
        o->phase = PH_PUBLISH;
        break;
    case PH_PUBLISH:
    case PH_REL:
        o->phase = PH_DONE;
        break;
    case PH_ACQ:
        o->cur = o->res + R;
        on_status(bt, o);
        break;
    case PH_WAIT:
        o->cur = o->res;
        on_status(bt, o);
        break;
    case PH_READ:
        hold_release(o);
        if (key_eq(bt, o, rb)) {
            o->found = 1;
            memcpy(bt->out + o->src * m->val_size, rb + m->val_off - 8, m->val_size);
            o->phase = PH_DONE;
        } else {
            advance(bt, o, PH_ACQ);
        }
        break;
    case PH_CASR:
        if (o->res == o->cur) {
            o->phase = PH_PUT;       /* publish: READY and drop our count */
            o->publish = (uint64_t)(BCL_HM_READY - BCL_HM_RESERVED) - R;
        } else {
            o->cur = o->res;
            on_status(bt, o);
        }
        break;
    case PH_KEYS:
        if (key_eq(bt, o, rb)) {
            o->phase = PH_ADD;
        } else {
            hold_release(o);
            advance(bt, o, PH_ACQ);
        }
        break;
    case PH_ADD:
        o->phase = PH_REL;
        break;
    case PH_GET: {
        uint64_t s;
        memcpy(&s, rb, 8);
        if (STATE(s) == BCL_HM_FREE) {
            o->phase = PH_DONE;
        } else if (STATE(s) == BCL_HM_RESERVED) {
            /* A writer after all: redo this key with the atomic protocol
             * (complete_op runs its later steps as K_FIND). */
            uint64_t idx = 0;
            o->pr.i = o->pr.visited = 0;          /* pr.h: the home bucket */
            bcl_hm_probe_next(m, &o->pr, &idx);
            o->b = bcl_hm_bucket(m, idx);
            o->phase = PH_ACQ;
        } else if (key_eq(bt, o, rb + 8)) {
            o->found = 1;
            memcpy(bt->out + o->src * m->val_size, rb + m->val_off, m->val_size);
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

/* Find-only ops that fell back to the atomic protocol complete as K_FIND. */
static void complete_op(batch *bt, op *o, int fell_back)
{
    enum kind k = bt->kind;
    if (fell_back)
        bt->kind = K_FIND;
    complete(bt, o);
    bt->kind = k;
}

/* ---- the round loop ---------------------------------------------------------- */

static bcl_status run(batch *bt)
{
    unsigned spins = 0;
    for (;;) {
        bt->target = -1;
        bt->waiting = 0;
        size_t active = 0;
        for (size_t i = 0; i < bt->n; i++) {
            op *o = &bt->ops[i];
            bcl_status st = BCL_OK;
            if (o->rel_pending)
                st = issue_release(bt, o);
            if (st == BCL_OK && o->phase != PH_DONE) {
                active++;
                st = issue(bt, o);
            }
            if (st != BCL_OK)
                return st;
        }
        if (bt->target == -1)
            return BCL_OK;
        bcl_status st = bt->target >= 0 ? bcl_flush_rank(bt->target) : bcl_flush();
        if (st != BCL_OK)
            return st;
        for (size_t i = 0; i < bt->n; i++) {
            op *o = &bt->ops[i];
            if (o->phase == PH_DONE)
                continue;
            o->waiting = 0;
            int fell_back = bt->kind == K_FIND_ONLY && o->phase != PH_GET;
            complete_op(bt, o, fell_back);
            bt->waiting |= o->waiting;
        }
        if (bt->waiting)
            bcl_relax(&spins);
        (void)active;
    }
}

/* ---- set-up: chunks, duplicate merging -------------------------------------- */

/* Merge duplicate keys of ops[0..n): insert keeps the last value,
 * accumulate sums the deltas into the first occurrence.  Dropped ops are
 * marked PH_DONE with src = SIZE_MAX. */
static bcl_status merge_duplicates(batch *bt, const uint64_t *hash)
{
    size_t cap = 16;
    while (cap < 2 * bt->n)
        cap <<= 1;
    size_t *tab = malloc(cap * sizeof *tab);
    if (!tab)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to merge a batch's duplicates");
    memset(tab, 0xff, cap * sizeof *tab);
    for (size_t i = 0; i < bt->n; i++) {
        size_t j = (size_t)(hash[i] >> 7) & (cap - 1);
        for (; tab[j] != SIZE_MAX; j = (j + 1) & (cap - 1)) {
            op *p = &bt->ops[tab[j]];
            if (hash[tab[j]] != hash[i] || !key_eq(bt, p, key_of(bt, &bt->ops[i])))
                continue;
            if (bt->kind == K_INSERT) {
                p->phase = PH_DONE;           /* the later value wins */
                tab[j] = i;
            } else {
                bcl_hm_num_add(bt->m, val_of(bt, p), val_of(bt, &bt->ops[i]));
                bt->ops[i].phase = PH_DONE;
            }
            break;
        }
        if (tab[j] == SIZE_MAX)
            tab[j] = i;
    }
    free(tab);
    return BCL_OK;
}

static int first_phase(enum kind k)
{
    switch (k) {
    case K_INSERT: case K_ACC_LOCKED: return PH_CAS;
    case K_FIND_ONLY: return PH_GET;
    default: return PH_ACQ;
    }
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
        o->src = i;
        o->publish = BCL_HM_READY - BCL_HM_RESERVED;
        advance(bt, o, first_phase(bt->kind));
    }
    bcl_status st = BCL_OK;
    if (bt->kind == K_INSERT || bt->kind == K_ACC_SHARED || bt->kind == K_ACC_LOCKED)
        st = merge_duplicates(bt, hash);
    free(hash);
    if (st == BCL_OK)
        st = run(bt);
    for (size_t i = 0; st == BCL_OK && i < bt->n; i++) {
        if (bt->found)
            bt->found[i] = (unsigned char)bt->ops[i].found;
        if (n_full)
            *n_full += (size_t)bt->ops[i].full;
    }
    return st;
}

static bcl_status run_all(const bcl_hashmap *m, enum kind kind, const void *keys,
                          const void *vals, size_t vstride, size_t k, void *out,
                          unsigned char *found, size_t *n_full)
{
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "batches need fixed-size key and value types");
    if (n_full)
        *n_full = 0;
    batch bt = { .m = m, .kind = kind, .stride = 2 * m->bsize };
    size_t c = k < CHUNK ? k : CHUNK;
    bt.ops = malloc((c ? c : 1) * sizeof *bt.ops);
    bt.buf = calloc(c ? c : 1, bt.stride);
    bcl_status st = BCL_OK;
    if (!bt.ops || !bt.buf)
        st = bcl_set_error(BCL_ERR_NOMEM, "no memory for a batch of %zu keys", c);
    for (size_t done = 0; st == BCL_OK && done < k; done += bt.n) {
        bt.n = k - done < CHUNK ? k - done : CHUNK;
        bt.out = out ? (unsigned char *)out + done * m->val_size : NULL;
        bt.found = found ? found + done : NULL;
        st = run_chunk(&bt, (const unsigned char *)keys + done * m->key_size,
                       vals ? (const unsigned char *)vals + done * vstride : NULL, vstride,
                       n_full);
    }
    free(bt.ops);
    free(bt.buf);
    return st;
}

bcl_status bcl_hm_insert_many(const bcl_hashmap *m, const void *keys, const void *vals,
                              size_t k, size_t *n_full)
{
    return run_all(m, K_INSERT, keys, vals, m->val_size, k, NULL, NULL, n_full);
}

bcl_status bcl_hm_find_many(const bcl_hashmap *m, const void *keys, size_t k, void *vals,
                            unsigned char *found, int promise)
{
    enum kind kind = promise == BCL_HM_P_FIND ? K_FIND_ONLY : K_FIND;
    return run_all(m, kind, keys, NULL, 0, k, vals, found, NULL);
}

bcl_status bcl_hm_accumulate_many(const bcl_hashmap *m, const void *keys,
                                  const void *deltas, size_t k, size_t *n_full)
{
    if (m->num == BCL_HM_NUM_NONE || m->num == BCL_HM_NUM_BOOL)
        return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
    enum kind kind = m->val_atomic ? K_ACC_SHARED : K_ACC_LOCKED;
    return run_all(m, kind, keys, deltas, m->val_size, k, NULL, NULL, n_full);
}
