/* bcl_hashmap_batch.c -- pipelined batches of fixed-size keys/values.
 *
 * Each key runs the hash map protocol (bcl_hashmap.h) as a small state
 * machine.  A round issues the next step of every unfinished key, completes
 * them all with one flush per touched rank, and advances each key by its
 * result: a batch costs the round trips of one key (three for a fresh
 * insert: reserve, write, publish) plus the few rounds collisions and
 * contention add.  Steps that depend on each other (write, then publish) are
 * always in different rounds, so the flush between them orders them.
 *
 * Messages.  On rma every step is an atomic on 8-byte words, and a round
 * sends them grouped by target rank and operation: ONE MPI_Get_accumulate
 * over an hindexed datatype per (rank, op) and round (bcl_round, in
 * comm/bcl_comm_batch.h).  MPICH's ch4:ucx runs every MPI_Fetch_and_op,
 * MPI_Compare_and_swap and small MPI_Get as its own message even when
 * pipelined (~0.15-0.3 us each); an indexed get_accumulate costs ~0.005 us a
 * word.  So:
 *  - reservation is a fetch-or of the writer's bit (BCL_HM_BUSY; see the
 *    header: on a READY bucket it is a short hold, dropped with -1), not a
 *    CAS;
 *  - key/value words are written with REPLACE and read with NO_OP (element-
 *    wise atomic: they never race with plain get/put, as MPI requires);
 *  - reader counts, publications, accumulate adds are fetch-adds.
 * Only the overwrite of a READY bucket that has readers (the lock must wait
 * for them) and accumulates into 4-byte values use per-key operations.
 * An indexed call must not name one word twice (MPICH does not apply the
 * repeats in order): a fetch-add / fetch-or on a word already used by the
 * same call this round is deferred to the next round.
 * On shm every step is done at once with CPU operations.
 *
 * Tombstones (bcl_hashmap.h, Deletion): finds pass them; a key of an
 * insert / accumulate that meets one, fails the placement check or loses
 * its bucket between lock and verify is copied out (to_scalar) and finished
 * with the scalar protocol once its window / chunk is done.
 *
 * Duplicate keys in a batch are merged first (insert: the last value wins;
 * accumulate: deltas are summed), so a batch never races with itself for a
 * key.  Work proceeds in chunks to bound memory and the number of
 * operations in flight: bcl_hashmap_many.c cuts the caller's keys into them.
 */
#include "containers/hashmap/bcl_hashmap_batch.h"

#include <stdlib.h>

/* Keys per chunk.  A round costs a fixed part per touched target (one
 * message per (target, op), one flush, one wait for that target's progress)
 * plus a part per key; with P targets a chunk gives each about chunk/P keys
 * per message.  So on rma the chunk grows with P (2048 keys per target, a
 * power of two from 4096 to 65536): a rank's messages per key stay flat as
 * ranks are added instead of growing with P (docs/hashmap_perf.md, scaling
 * model).  shm has no per-round cost: 4096.  PYBCL_BATCH_CHUNK (a power of
 * two, 64..1048576) overrides, for measurements. */
#define CHUNK_MIN 4096u
#define CHUNK_MAX 65536u
#define CHUNK_PER_TARGET 2048u

size_t bcl_hm_chunk_keys(int rma)
{
    const char *env = getenv("PYBCL_BATCH_CHUNK");
    if (env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (!*end && v >= 64 && v <= (1ul << 20) && !(v & (v - 1)))
            return v;
    }
    if (!rma)
        return CHUNK_MIN;
    size_t c = CHUNK_MIN;
    while (c < CHUNK_MAX && c < (size_t)CHUNK_PER_TARGET * (size_t)bcl_rt.nprocs)
        c *= 2;
    return c;
}

#define R (uint64_t)BCL_HM_READER
#define STATE(x) ((x) & BCL_HM_STATE)
#define BUSY(x) ((x) & BCL_HM_BUSY)
#define READERS(x) BCL_HM_READERS(x)
#define UNDO ((uint64_t)0 - 1u)          /* READY+BUSY (3) -> READY           */

/* ---- the state machine ------------------------------------------------------ */

/* Move to the next bucket of the key's probe sequence (phase `next`), or
 * finish: not found / full. */
void bcl_hmb_advance(batch *bt, op *o, int next)
{
    int more = bcl_hmb_probe_step(bt->m, &o->pr, &o->b);
    o->phase = more ? next : PH_DONE;
    o->full = !more && bt->kind != K_FIND && bt->kind != K_FIND_ONLY;
}

/* A fetch-add on the current bucket's status to issue next round. */
static void post_later(op *o, uint64_t v)
{
    o->pend_at = o->b;
    o->pend_val = v;
    o->pending = 1;
}

static enum kind kind_of(batch *bt, op *o) { return o->fell_back ? K_FIND : bt->kind; }

/* Finish this key with the scalar protocol after the batch (it holds
 * nothing once its posted release is issued).  Its key, value and index in
 * the caller's arrays (for its outcome) are copied out: the slot may be
 * refilled before then. */
static void to_scalar(batch *bt, op *o)
{
    o->scalar = 1;
    o->phase = PH_DONE;
    bcl_hmb_defer_add(&bt->defer, bt->m, key_of(bt, o), val_of(bt, o), o->src);
}

static bcl_status issue(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    bcl_gptr st = o->b;
    int issued = 1;
    bcl_status s = BCL_OK;
    size_t kw = ALIGN8(m->key_slot), vw = m->bsize - m->val_off;
    switch (o->phase) {
    case PH_RES:
    case PH_RESR:
        s = bcl_round_fetch(&bt->round, st, BCL_OP_OR, BCL_HM_BUSY, &o->res, &issued);
        break;
    case PH_KEY:
    case PH_KEYS:
        s = bcl_round_read(&bt->round, bcl_hm_at(st, 8), readbuf(bt, o), kw);
        break;
    case PH_LOCK: {
        o->cas_exp = META(o->res) | BCL_HM_READY;     /* no readers, no writer */
        o->cas_des = META(o->res) | BCL_HM_RESERVED;
        s = bcl_cas_nb(st, 8, &o->cas_exp, &o->cas_des, &o->res);
        if (s == BCL_OK)
            bcl_round_touch(&bt->round, st.rank);     /* flush this rank */
        break;
    }
    case PH_GETVAL:
        s = bcl_round_read(&bt->round, bcl_hm_at(st, m->val_off),
                           readbuf(bt, o) + m->val_off - 8, vw);
        break;
    case PH_PUT:
        s = bcl_round_write(&bt->round, bcl_hm_at(st, 8), entry(bt, o), m->bsize - 8);
        if (s == BCL_OK && o->fresh)      /* the placement check, same round */
            s = bcl_round_fetch(&bt->round, o->home, BCL_OP_NOOP, 0, &o->chk, &issued);
        break;
    case PH_VERIFY:
        s = bcl_round_read(&bt->round, bcl_hm_at(st, 8), readbuf(bt, o), kw);
        break;
    case PH_PUTVAL:
        s = bcl_round_write(&bt->round, bcl_hm_at(st, m->val_off), val_of(bt, o), vw);
        break;
    case PH_PUBLISH:
        s = bcl_round_fetch(&bt->round, st, BCL_OP_ADD, o->publish, NULL, &issued);
        break;
    case PH_ACQ:
        s = bcl_round_fetch(&bt->round, st, BCL_OP_ADD, R, &o->res, &issued);
        break;
    case PH_WAIT:
        s = bcl_round_fetch(&bt->round, st, BCL_OP_NOOP, 0, &o->res, &issued);
        break;
    case PH_READ:
        s = bcl_round_read(&bt->round, bcl_hm_at(st, 8), readbuf(bt, o), m->bsize - 8);
        break;
    case PH_ADD:
    case PH_UNDO: {
        bcl_gptr v = bcl_hm_at(st, m->val_off);
        uint64_t d = 0;
        memcpy(&d, val_of(bt, o), m->val_size);
        if (o->phase == PH_UNDO)
            d = (uint64_t)0 - d;
        o->res = 0;
        if (m->val_atomic == 8) {
            s = bcl_round_fetch(&bt->round, v, BCL_OP_ADD, d, &o->res, &issued);
        } else {                          /* 4-byte value: its own atomic */
            o->publish = d;               /* operand must live until flush */
            s = bcl_fetch_op_nb(v, m->val_atomic, BCL_OP_ADD, &o->publish, &o->res);
            if (s == BCL_OK)
                bcl_round_touch(&bt->round, st.rank);
        }
        break;
    }
    case PH_GET:
        s = bcl_round_read(&bt->round, st, readbuf(bt, o), m->bsize);
        break;
    default:
        return BCL_OK;
    }
    if (s == BCL_OK && !issued)
        o->waiting = -1;                  /* deferred: complete() skips it */
    return s;
}

int bcl_hmb_key_eq(batch *bt, op *o, const unsigned char *slot)
{
    return memcmp(slot, key_of(bt, o), bt->m->key_size) == 0;
}

/* The bucket's status seen with our reader count held: dispatch. */
static void on_status(batch *bt, op *o, uint64_t cur)
{
    if (BUSY(cur)) {
        o->phase = PH_WAIT;
        o->waiting = 1;
    } else if (STATE(cur) == BCL_HM_TOMB) {
        post_later(o, (uint64_t)0 - R);
        if (kind_of(bt, o) == K_FIND)
            bcl_hmb_advance(bt, o, PH_ACQ);                 /* a miss goes on */
        else
            to_scalar(bt, o);                           /* reuse it: scalar */
    } else if (STATE(cur) == BCL_HM_READY) {
        o->phase = kind_of(bt, o) == K_FIND ? PH_READ : PH_KEYS;
    } else if (kind_of(bt, o) == K_FIND) {          /* FREE: not found */
        post_later(o, (uint64_t)0 - R);
        o->phase = PH_DONE;
    } else {
        o->phase = PH_RESR;
    }
}

/* The value step of an insert / locked accumulate once the bucket is ours. */
static void value_step(batch *bt, op *o)
{
    o->phase = bt->kind == K_ACC_LOCKED || o->slow ? PH_GETVAL : PH_PUTVAL;
}

/* Restart an accumulate from its home bucket with the locked protocol. */
void bcl_hmb_go_slow(batch *bt, op *o)
{
    uint64_t idx = 0;
    o->slow = 1;
    o->locked = 0;
    o->pr.i = o->pr.visited = 0;                  /* pr.h: the home bucket */
    bcl_hm_probe_next(bt->m, &o->pr, &idx);
    o->b = bcl_hm_bucket(bt->m, idx);
    o->phase = PH_RES;
}

/* After PH_RES (the writer's bit set): a FREE bucket is ours; a READY one
 * we hold (state 3) when it has no readers, else we drop the hold. */
static void after_res(batch *bt, op *o)
{
    if (STATE(o->res) == BCL_HM_FREE) {           /* reserved: ours */
        o->phase = PH_PUT;
        o->publish = BCL_HM_READY - BCL_HM_RESERVED;
        o->fresh = 1;
        o->undo = (uint64_t)0 - BCL_HM_RESERVED;
    } else if (BUSY(o->res)) {                    /* someone else's */
        o->waiting = 1;
    } else if (STATE(o->res) == BCL_HM_TOMB) {    /* we hold TOMB|BUSY */
        post_later(o, UNDO);
        to_scalar(bt, o);
    } else {                                      /* READY: we hold 3 */
        o->locked = READERS(o->res) == 0;
        if (!o->locked)
            post_later(o, UNDO);
        o->phase = PH_KEY;
    }
}

/* After PH_KEY: the READY bucket holds our key (lock it, or it is locked
 * already), or we probe on. */
static void after_key(batch *bt, op *o)
{
    unsigned char *rb = readbuf(bt, o);
    if (bcl_hmb_key_eq(bt, o, rb)) {
        if (o->locked) {
            o->publish = UNDO;                    /* 3 -> READY */
            value_step(bt, o);
        } else {
            o->phase = PH_LOCK;
        }
    } else {
        if (o->locked)
            post_later(o, UNDO);
        o->locked = 0;
        bcl_hmb_advance(bt, o, PH_RES);
    }
}

/* After PH_LOCK: the CAS READY -> RESERVED of a bucket with our key. */
static void after_lock(batch *bt, op *o)
{
    if (o->res == o->cas_exp) {
        o->phase = PH_VERIFY;         /* erased and reused meanwhile? */
    } else if (!BUSY(o->res) && STATE(o->res) != BCL_HM_READY) {
        to_scalar(bt, o);                 /* erased meanwhile: nothing held */
    } else {
        o->waiting = 1;
    }
}

/* After PH_VERIFY: the key re-read under the lock (erase + reuse meanwhile?). */
static void after_verify(batch *bt, op *o)
{
    unsigned char *rb = readbuf(bt, o);
    if (bcl_hmb_key_eq(bt, o, rb)) {
        o->publish = BCL_HM_READY - BCL_HM_RESERVED;
        value_step(bt, o);
    } else {
        post_later(o, BCL_HM_READY - BCL_HM_RESERVED);   /* unlock */
        to_scalar(bt, o);
    }
}

/* After PH_GETVAL: the stored value plus our delta, written back under the
 * lock (an overflowing sum leaves it unchanged). */
static void after_getval(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    unsigned char *v = readbuf(bt, o) + m->val_off - 8;
    if (bcl_hm_num_add(m, v, val_of(bt, o))) {
        o->overflow = 1;              /* unchanged: just unlock */
        o->phase = PH_PUBLISH;
    } else {
        memcpy(val_of(bt, o), v, m->val_size);
        o->phase = PH_PUTVAL;
    }
}

/* After PH_PUT: key and value written; a fresh bucket must pass the
 * placement check (no tombstone placement raced) before it is published. */
static void after_put(batch *bt, op *o)
{
    if (o->fresh && (META(o->chk) != o->e0 || (o->chk & BCL_HM_PLOCK))) {
        post_later(o, o->undo);       /* a tombstone placement raced */
        to_scalar(bt, o);
        return;
    }
    o->phase = PH_PUBLISH;
}

/* After PH_READ: find: key and value read under our reader count. */
static void after_read(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    unsigned char *rb = readbuf(bt, o);
    post_later(o, (uint64_t)0 - R);
    if (bcl_hmb_key_eq(bt, o, rb)) {
        o->found = 1;
        memcpy(bt->out + o->src * m->val_size, rb + m->val_off - 8, m->val_size);
        o->phase = PH_DONE;
    } else {
        bcl_hmb_advance(bt, o, PH_ACQ);
    }
}

/* After PH_RESR: accumulate: the writer's bit set with our reader count held. */
static void after_resr(batch *bt, op *o)
{
    if (STATE(o->res) == BCL_HM_FREE) {
        o->phase = PH_PUT;       /* publish: READY and drop our count */
        o->publish = (uint64_t)(BCL_HM_READY - BCL_HM_RESERVED) - R;
        o->fresh = 1;
        o->undo = (uint64_t)0 - BCL_HM_RESERVED - R;
    } else if (BUSY(o->res)) {
        o->phase = PH_WAIT;
        o->waiting = 1;
    } else {                     /* READY meanwhile: drop our hold, read */
        post_later(o, UNDO);
        o->phase = PH_KEYS;
    }
}

/* After PH_KEYS: accumulate: the key read under our reader count. */
static void after_keys(batch *bt, op *o)
{
    unsigned char *rb = readbuf(bt, o);
    if (bcl_hmb_key_eq(bt, o, rb)) {
        o->phase = PH_ADD;
    } else {
        post_later(o, (uint64_t)0 - R);
        bcl_hmb_advance(bt, o, PH_ACQ);
    }
}

/* After PH_ADD: the fetch-add is exact unless the old value was near a
 * limit; then it is undone and redone under the lock. */
static void after_add(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    if (bcl_hm_fast_old(m, o->res)) {
        post_later(o, (uint64_t)0 - R);
        o->phase = PH_DONE;
    } else {
        o->phase = PH_UNDO;           /* still holding our reader count */
    }
}

/* After PH_GET: find-only promise: the whole bucket read with one get. */
static void after_get(batch *bt, op *o)
{
    const bcl_hashmap *m = bt->m;
    unsigned char *rb = readbuf(bt, o);
    uint64_t s;
    memcpy(&s, rb, 8);
    if (STATE(s) == BCL_HM_FREE && !BUSY(s)) {
        o->phase = PH_DONE;
    } else if (STATE(s) == BCL_HM_TOMB && !BUSY(s)) {
        bcl_hmb_advance(bt, o, PH_GET);
    } else if (BUSY(s)) {
        /* A writer after all: redo this key with the atomic protocol. */
        uint64_t idx = 0;
        o->pr.i = o->pr.visited = 0;          /* pr.h: the home bucket */
        bcl_hm_probe_next(m, &o->pr, &idx);
        o->b = bcl_hm_bucket(m, idx);
        o->fell_back = 1;
        o->phase = PH_ACQ;
    } else if (bcl_hmb_key_eq(bt, o, rb + 8)) {
        o->found = 1;
        memcpy(bt->out + o->src * m->val_size, rb + m->val_off, m->val_size);
        o->phase = PH_DONE;
    } else {
        bcl_hmb_advance(bt, o, PH_GET);
    }
}

/* A step's result is back: advance the key's state machine. */
static void complete(batch *bt, op *o)
{
    if (!o->have_e0 && (o->phase == PH_RES || o->phase == PH_ACQ)) {
        o->have_e0 = 1;                   /* the first look at the home */
        o->e0 = META(o->res);
    }
    switch (o->phase) {
    case PH_RES: after_res(bt, o); break;
    case PH_KEY: after_key(bt, o); break;
    case PH_LOCK: after_lock(bt, o); break;
    case PH_VERIFY: after_verify(bt, o); break;
    case PH_GETVAL: after_getval(bt, o); break;
    case PH_PUT: after_put(bt, o); break;
    case PH_READ: after_read(bt, o); break;
    case PH_RESR: after_resr(bt, o); break;
    case PH_KEYS: after_keys(bt, o); break;
    case PH_ADD: after_add(bt, o); break;
    case PH_GET: after_get(bt, o); break;
    case PH_PUTVAL: o->phase = PH_PUBLISH; break;
    case PH_PUBLISH: o->phase = PH_DONE; break;
    case PH_ACQ: on_status(bt, o, o->res + R); break;
    case PH_WAIT: on_status(bt, o, o->res); break;
    case PH_UNDO:
        post_later(o, (uint64_t)0 - R);
        bcl_hmb_go_slow(bt, o);
        break;
    default: break;
    }
}

/* ---- the round loop ---------------------------------------------------------- */

static void refill(batch *bt);

/* What a round issues before the keys' steps: slots refilled, then the
 * posted releases / undos (they never wait, others wait on them). */
static bcl_status prelude(batch *bt, int *any)
{
    if (bt->refill)
        refill(bt);
    for (size_t i = 0; i < bt->n; i++) {
        op *o = &bt->ops[i];
        int issued;
        if (!o->pending)
            continue;
        *any = 1;
        bcl_status st = bcl_round_fetch(&bt->round, o->pend_at, BCL_OP_ADD, o->pend_val,
                                        NULL, &issued);
        if (st != BCL_OK)
            return st;
        o->pending = !issued;
    }
    return BCL_OK;
}

/* A key's next step, unless its posted release is still unsent: then the
 * step waits, or its completion could post again over it (a lost -R). */
static bcl_status issue_unless_pending(batch *bt, op *o)
{
    if (!o->pending)
        return issue(bt, o);
    o->waiting = -1;
    return BCL_OK;
}

BCL_HMB_DEFINE_RUN(run, batch, prelude, issue_unless_pending, complete)

bcl_status bcl_hmb_run(batch *bt)
{
    return run(bt);
}

int bcl_hmb_first_phase(enum kind k)
{
    switch (k) {
    case K_INSERT: case K_ACC_LOCKED: return PH_RES;
    case K_FIND_ONLY: return PH_GET;
    default: return PH_ACQ;
    }
}

/* ---- refilling slots --------------------------------------------------------
 * Lock-step chunks pay, per chunk, the rounds of their slowest key (a long
 * probe chain, a bucket another rank holds): ~11 rounds a chunk for inserts
 * whose median key needs 3.  For inserts and finds a slot whose key is done
 * takes the window's next key instead, so a window costs about
 * keys x mean-rounds / slots rounds plus ONE tail.  A key's own steps stay
 * in order (each slot is one key's state machine); keys of different slots
 * never depend on each other.  Inserts of one key twice in a window are
 * merged beforehand (the later value wins: skip[]), so two slots never
 * carry the same key of an insert. */
static void start_key(batch *bt, op *o, size_t i)
{
    const bcl_hashmap *m = bt->m;
    memset(o, 0, sizeof *o);
    memcpy(key_of(bt, o), bt->wkeys + i * m->key_size, m->key_size);
    if (bt->wvals)
        memcpy(val_of(bt, o), bt->wvals + i * bt->vstride, m->val_size);
    bcl_hm_probe_init(m, &o->pr, bcl_hm_hash(key_of(bt, o), m->key_size));
    o->src = i;
    bcl_hmb_advance(bt, o, bcl_hmb_first_phase(bt->kind));
    o->home = o->b;
}

static void refill(batch *bt)
{
    for (size_t s = 0; s < bt->n; s++) {
        op *o = &bt->ops[s];
        if (o->phase != PH_DONE)
            continue;
        if (!o->recorded) {
            if (bt->found)
                bt->found[o->src] = (unsigned char)o->found;
            if (bt->n_full)
                *bt->n_full += (size_t)o->full;
            if (bt->outcome)
                bt->outcome[o->src] = o->full ? BCL_HM_NOROOM : BCL_HM_DONE;
            o->recorded = 1;
        }
        if (o->pending)              /* its posted release still to send */
            continue;
        while (bt->next < bt->wn && bt->skip && bt->skip[bt->next])
            bt->next++;
        if (bt->next == bt->wn)
            continue;
        start_key(bt, o, bt->next++);
    }
}

