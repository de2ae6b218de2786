/*
 * bcl_delegate.h -- what the aggregating buffers (HashMapBuffer's fixed
 * records, DArrayBuffer) share: delegation to the owner (BCL paper 5.3,
 * Grappa).  Every rank hosts one FastQueue (bcl_queue.h) of `queue_size`
 * records of `rec_size` bytes, its inbox; a sender buffers the records for
 * each owner and ships `message_size` of them at a time with one push
 * (one fetch-add on the tail, one put), all or nothing; inside flush(),
 * between barriers, each owner pops its inbox and applies the records to
 * its own block with plain local operations.  The buffers keep their own
 * records, per-owner buffers and flush rounds (bcl_hmbuffer.h,
 * bcl_darray_buffer.h); the queues and their creation are here.
 */
#ifndef BCL_DELEGATE_H
#define BCL_DELEGATE_H

#include "containers/bcl_queue.h"

typedef struct bcl_delegate {
    size_t queue_size;        /* records each rank's inbox holds            */
    size_t message_size;      /* records per push                           */
    size_t rec_size;          /* bytes per record                           */
    bcl_queue *q;             /* per rank: the inbox it hosts               */
    int nq;                   /* inboxes created                            */
} bcl_delegate;

/* Collective.  `local` is this rank's own verdict on its arguments and
 * private memory (BCL_OK or its error); the ranks agree on it before the
 * collective queue creations, so a failure stops every rank there: this
 * rank's own error, or "`what` failed on another rank" (BCL_ERR_ARG). */
bcl_status bcl_delegate_create(bcl_delegate *d, const char *what, bcl_status local,
                               size_t queue_size, size_t message_size, size_t rec_size);

/* Local: frees this rank's inbox (every rank, after the last flush). */
void bcl_delegate_destroy(bcl_delegate *d);

/* n records for `owner`, into its inbox: *pushed 1, or 0 when they do not
 * fit (nothing written). */
static inline bcl_status bcl_delegate_push(const bcl_delegate *d, int owner,
                                           const void *recs, size_t n, int *pushed)
{
    return bcl_queue_push(&d->q[owner], recs, n, 0, pushed);
}

/* Up to n records out of this rank's own inbox (between the barriers of a
 * flush, when nobody pushes). */
static inline bcl_status bcl_delegate_pop(const bcl_delegate *d, void *recs, size_t n,
                                          size_t *got)
{
    return bcl_queue_local_pop(&d->q[bcl_rt.rank], recs, n, got);
}

#endif /* BCL_DELEGATE_H */
