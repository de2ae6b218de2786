/*
 * bcl_hmbuffer.h -- BCL's HashMapBuffer (paper 5.3): aggregated inserts.
 *
 * Entries (insert or accumulate; fixed-size keys and values) are buffered
 * per owner rank -- the owner of the key's home bucket.  Every rank hosts
 * one inbox (bcl_delegate.h) of `queue_size` entries of (key, value, op)
 * records.  A destination's `message_size` buffered entries go to its
 * queue with one push_many (one fetch-add on the tail and one put).  A push
 * the queue refuses (full: FastQueue pushes are all or nothing) leaves that
 * destination's entries waiting in this rank's memory, in order, until
 * flush(): nothing goes in one remote atomic at a time.
 *
 * flush() (collective) ships in rounds: every rank pushes what waits, as
 * much as the queues take; barrier; every owner moves its queue's entries
 * to its inbox; barrier; again while any rank has entries waiting (an
 * allreduce says).  Then, in the local phase (pushes and the owner's
 * reading are separated by barriers, FastQueue's phases, and no rank
 * touches another's block), each owner applies its inbox to its own block
 * with the map's bulk apply (bcl_hm_apply_many_local: home buckets
 * prefetched ahead, plain CPU stores).  Waiting entries and the inbox are
 * stored compactly, in runs (bcl_hmbuf_list.h): a counter's keys take 8
 * bytes each until the flush, not a wire record's 24.  With grow set, the
 * owners first agree on the largest count of used buckets plus inbox keys
 * new to the block (bcl_hashmap_sketch.c) any block would hold and resize
 * the map (collectively, at least doubling) if that is over half a block,
 * so the apply finds room.
 *
 * No entry is ever lost:
 *  - an entry whose probe sequence leaves the owner's block ("spill") is
 *    kept aside during the local phase and inserted atomically after a
 *    barrier, when no local insert runs any more;
 *  - an entry that finds no free bucket (the map is full) stays in the
 *    buffer ("kept", by the rank that tried it): flush() reports
 *    BCL_ERR_FULL on every rank, and the next flush() (e.g. after a resize)
 *    takes the kept entries first -- those a rank owns at the head of its
 *    inbox, the rest inserted atomically before the first barrier -- then
 *    anything buffered since (a later insert of a key wins).  Adding never
 *    reports a full map: only flush() does, collectively;
 *  - a resize that does not fit the segments keeps the whole inbox, and
 *    flush() reports BCL_ERR_SEGFULL on every rank.
 * An accumulate whose sum overflows the value type is not applied and is
 * counted; flush() reports BCL_ERR_OVERFLOW on every rank.
 */
#ifndef BCL_HMBUFFER_H
#define BCL_HMBUFFER_H

#include "containers/hashmap/bcl_hashmap.h"
#include "containers/hashmap/bcl_hmbuf_list.h"
#include "containers/bcl_delegate.h"

typedef struct bcl_hmbuf {
    bcl_hashmap *m;           /* grow resizes it in place                    */
    bcl_delegate d;           /* the inboxes: records of `stride` bytes      */
    size_t chunk;             /* entries per push: message_size, at most a queue */
    size_t stride;            /* bytes per queued entry: key, value, op byte */
    bcl_hmbuf_fmt fmt;        /* the map's key and value sizes               */
    uint64_t calls;           /* add calls so far: names a list's open run   */
    unsigned char *wire;      /* staging for pushes and pops: `wire_n` entries */
    size_t wire_n;
    bcl_hmbuf_list *out;      /* per rank: entries for it (ours: the inbox)  */
    unsigned char *blocked;   /* per rank: its queue refused us this time    */
    size_t *group;            /* per rank + 1: add_many's counting sort      */
    uint64_t waited;          /* entries that found a queue full (stats)     */
    bcl_hmbuf_list kept;      /* entries that found no room: next flush      */
    uint64_t kept_all;        /* kept entries on all ranks (last flush)      */
    uint64_t n_overflow;      /* accumulates not applied since last flush    */
    uint64_t n_added;         /* entries added since the last flush began    */
    int grow;                 /* flush() grows a map too small for its entries */
                              /* and stops probing a block found full (the  */
                              /* caller grows the map and flushes again:    */
                              /* bcl_hashmap_buffer.h)                       */
    int refusing;             /* this flush's local phase found the block full */
} bcl_hmbuf;

/* Collective. */
bcl_status bcl_hmbuf_create(bcl_hmbuf *b, bcl_hashmap *m, size_t queue_size,
                            size_t message_size);
void bcl_hmbuf_destroy(bcl_hmbuf *b);

/* Buffer one entry (accumulate: add `val` instead of replacing). */
bcl_status bcl_hmbuf_add(bcl_hmbuf *b, const void *key, const void *val, int accumulate);
/* Buffer n entries: keys key_size bytes apart, values vstep bytes apart
 * (0: one value for all). */
bcl_status bcl_hmbuf_add_many(bcl_hmbuf *b, const void *keys, const void *vals,
                              size_t vstep, size_t n, int accumulate);

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
