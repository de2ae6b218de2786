/*
 * bcl_hmvbuffer.h -- HashMapBuffer over a map with variable-length
 * (bytes/str/object: msgpack) keys or values.
 *
 * The fixed-size buffer (bcl_hmbuffer.h) ships fixed records through
 * per-rank FastQueues.  Here a record has no fixed size, so:
 *
 *  - Adding combines on the sending rank.  Every entry goes into one local
 *    hash table keyed by its key's bytes, whose records live in order in an
 *    arena: an insert replaces the record's value, an accumulate adds to it
 *    (a counter's repeated words become one record).  An accumulate whose
 *    sum with an earlier *accumulate* of the key would overflow leaves that
 *    record as it is and starts a new one after it, so the owner sees both,
 *    in order, as if applied one by one; one that would overflow an earlier
 *    *insert*'s value is not applied and counted (it would not be).
 *  - flush() (collective) routes the arena's records to their owners (the
 *    rank of the key's home bucket, bcl_hm_owner) and exchanges them with
 *    alltoallv (bcl_exchange.h) in rounds of at most BCL_HMV_ROUND bytes per
 *    destination, until no rank has records left.  Then, in the local phase
 *    (after the exchange no rank writes another's block until the barrier
 *    that ends it), each owner applies what it received to its own block
 *    with plain CPU stores (bcl_hm_apply_var_local), storing out-of-line
 *    keys and values in its own segment.  With grow set, the owners first
 *    agree on the fullest block (used buckets plus a HyperLogLog estimate of
 *    the distinct keys received) and resize the map once, collectively, if
 *    it would pass half.
 *
 * No entry is lost, as in the fixed buffer: a record whose probe sequence
 * leaves the owner's block is inserted atomically after a barrier; a record
 * that finds no free bucket or no segment room stays with the owner
 * ("kept") and flush() reports BCL_ERR_FULL / BCL_ERR_SEGFULL on every rank;
 * the next flush() applies every rank's kept records first (atomically,
 * then a barrier), then what was added since.  Overflowing accumulates are
 * counted and reported as BCL_ERR_OVERFLOW on every rank.
 *
 * Record (arena, exchange, kept): u64 key hash, u32 key bytes, u32 value
 * bytes, u8 op (0 insert, 1 accumulate; BCL_HMV_DEAD: replaced), the key's
 * bytes, the value's bytes; unaligned, back to back.
 */
#ifndef BCL_HMVBUFFER_H
#define BCL_HMVBUFFER_H

#include "containers/hashmap/bcl_hashmap.h"

#define BCL_HMV_HEAD 17u              /* record header bytes               */
#define BCL_HMV_DEAD 0x80u            /* op flag: a later record replaced it */
#define BCL_HMV_ROUND ((size_t)64 << 20)   /* bytes per destination a round  */

typedef struct bcl_hmv_slot {
    uint64_t hash;
    uint64_t at;          /* record offset + 1 in the arena; 0: empty     */
} bcl_hmv_slot;

typedef struct bcl_hmvbuf {
    bcl_hashmap *m;           /* grow resizes it in place                    */
    bcl_mp_writer arena;      /* records added since the last flush, in order */
    bcl_hmv_slot *slots;      /* combining table over the arena              */
    uint64_t nslots, used;    /* slots (a power of two), keys in them        */
    uint64_t live;            /* records not replaced                        */
    bcl_mp_writer kept;       /* records a full map refused: next flush      */
    uint64_t kept_n, kept_all;   /* kept records here / on all ranks         */
    uint64_t n_overflow;      /* accumulates not applied since last report   */
    uint64_t n_segfull;       /* records kept for want of segment room       */
    int grow;
    int refusing;             /* this flush found the block full (grow)      */
} bcl_hmvbuf;

/* Collective (agrees on nothing itself: the binding agrees first). */
bcl_status bcl_hmvbuf_create(bcl_hmvbuf *b, bcl_hashmap *m, size_t queue_size,
                             size_t message_size);
void bcl_hmvbuf_destroy(bcl_hmvbuf *b);

/* Buffer one entry: the key's and the value's serialized bytes (a fixed
 * value: val_size bytes; accumulate: a delta of the numeric value type). */
bcl_status bcl_hmvbuf_add(bcl_hmvbuf *b, const void *key, size_t klen, const void *val,
                          size_t vlen, int accumulate);

/* n entries: key i is keys[koff[i] .. koff[i + 1]) (koff NULL: key_size
 * bytes apart, a fixed-size key type); value i is
 * vals[voff[i] .. voff[i + 1]) when voff is given, else vlen bytes at
 * vals + i * vstep (vstep 0: one value for all).  Hashes and prefetches the
 * combining table's slots a few keys ahead. */
bcl_status bcl_hmvbuf_add_many(bcl_hmvbuf *b, const unsigned char *keys, const size_t *koff,
                               size_t n, const unsigned char *vals, const size_t *voff,
                               size_t vstep, size_t vlen, int acc);

/* Entries this rank hands to the map at the next flush (records after
 * combining, plus those a full map refused). */
uint64_t bcl_hmvbuf_pending(const bcl_hmvbuf *b);

/* Collective: afterwards every buffered entry is in the map; the same
 * status on every rank (see above and bcl_hmbuffer.h). */
bcl_status bcl_hmvbuf_flush(bcl_hmvbuf *b);

#endif /* BCL_HMVBUFFER_H */
