/*
 * bcl_hmbuffer.h -- BCL's HashMapBuffer (paper 5.3): aggregated inserts.
 *
 * Entries (insert or accumulate; fixed-size keys and values) are buffered
 * per owner rank -- the owner of the key's home bucket.  Every rank hosts
 * one FastQueue (bcl_queue.h) of `queue_size` entries of (key, value, op)
 * records.  A full buffer of `message_size` entries goes to its owner's
 * queue with one push_many (one fetch-add on the tail and one put; pushes
 * and the owner's reading are separated by barriers, FastQueue's phases).
 * flush() (collective) pushes what is left, then every owner pops its queue
 * with local pops and applies the entries with plain CPU inserts into its
 * own block, combining accumulates with stored values.
 *
 * No entry is ever lost:
 *  - a push the owner's queue refuses (full: FastQueue pushes are all or
 *    nothing) is inserted directly with the atomic protocol (pipelined
 *    batches), at a time when only atomic operations and pushes run;
 *  - an entry whose probe sequence leaves the owner's block ("spill") is
 *    kept aside during the local phase and inserted atomically after a
 *    barrier, when no local insert runs any more;
 *  - an entry that finds no free bucket (the map is full) stays in the
 *    buffer ("kept", by the rank that tried it): flush() reports
 *    BCL_ERR_FULL on every rank, and the next flush() (e.g. after a resize)
 *    inserts the kept entries of every rank first (those a rank owns with
 *    plain inserts in a local phase between barriers, the rest atomically),
 *    then a barrier, then anything buffered since (a later insert of a key wins; meanwhile a
 *    refused push is "deferred", not inserted).  Adding never reports a
 *    full map: only flush() does, collectively.
 * An accumulate whose sum overflows the value type is not applied and is
 * counted; flush() reports BCL_ERR_OVERFLOW on every rank.
 */
#ifndef BCL_HMBUFFER_H
#define BCL_HMBUFFER_H

#include "containers/bcl_hashmap.h"
#include "containers/bcl_queue.h"

typedef struct bcl_hmbuf_list {  /* entries waiting for the next flush */
    unsigned char *e;
    size_t n, cap;
} bcl_hmbuf_list;

typedef struct bcl_hmbuf {
    const bcl_hashmap *m;
    size_t queue_size, message_size;
    size_t stride;            /* bytes per entry: key, value, op byte       */
    bcl_queue *q;             /* per rank: the FastQueue it hosts            */
    int nq;                   /* queues created                              */
    unsigned char **buf;      /* per rank: buffered entries                  */
    size_t *count;            /* per rank: how many                          */
    size_t self_cap;          /* entries for ourselves grow without pushing  */
    uint64_t pushed_direct;   /* entries that overflowed a queue (stats)     */
    bcl_hmbuf_list kept;      /* entries that found no room: next flush      */
    bcl_hmbuf_list deferred;  /* refused pushes while entries are kept       */
    uint64_t kept_all;        /* kept entries on all ranks (last flush)      */
    uint64_t n_overflow;      /* accumulates not applied since last flush    */
    uint64_t n_added;         /* entries added since the last flush began    */
    int grow;                 /* the caller grows the map when it is full    */
    int refusing;             /* grow: this flush's local phase found it full */
    uint64_t n_local;         /* entries this flush's local phase went through */
} bcl_hmbuf;

/* Collective. */
bcl_status bcl_hmbuf_create(bcl_hmbuf *b, const bcl_hashmap *m, size_t queue_size,
                            size_t message_size);
void bcl_hmbuf_destroy(bcl_hmbuf *b);

/* Buffer one entry (accumulate: add `val` instead of replacing). */
bcl_status bcl_hmbuf_add(bcl_hmbuf *b, const void *key, const void *val, int accumulate);

/* grow != 0: the caller resizes the map whenever flush() reports it full,
 * so once this rank's block is found full in a flush's local phase, the
 * rest of that phase is kept without probing (probing a full block costs
 * half the table per entry, and every kept entry is retried after the
 * resize anyway). */
void bcl_hmbuf_set_grow(bcl_hmbuf *b, int grow);

/* Entries this rank will hand to the map at the next flush (added since
 * the last flush began, plus those a full map refused): an upper bound on
 * the keys the flush adds, which a growing map sizes itself by. */
uint64_t bcl_hmbuf_pending(const bcl_hmbuf *b);

/* Collective: afterwards every buffered entry is in the map.  The same
 * status on every rank: BCL_ERR_FULL if any rank kept entries (the map is
 * full; they stay buffered), BCL_ERR_OVERFLOW if some accumulates
 * overflowed, BCL_ERR_STATE if another rank failed otherwise. */
bcl_status bcl_hmbuf_flush(bcl_hmbuf *b);

#endif /* BCL_HMBUFFER_H */
