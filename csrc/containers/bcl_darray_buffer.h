/*
 * bcl_darray_buffer.h -- DArrayBuffer: aggregated updates of array elements
 * (Grappa-style delegation: updates travel to the element's owner, which
 * applies them to its own block with plain local operations).
 *
 * Updates (global index, value) are buffered per owner.  Every rank hosts
 * one inbox (bcl_delegate.h) of 16-byte records (index, value bits); a full
 * buffer of `message_size` records goes to its owner's inbox with one
 * push (one fetch-add and one put).  flush() (collective) pushes what
 * is left, a barrier ends the pushing phase, then every owner pops its
 * queue locally and applies the records -- and its own buffered updates --
 * to its block with plain loads and stores (nobody else touches the block
 * until the next barrier), and a barrier makes them visible everywhere.
 *
 * No update is lost: a push the owner's queue refuses (full; FastQueue
 * pushes are all or nothing) is applied at once with the atomic path
 * (bcl_array_update_many), which is safe because owners only apply locally
 * inside flush(), between its barriers.  The order of updates is not kept
 * (add/or/and/xor/min/max do not care; with replace, which of two buffered values
 * of one element wins is unspecified).
 */
#ifndef BCL_DARRAY_BUFFER_H
#define BCL_DARRAY_BUFFER_H

#include "containers/bcl_array_update.h"
#include "containers/bcl_delegate.h"

typedef struct bcl_dabuf_rec {   /* one buffered update */
    uint64_t index;               /* global element index               */
    uint64_t bits;                /* the value, in its first elem bytes */
} bcl_dabuf_rec;

typedef struct bcl_dabuf {
    const bcl_array *a;
    bcl_elem elem;
    bcl_atomic_op op;
    bcl_delegate d;           /* the inboxes: records of bcl_dabuf_rec      */
    bcl_dabuf_rec **buf;      /* per rank: buffered records                 */
    size_t *count;            /* per rank: how many                         */
    size_t self_cap;          /* our own records grow without pushing       */
    uint64_t pushed_direct;   /* records applied atomically (queue full)    */
} bcl_dabuf;

/* Collective.  message_size >= 1 records per message; queue_size >=
 * message_size records per owner queue, or 0: as many as the segment
 * affords.  The array must outlive the buffer. */
bcl_status bcl_dabuf_create(bcl_dabuf *b, const bcl_array *a, bcl_elem elem,
                            bcl_atomic_op op, size_t message_size, size_t queue_size);

/* Local (call on every rank after the last flush). */
void bcl_dabuf_destroy(bcl_dabuf *b);

/* Buffer n updates (values: n elements of the array's type).  BCL_ERR_BOUNDS
 * naming the position if an index is out of range; nothing is buffered then. */
bcl_status bcl_dabuf_add(bcl_dabuf *b, const uint64_t *idx, const void *values, size_t n);

/* Collective: afterwards every update buffered on any rank is applied and
 * visible to all.  The same status on every rank (BCL_ERR_STATE naming how
 * many other ranks failed, or this rank's own error). */
bcl_status bcl_dabuf_flush(bcl_dabuf *b);

#endif /* BCL_DARRAY_BUFFER_H */
