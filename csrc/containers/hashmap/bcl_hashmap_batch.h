/*
 * bcl_hashmap_batch.h -- the batch engine's state, shared by its two files
 * (internal to containers/hashmap/, like bcl_hashmap_internal.h):
 *
 *   bcl_hashmap_batch.c  each key's protocol as a state machine, the round
 *                        loop, slots refilled from a window of keys
 *   bcl_hashmap_many.c   insert_many / accumulate_many / the protocol's
 *                        find_many: chunks and windows, duplicate keys
 *                        merged, keys finished by the scalar protocol
 *
 * What it shares with the compact layout's engine (the round loop, the
 * deferred keys, duplicate merging) is in bcl_hashmap_engine.h.
 */
#ifndef BCL_HASHMAP_BATCH_H
#define BCL_HASHMAP_BATCH_H

#include "comm/bcl_comm_batch.h"
#include "containers/hashmap/bcl_hashmap_engine.h"

enum kind { K_INSERT, K_FIND, K_FIND_ONLY, K_ACC_SHARED, K_ACC_LOCKED };

enum phase {
    PH_DONE,
    PH_RES,      /* fetch-or the writer's bit (insert, locked accumulate)      */
    PH_KEY,      /* read the key of a READY bucket                             */
    PH_LOCK,     /* CAS READY -> RESERVED (a READY bucket with readers)        */
    PH_GETVAL,   /* read the value under the lock (locked accumulate)          */
    PH_PUT,      /* write key and value of a bucket we reserved                */
    PH_PUTVAL,   /* write the value under the lock                             */
    PH_PUBLISH,  /* add o->publish to the status                               */
    PH_ACQ,      /* add a reader count                                         */
    PH_WAIT,     /* atomic load of the status (a writer holds the bucket)      */
    PH_READ,     /* read key and value (find, reader count held)               */
    PH_RESR,     /* fetch-or the writer's bit, reader count held (accumulate)  */
    PH_KEYS,     /* read the key, reader count held (accumulate)               */
    PH_ADD,      /* atomic add to the value, reader count held                 */
    PH_GET,      /* read the whole bucket (find-only promise)                  */
    PH_VERIFY,   /* read the key again under the lock (erase + reuse: ABA)     */
    PH_UNDO      /* take back an add that found a value near a limit           */
};

typedef struct op {
    bcl_hm_probe pr;
    bcl_gptr b;               /* current bucket                             */
    bcl_gptr pend_at;         /* status word of a posted fetch-add to issue */
    uint64_t pend_val;        /*   its operand (release -R, or undo -1)     */
    int phase, pending, full, found, waiting, locked, fell_back;
    int overflow;             /* accumulate not applied: the sum overflows  */
    int slow;                 /* accumulate redone under the lock           */
    size_t into;              /* merged duplicate: the op that carries it   */
    int recorded;             /* refill: result handed to the caller        */
    uint64_t res;             /* result of the step's fetch-op              */
    uint64_t publish;         /* added to the status to publish             */
    size_t src;               /* index in the caller's arrays               */
    /* Deletion (bcl_hashmap.h): a FREE bucket we reserved is published only
     * if the home's placement word still reads e0 (no tombstone placement
     * of a key homed there started or ended); keys that meet a tombstone or
     * fail that check finish with the scalar protocol after the batch. */
    bcl_gptr home;            /* status word of the key's home bucket       */
    uint64_t e0, chk;         /* home's meta bits: first seen, re-read      */
    uint64_t undo;            /* gives back a reserved FREE bucket          */
    uint64_t cas_exp, cas_des;/* PH_LOCK's operands (live until the flush)  */
    int have_e0, fresh, scalar;
} op;

typedef struct batch {
    const bcl_hashmap *m;
    enum kind kind;
    bcl_round round;          /* this round's steps (bcl_comm_batch.h)      */
    op *ops;
    size_t n;                 /* ops in this chunk                          */
    unsigned char *buf;       /* per op: entry (key+value), then read area  */
    size_t stride;
    unsigned char *out;       /* find: values                               */
    unsigned char *found;
    unsigned char *outcome;   /* per key: BCL_HM_DONE / NOROOM / OVERFLOW   */
    size_t n_over;            /* accumulates not applied (overflow)         */
    const uint64_t *hash;     /* a chunk's key hashes, while it is set up   */
    /* refill (insert, finds): the window of the caller's keys the slots
     * draw from; skip[i]: key i is superseded by a later duplicate */
    int refill;
    const unsigned char *wkeys, *wvals;
    size_t vstride, wn, next;
    unsigned char *skip;
    size_t *n_full;
    bcl_hmb_defer defer;      /* keys handed to the scalar protocol         */
} batch;

/* Per op, in batch.buf: its entry (key, then value), then its read area. */
static inline unsigned char *entry(batch *bt, op *o) { return bt->buf + (size_t)(o - bt->ops) * bt->stride; }
static inline unsigned char *readbuf(batch *bt, op *o) { return entry(bt, o) + bt->m->bsize; }
static inline unsigned char *key_of(batch *bt, op *o) { return entry(bt, o); }
static inline unsigned char *val_of(batch *bt, op *o) { return entry(bt, o) + bt->m->val_off - 8; }

/* The engine (bcl_hashmap_batch.c). */
/* Move to the next bucket of the key's probe sequence (phase `next`), or
 * finish: not found / full. */
void bcl_hmb_advance(batch *bt, op *o, int next);
/* Redo an accumulate under the bucket's lock (a delta the fetch-add cannot
 * take, a sum near its type's limit). */
void bcl_hmb_go_slow(batch *bt, op *o);
/* The key of op o equals the key bytes at `slot`. */
int bcl_hmb_key_eq(batch *bt, op *o, const unsigned char *slot);
/* The phase a key of kind k starts in. */
int bcl_hmb_first_phase(enum kind k);
/* Rounds until every op of bt (refilled from its window when bt->refill)
 * is done. */
bcl_status bcl_hmb_run(batch *bt);

#endif /* BCL_HASHMAP_BATCH_H */
