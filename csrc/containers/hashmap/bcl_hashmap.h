/*
 * bcl_hashmap.h -- BCL's distributed hash table (paper 5.1, Tables 2-3).
 *
 * Layout.  One logical array of `n` buckets, distributed block-wise: rank r
 * owns buckets [r*block, (r+1)*block) in one allocation of its segment; the
 * block offsets are exchanged once, collectively.  A bucket is
 *
 *     +0       uint64 status   (only ever touched by atomics, see below)
 *     +8       key slot        key_size bytes (fixed key) or a bcl_objref
 *     +val_off value slot      val_size bytes (fixed value) or a bcl_objref
 *
 * with val_off and the bucket size rounded to 8 bytes, so a 4/8-byte integer
 * value can be the target of atomics.
 *
 * That is the classic layout.  A map of fixed-size keys of at most 8 bytes
 * and a fixed-size value uses the compact one (bcl_hashmap_compact.h): a
 * bucket is an 8-byte key word and the value, the key word doubling as the
 * bucket's state (reserved words for free, erased and held), with a small
 * classic-layout side map for the few keys equal to a reserved word.  The
 * promises are the same; what follows describes the classic protocol.
 *
 * Status word.  Bits 0-2 are the state (FREE, RESERVED, READY, TOMB); the
 * others count readers and hold the home's placement lock and epoch (the
 * BCL_HM_* layout below).  Readers are counted (BCL keeps 30 "read bits"
 * chosen at random and retries on a collision; a count taken with fetch-add
 * never collides).  Readers hold a count while they read; a writer needs the state RESERVED, which it gets
 * from FREE (whatever the count: readers of a free bucket do not read it) or
 * from READY with no readers.  RESERVED -> READY is an XOR of the state bits,
 * which keeps the count.
 *
 * Bit 0 is the writer's bit (BCL_HM_BUSY): whoever sets it owns the bucket,
 * and readers and other writers wait while it is set.  The scalar protocol
 * sets it with a CAS (FREE -> RESERVED, READY without readers -> RESERVED);
 * the batches (bcl_hashmap_batch.c) set it with a fetch-or, which can be
 * done for many buckets in one message: on a FREE bucket that reserves it,
 * on a READY one it makes state 3 (READY + BUSY), a short hold that the
 * batch drops again with a fetch-add of -1 once it has read the key (or, if
 * the key matches and no reader was counted, uses as the lock to overwrite
 * the value).  Everything that waits for a writer tests BCL_HM_BUSY, never
 * the state RESERVED alone.
 *
 * Invariants the protocol relies on:
 *  - a bucket goes FREE -> RESERVED -> READY (or back to FREE when the writer
 *    gives up, e.g. no segment room for a variable-length key); erase makes
 *    READY -> TOMB under the writer's lock, and a TOMB is reserved (TOMB|BUSY)
 *    and made READY again only by an insert holding the placement lock of
 *    its key's home (see Deletion).  A READY key changes only through
 *    erase + reuse, so whoever read a key without holding the bucket
 *    verifies it again once it holds the lock (lock_entry);
 *  - the value of a READY bucket is written only by the holder of RESERVED
 *    (insert-overwrite, modify, non-atomic accumulate), which excludes
 *    readers; readers (find, and accumulate of a 4/8-byte integer value,
 *    which adds with an atomic fetch-add under a reader count) therefore
 *    never race with a plain put.  A value that accumulate adds to atomically
 *    is read atomically by find too (MPI forbids get racing with accumulate).
 *
 * Probing.  (The compact layout probes linearly: bcl_hm_probe_next.)
 * Quadratic (triangular numbers) over the next power of two P >= n,
 * skipping positions >= n: the sequence visits every bucket exactly once in
 * P steps.  It stops after `limit` = n/2 + 1 visited buckets -- the fewest
 * that guarantee docs/api.md's "accepts inserts until at least half full", since
 * the visited buckets are distinct.  Insert and find share the sequence, so
 * a missing key's lookup stops at the first FREE bucket (BCL walks the whole
 * table there).  Tombstones are passed like other keys' buckets.
 *
 * Deletion (docs/hashmap.md states the interleavings).  A key may be
 * *placed* (stored in a bucket that did not hold it) only once no bucket of
 * its probe sequence holds it.  Placing into a FREE bucket is safe without a
 * lock as long as no tombstone was reused meanwhile: the "fast" placer
 * notes the home's epoch when it first touches the home, claims FREE, then
 * re-reads the home word; if the placement lock is held or the epoch moved,
 * it gives the bucket back and takes the slow path.  The slow path (needed
 * to reuse a tombstone) takes the home's placement lock (bit 3), scans the
 * whole sequence to the first FREE bucket, reserves the first tombstone
 * (or the FREE bucket), then releases the lock adding one epoch, and
 * writes and publishes.  Erase: find the key, lock the bucket, verify,
 * READY -> TOMB, then release the out-of-line key and value.
 */
#ifndef BCL_HASHMAP_H
#define BCL_HASHMAP_H

#include "serial/bcl_hash.h"
#include "serial/bcl_hll.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "comm/bcl_comm.h"
#include "serial/bcl_msgpack.h"
#include "containers/bcl_object.h"

/* Status word: bits 0-2 the state, bit 3 the home's placement lock, bits
 * 4-51 the reader count, bits 52-63 the home's placement epoch (see
 * "Deletion" above and docs/hashmap.md).  Every state transition is an add,
 * xor or or of state bits, or a CAS computed from the word it read, so the
 * lock, count and epoch bits are never disturbed by them. */
#define BCL_HM_FREE 0u
#define BCL_HM_RESERVED 1u
#define BCL_HM_READY 2u
#define BCL_HM_TOMB 4u        /* erased; TOMB|BUSY: reserved for reuse    */
#define BCL_HM_STATE 7u
#define BCL_HM_BUSY 1u        /* writer's bit: RESERVED, or READY held (3) */
#define BCL_HM_PLOCK 8u       /* placement lock of the keys homed here     */
#define BCL_HM_READER 16u     /* one reader in the status word's count     */
#define BCL_HM_EPOCH1 ((uint64_t)1 << 52)   /* one placement epoch        */
#define BCL_HM_META (BCL_HM_PLOCK | ~(BCL_HM_EPOCH1 - 1))
#define BCL_HM_READERS(x) (((x) & (BCL_HM_EPOCH1 - 1)) >> 4)

/* Promise bits (pybcl.ConProm.HashMap). */
#define BCL_HM_P_FIND 1
#define BCL_HM_P_INSERT 2
#define BCL_HM_P_LOCAL 4

/* How accumulate adds (the value's numeric type); NONE: not numeric. */
typedef enum bcl_hm_num {
    BCL_HM_NUM_NONE, BCL_HM_NUM_INT, BCL_HM_NUM_UINT, BCL_HM_NUM_FLOAT, BCL_HM_NUM_BOOL
} bcl_hm_num;

typedef struct bcl_hashmap {
    uint64_t n;            /* buckets in the table                          */
    uint64_t block;        /* buckets per rank (the last ranks may own fewer) */
    uint64_t pmask;        /* P - 1                                         */
    uint64_t limit;        /* buckets a probe sequence visits at most       */
    size_t key_size;       /* bytes of a fixed key (0 for variable keys)    */
    size_t val_size;       /* bytes of a fixed value (0 for variable ones)  */
    size_t key_slot, val_slot;   /* slot bytes in the bucket               */
    size_t val_off, bsize;
    int key_var, val_var;  /* the slot holds a bcl_objref                   */
    int val_atomic;        /* 4/8: native integer value, added atomically   */
    bcl_hm_num num;        /* accumulate's arithmetic                       */
    uint64_t *base;        /* per rank: offset of its block (0: none)       */
    /* The compact layout (bcl_hashmap_compact.h): fixed keys of at most 8
     * bytes, no status word; the key word is the bucket's state. */
    int compact;
    int linear;            /* probe linearly (compact), not by triangular numbers */
    size_t key_off;        /* key slot's offset in a bucket: 8, or 0 (compact) */
    uint64_t stripe_off;   /* compact: the placement words, after the buckets */
    struct bcl_hashmap *side;  /* compact: keys equal to a reserved word     */
} bcl_hashmap;

/* A key as the core sees it: its serialized bytes and their hash. */
typedef struct bcl_hm_key {
    const void *bytes;
    size_t len;
    uint64_t hash;
} bcl_hm_key;

/* The key's hash (keys of 8 bytes, the common case, inline: a bulk apply
 * hashes each entry twice). */
static inline uint64_t bcl_hm_hash(const void *bytes, size_t len)
{
    if (len == 8) {
        /* bcl_hash_u64 == bcl_hash64 of the 8 little-endian bytes.  One
         * load, not eight: the bulk apply hashes ahead of every entry, and
         * the byte loop cost it a sixth of its time. */
        uint64_t x;
        memcpy(&x, bytes, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x);
#endif
        return bcl_hash_u64(x, 0);
    }
    return bcl_hash64(bytes, len, 0);
}

static inline bcl_hm_key bcl_hm_key_make(const void *bytes, size_t len)
{
    bcl_hm_key k = { bytes, len, bcl_hm_hash(bytes, len) };
    return k;
}

/* Key i of a batch laid out back to back: bytes koff[i] .. koff[i + 1], or
 * with koff NULL key_size bytes each (a fixed-size key type); *len its
 * length.  The key-by-key batches and HashMapBuffer's adds read keys so. */
static inline const unsigned char *bcl_hm_batch_key(size_t key_size, const void *keys,
                                                    const size_t *koff, size_t i,
                                                    size_t *len)
{
    *len = koff ? koff[i + 1] - koff[i] : key_size;
    return (const unsigned char *)keys + (koff ? koff[i] : i * key_size);
}

/* Collective.  key_size/val_size: bytes of a fixed type, 0 for a variable
 * one (out-of-line, msgpack bytes).  num: the value's arithmetic (see
 * bcl_hm_num); the map decides from it and val_size how accumulate adds
 * (a fetch-add for 4/8-byte signed integers, else under the bucket's lock;
 * floats of other widths are not numeric).  On failure nothing is left
 * allocated on any rank and every rank returns the same status. */
bcl_status bcl_hm_create(bcl_hashmap *m, uint64_t capacity, size_t key_size,
                         size_t val_size, bcl_hm_num num);

/* Not collective: frees this rank's block and the out-of-line storage its
 * buckets own.  Call it on every rank, with a barrier before the memory can
 * be reused by the next container (the binding does it at deallocation). */
void bcl_hm_destroy(bcl_hashmap *m);

/* Owner rank of the key's home bucket. */
int bcl_hm_owner(const bcl_hashmap *m, const bcl_hm_key *k);

/* The same for a key of hash h, without the map: every rank's block is the
 * same size, so the home's rank is h * nprocs / 2^64 at any capacity (what
 * a HashMapBuffer routes by, and a load places by). */
static inline int bcl_hm_home_rank(uint64_t h)
{
    return (int)(((unsigned __int128)h * (uint64_t)bcl_rt.nprocs) >> 64);
}

/* insert or overwrite.  `val`/`len`: the value's serialized bytes (a fixed
 * value: val_size bytes; a variable one: its msgpack bytes, which the map
 * stores out of line in this rank's segment and gives back if the insert
 * fails, as it does with variable keys).  BCL_ERR_FULL: no free bucket along
 * the probe sequence; nothing written.  promise BCL_HM_P_LOCAL: plain CPU insert into
 * this rank's block (BCL_ERR_ARG if the key's home is elsewhere, BCL_ERR_FULL
 * if its probe sequence leaves the block). */
bcl_status bcl_hm_insert(const bcl_hashmap *m, const bcl_hm_key *k, const void *val,
                         size_t len, int promise);

/* find: *found = 0/1; the value's bytes (fixed: val_size bytes; variable:
 * its msgpack bytes) are appended to `out`.  promise BCL_HM_P_FIND (alone):
 * one get of the bucket, no atomics. */
bcl_status bcl_hm_find(const bcl_hashmap *m, const bcl_hm_key *k, bcl_mp_writer *out,
                       int *found, int promise);

/* accumulate: value += delta (delta: val_size bytes of the value type), or
 * insert delta if the key is absent.  No update is lost under contention. */
bcl_status bcl_hm_accumulate(const bcl_hashmap *m, const bcl_hm_key *k,
                             const void *delta);

/* modify, in three steps so the caller can run arbitrary code on the value:
 * lock the key's bucket (reserving a free one if the key is absent), read the
 * old value into `out` (*found = 0 if absent), then either commit a new value
 * (its serialized bytes, stored as by insert) or abort.  Other operations on
 * the bucket wait in between.  A commit that cannot store the value (no
 * segment room, wrong size) aborts and returns why. */
typedef struct bcl_hm_lock {
    uint64_t idx;
    int fresh;             /* the key is not stored yet (FREE or TOMB reserved) */
    int tomb;              /* fresh from a tombstone (TOMB|BUSY)                */
    int side;              /* compact: the bucket is the side map's             */
    uint64_t word;         /* compact: the key word that gives the bucket back  */
} bcl_hm_lock;
bcl_status bcl_hm_lock_key(const bcl_hashmap *m, const bcl_hm_key *k, bcl_hm_lock *lk,
                           bcl_mp_writer *out, int *found);
bcl_status bcl_hm_commit(const bcl_hashmap *m, const bcl_hm_lock *lk,
                         const bcl_hm_key *k, const void *val, size_t len);
bcl_status bcl_hm_abort(const bcl_hashmap *m, const bcl_hm_lock *lk);

/* erase: *found = 1 if the key was stored (it is not any more).  Its
 * out-of-line key and value are released. */
bcl_status bcl_hm_erase(const bcl_hashmap *m, const bcl_hm_key *k, int *found);

/* ---- batches key by key (bcl_hashmap_seq.c) -----------------------------
 * k keys back to back in `keys`: key i is bytes koff[i] .. koff[i + 1] (koff:
 * k + 1 offsets from 0; any key type), or with koff NULL key_size bytes each
 * (a fixed-size key type).  Each key takes the scalar protocol above, in
 * order, so each is atomic on its own; nothing else is held meanwhile (the
 * binding runs them without the GIL). */

/* erase: found[i] = 0/1. */
bcl_status bcl_hm_erase_many(const bcl_hashmap *m, const void *keys, const size_t *koff,
                             size_t k, unsigned char *found);
/* insert: value i is bytes voff[i] .. voff[i + 1] of vals (any value type).
 * The first failure stops the batch: *stored = the keys stored before it. */
bcl_status bcl_hm_insert_seq(const bcl_hashmap *m, const void *keys, const size_t *koff,
                             const void *vals, const size_t *voff, size_t k, size_t *stored);
/* find (promise as bcl_hm_find's): found[i] = 0/1; the values found are
 * appended to out, value i bytes voff[i] .. voff[i + 1] of out->buf (none
 * when absent; voff: k + 1 entries). */
bcl_status bcl_hm_find_seq(const bcl_hashmap *m, const void *keys, const size_t *koff,
                           size_t k, int promise, bcl_mp_writer *out, size_t *voff,
                           unsigned char *found);
/* accumulate: key i's delta at deltas + i * dstep (dstep 0: one for all). */
bcl_status bcl_hm_accumulate_seq(const bcl_hashmap *m, const void *keys, const size_t *koff,
                                 size_t k, const void *deltas, size_t dstep);

/* Between lock and commit/abort the calling thread holds the bucket; code it
 * runs meanwhile (modify()'s Python fn) that waits on that bucket would wait
 * for itself.  The spin loops (erase's and the placement's included) ask
 * bcl_hm_check_held() first and fail with BCL_ERR_REENTRY instead of
 * deadlocking.  The placement lock itself is never held while waiting for a
 * bucket (locate_slow lets it go and scans again), so no cycle runs through
 * it. */
bcl_status bcl_hm_check_held(bcl_gptr bucket);

/* ---- batches of fixed-size keys and values (bcl_hashmap_batch.c) --------
 * Pipelined: every step of the protocol is issued for the whole batch with
 * non-blocking operations and completed by one flush, so k keys cost a few
 * round trips, not k.  Keys: k * key_size bytes; values: k * val_size. */
bcl_status bcl_hm_insert_many(const bcl_hashmap *m, const void *keys, const void *vals,
                              size_t k, size_t *n_full);
/* The same under the local promise (every key is this rank's): the keys in
 * order with plain stores (bcl_hm_insert, BCL_HM_P_LOCAL); the first failure
 * stops the batch (*n_full is always 0). */
bcl_status bcl_hm_insert_many_local(const bcl_hashmap *m, const void *keys,
                                    const void *vals, size_t k, size_t *n_full);
/* found[i] = 0/1; vals[i] untouched when not found. */
bcl_status bcl_hm_find_many(const bcl_hashmap *m, const void *keys, size_t k,
                            void *vals, unsigned char *found, int promise);
/* BCL_ERR_OVERFLOW (after the whole batch ran) if some sums overflowed:
 * those deltas were not applied, the others were. */
bcl_status bcl_hm_accumulate_many(const bcl_hashmap *m, const void *keys,
                                  const void *deltas, size_t k, size_t *n_full);
/* insert_many / accumulate_many reporting each key's outcome (HashMapBuffer
 * keeps what found no room).  A duplicate merged into another key's op
 * reports that op's outcome (its delta went with it). */
#define BCL_HM_DONE 0
#define BCL_HM_NOROOM 1
#define BCL_HM_OVERFLOW 2
bcl_status bcl_hm_batch_outcome(const bcl_hashmap *m, int accumulate, const void *keys,
                                const void *vals, size_t k, unsigned char *outcome);

/* ---- collective lookup (bcl_hashmap_find_exchange.c) --------------------
 * find_many with every rank taking part, each with its own keys (n may
 * differ, or be 0): the keys go to the ranks whose blocks hold their home
 * buckets, which look them up in their own memory and send the answers
 * back (two alltoallv per round of up to 2^20 keys a rank), instead of a
 * one-sided get per probe.  On shm every rank reads the mapped blocks
 * itself.  Fixed-size keys and values only (BCL_ERR_ARG).  Every rank
 * returns an error if any rank fails. */
bcl_status bcl_hm_find_exchange(const bcl_hashmap *m, const void *keys, size_t n, void *vals,
                                unsigned char *found);

/* ---- whole-table operations ------------------------------------------ */
/* The most keys the map holds: its buckets, and a compact map's side keys
 * (so that size() never exceeds it). */
uint64_t bcl_hm_capacity(const bcl_hashmap *m);

/* Collective: number of keys. */
bcl_status bcl_hm_size(const bcl_hashmap *m, uint64_t *size);

/* Local: visit this rank's READY buckets (key slot, value slot).  Call after
 * a barrier.  The callback returns non-zero to stop. */
typedef int (*bcl_hm_visit_fn)(void *ctx, const void *key_slot, const void *val_slot);
void bcl_hm_local_scan(const bcl_hashmap *m, bcl_hm_visit_fn fn, void *ctx);

/* READY buckets in this rank's block (no synchronisation). */
uint64_t bcl_hm_local_used(const bcl_hashmap *m);

/* Copy at most cap of this rank's entries (fixed-size keys and values) to
 * keys[] and vals[], packed; returns how many.  No synchronisation. */
uint64_t bcl_hm_local_copy(const bcl_hashmap *m, void *keys, void *vals, uint64_t cap);
/* The most entries this rank's share can hold (its block, and a compact
 * map's share of the side map): what bcl_hm_local_copy may return. */
uint64_t bcl_hm_local_slots(const bcl_hashmap *m);

/* ---- this rank's values read in place (bcl_hashmap_values.c) -----------
 * For integer value types (any width, signed or not), one pass over the
 * block, no copy; no synchronisation (call after a barrier).  hist: hist[v]
 * += the entries whose value is v, for 0 <= v < len, among the buckets of
 * the block whose index is a multiple of `every` (1: all of them, and the
 * side map's; more: a sample, for estimates of a large map), and the entries'
 * smallest and largest value, unsigned ones above INT64_MAX taken as
 * INT64_MAX (*n: how many entries; 0: *lo, *hi undefined).  select: *n =
 * the entries whose value is at least `at_least`, copied packed into
 * keys[] / vals[] (up to cap of them).  BCL_ERR_TYPE for a map whose values
 * are not integers. */
bcl_status bcl_hm_local_value_hist(const bcl_hashmap *m, uint64_t every, int64_t *hist,
                                   uint64_t len, int64_t *lo, int64_t *hi, uint64_t *n);
bcl_status bcl_hm_local_select(const bcl_hashmap *m, int64_t at_least, void *keys,
                               void *vals, uint64_t cap, uint64_t *n);

/* Collective: move every entry into a table of new_capacity buckets.  On
 * BCL_ERR_FULL / SEGFULL (on any rank) the old table is kept unchanged. */
bcl_status bcl_hm_resize(bcl_hashmap *m, uint64_t new_capacity);
/* Does this rank's block surely have room for `new_keys` more keys without
 * bcl_hm_grow_for growing the map (an upper bound of its entries, from a
 * sample, plus new_keys, under the growth threshold)?  Lets a flush skip
 * estimating the new keys of an inbox far smaller than the room left. */
int bcl_hm_room_for(const bcl_hashmap *m, uint64_t new_keys);
/* A HashMapBuffer's flush: should the entries this rank's apply spilled
 * (`spilled` of `applied`) wait, kept for the flush's retry after the map
 * grows, rather than go to the next blocks by remote probes?  Yes when the
 * apply was refused already (`refusing`: the map grows first), and, in a
 * buffer that grows, when the block is past its growth threshold and
 * spilled a large share: the blocks after it, filled by the same hash, are
 * as full, and a remote insert into a full block probes up to the limit, a
 * round trip a bucket (on rma with more ranks than cores, about a
 * millisecond each). */
int bcl_hm_spills_wait(const bcl_hashmap *m, int grow, int refusing, uint64_t applied,
                       uint64_t spilled);
/* Collective (a HashMapBuffer flush's growth): `new_keys` is how many
 * buckets this rank's block may yet fill (ignored where *err is set).  If
 * some rank's used buckets plus that is over half a block (by more than the
 * estimate's rounding: 52.5 %), resize once, to at least double and to
 * hold that at most half full.  A resize the
 * segments cannot hold leaves BCL_ERR_SEGFULL in *err (unless an error is
 * there already) and returns BCL_OK; the return is a communication failure. */
bcl_status bcl_hm_grow_for(bcl_hashmap *m, uint64_t new_keys, bcl_status *err);
/* Collective (a HashMapBuffer flush that still found the map full): resize
 * to at least double and to hold every entry plus the `refused` ones (this
 * rank's; summed over the ranks) at most half full.  *err as above. */
bcl_status bcl_hm_grow_past(bcl_hashmap *m, uint64_t refused, bcl_status *err);
/* Collective, the end of a HashMapBuffer flush (fixed-size and
 * variable-length alike): what every rank learns of how it went on all.
 * err: this rank's error; kept: the entries it keeps for the next flush (a
 * full map); *n_overflow: its accumulates not applied (reset once reported);
 * segfull: its entries that found no segment room for out-of-line bytes.
 * *kept_all: the kept entries of all ranks.  Returns a communication
 * failure, else the first of: this rank's error, another rank's failure,
 * SEGFULL, FULL, OVERFLOW anywhere. */
bcl_status bcl_hm_flush_agree(const bcl_hashmap *m, bcl_status err, uint64_t kept,
                              uint64_t *n_overflow, uint64_t segfull, uint64_t *kept_all);

/* ---- internals shared with bcl_hashmap_batch.c and the buffer --------- */
static inline bcl_gptr bcl_hm_bucket(const bcl_hashmap *m, uint64_t idx)
{
    int r = (int)(idx / m->block);
    return bcl_gptr_make(r, m->base[r] + (idx - (uint64_t)r * m->block) * m->bsize);
}

static inline bcl_gptr bcl_hm_at(bcl_gptr b, size_t off)
{
    b.offset += off;
    return b;
}

/* Probe sequence of one key. */
typedef struct bcl_hm_probe {
    uint64_t h, i, visited;
} bcl_hm_probe;

/* The home bucket is uniform in [0, n) (multiply-high of the hash), so the
 * first probe is never skipped; skipping positions >= n only touches the
 * later probes of keys near the end of the table.  (Taking the home from the
 * hash's low bits modulo P sent every key homed in [n, P) to the few
 * buckets right after the wrap: long probe sequences.) */
static inline void bcl_hm_probe_init(const bcl_hashmap *m, bcl_hm_probe *p, uint64_t hash)
{
    p->h = (uint64_t)(((unsigned __int128)hash * m->n) >> 64);
    p->i = 0;
    p->visited = 0;
}

/* Next bucket of the sequence; 0 when the limit is reached. */
static inline int bcl_hm_probe_next(const bcl_hashmap *m, bcl_hm_probe *p, uint64_t *idx)
{
    if (m->linear) {
        /* Linear probing (the compact layout): the next bucket, wrapping at n. */
        if (p->visited >= m->limit)
            return 0;
        uint64_t pos = p->h + p->visited++;
        *idx = pos < m->n ? pos : pos - m->n;
        return 1;
    }
    while (p->visited < m->limit && p->i <= m->pmask) {
        uint64_t pos = (p->h + p->i * (p->i + 1) / 2) & m->pmask;
        p->i++;
        if (pos < m->n) {
            p->visited++;
            *idx = pos;
            return 1;
        }
    }
    return 0;
}

/* Local insert (promise local; HashMapBuffer's owner-side apply): plain CPU
 * operations on this rank's block, fixed-size keys and values only.
 * *spilled = 1 (nothing written) when the key's probe sequence leaves the
 * block before reaching the key or a free bucket.  accumulate: add to an
 * existing value instead of replacing it. */
bcl_status bcl_hm_apply_local(const bcl_hashmap *m, const bcl_hm_key *k,
                              const void *val, int accumulate, int *spilled);

/* Bulk apply (bcl_hashmap_bulk.c): many fixed-size entries applied to this
 * rank's own block with plain CPU operations, in order, each exactly as
 * bcl_hm_apply_local would -- the same rule: no other rank writes the block
 * meanwhile.  A run is n entries of one kind (insert or accumulate): keys
 * `kstride` bytes apart, values `vstride` apart (0: one value for all, as
 * a counter's accumulate of 1).  The callback hears of each entry that did
 * not simply apply: st BCL_OK with spilled (its probe sequence leaves the
 * block: nothing written), BCL_ERR_FULL (no free bucket) or
 * BCL_ERR_OVERFLOW (the sum overflows).  grow: the first full probe sets
 * *refusing, and from then on every entry is reported full without probing
 * (the caller grows the map and tries them again). */
typedef struct bcl_hm_run {
    const unsigned char *keys, *vals;
    size_t kstride, vstride, n;
    int accumulate;
} bcl_hm_run;
typedef bcl_status (*bcl_hm_bulk_fn)(void *ctx, const void *key, const void *val,
                                     int accumulate, bcl_status st, int spilled);
bcl_status bcl_hm_apply_many_local(const bcl_hashmap *m, const bcl_hm_run *run, int grow,
                                   int *refusing, bcl_hm_bulk_fn fn, void *ctx);
/* From a HyperLogLog sketch of keys' hashes (serial/bcl_hll.h), n of them
 * added: an upper estimate (+5 %, at most n) of how many buckets an apply of
 * those keys can fill (bcl_hashmap_sketch.c). */
uint64_t bcl_hm_distinct_bound(const bcl_hll *s, uint64_t n);
/* The same over runs of fixed-size keys, which it hashes, with a sample of
 * the keys (pointers into the runs: they must outlive the sketch) that
 * tells how many the map holds already. */
typedef struct bcl_hm_sampled {
    uint64_t hash;
    const unsigned char *key;
} bcl_hm_sampled;
typedef struct bcl_hm_sketch {
    bcl_hll hll;
    uint64_t added;
    bcl_hm_sampled *sample;
    size_t nsample, cap;
    int unsampled;             /* no memory for the sample: no scaling */
} bcl_hm_sketch;
void bcl_hm_sketch_init(bcl_hm_sketch *s);
void bcl_hm_sketch_free(bcl_hm_sketch *s);
void bcl_hm_sketch_add(const bcl_hashmap *m, bcl_hm_sketch *s, const void *keys,
                       size_t kstride, size_t n);
/* Upper estimate of the keys added that this rank's block does not hold.
 * Plain loads of the block: only while no other process writes it (the
 * buffer's local phase). */
uint64_t bcl_hm_sketch_new_keys(const bcl_hashmap *m, bcl_hm_sketch *s);

/* Local apply of one entry with variable-length key or value bytes
 * (bcl_hashmap_vapply.c; HashMapBuffer's owner side over bytes/str/object
 * types): as bcl_hm_apply_local -- plain CPU operations on this rank's
 * block, no other rank writing it meanwhile -- but out-of-line keys and
 * values are stored in this rank's segment (bcl_obj_store) and an
 * overwritten value's block released.  val/vlen: the value's serialized
 * bytes (a fixed value: val_size bytes; accumulate needs one).  Also
 * BCL_ERR_SEGFULL: no segment room for the key or value (nothing written). */
bcl_status bcl_hm_apply_var_local(const bcl_hashmap *m, const bcl_hm_key *k,
                                  const void *val, size_t vlen, int accumulate,
                                  int *spilled);

/* Add `delta` to `value` in the map's numeric type (local memory;
 * bcl_hashmap_num.c).
 * Integers are checked: 1 (value unchanged) if the sum overflows. */
int bcl_hm_num_add(const bcl_hashmap *m, void *value, const void *delta);
/* BCL_ERR_OVERFLOW with a message naming the delta. */
bcl_status bcl_hm_overflow_error(const bcl_hashmap *m, const void *delta);
/* accumulate's fast path (bcl_hashmap.c): may delta d (value bits) take the
 * fetch-add, and is an add that found `old` exact (else undo it and redo it
 * under the lock)? */
int bcl_hm_fast_delta(const bcl_hashmap *m, uint64_t d);
int bcl_hm_fast_old(const bcl_hashmap *m, uint64_t old);

/* Compare the key slot of a READY bucket with k. */
bcl_status bcl_hm_key_equal(const bcl_hashmap *m, const void *slot, const bcl_hm_key *k,
                            int *eq);

#endif /* BCL_HASHMAP_H */
