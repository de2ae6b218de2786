/* bcl_delegate.c -- the inboxes of the aggregating buffers (bcl_delegate.h). */
#include "containers/bcl_delegate.h"

#include <stdlib.h>
#include <string.h>

bcl_status bcl_delegate_create(bcl_delegate *d, const char *what, bcl_status local,
                               size_t queue_size, size_t message_size, size_t rec_size)
{
    memset(d, 0, sizeof *d);
    d->queue_size = queue_size;
    d->message_size = message_size;
    d->rec_size = rec_size;
    if (local == BCL_OK && queue_size > (size_t)INT64_MAX / (rec_size ? rec_size : 1))
        local = bcl_set_error(BCL_ERR_ARG, "%s: queue_size %zu is more than any segment",
                              what, queue_size);
    if (local == BCL_OK && !(d->q = calloc((size_t)bcl_rt.nprocs, sizeof *d->q)))
        local = bcl_set_error(BCL_ERR_NOMEM, "no memory for %s's queues", what);
    /* Every rank must take part in the queue creations (collective): agree
     * first that everybody got this far. */
    uint64_t all = local == BCL_OK;
    bcl_status st = bcl_allreduce(&all, 1, BCL_U64, BCL_MIN);
    if (st == BCL_OK)
        st = local;
    if (st == BCL_OK && !all)
        st = bcl_set_error(BCL_ERR_ARG, "%s failed on another rank", what);
    if (st == BCL_OK)
        st = bcl_queue_per_rank(d->q, (int64_t)queue_size, rec_size, &d->nq);
    if (st != BCL_OK)
        bcl_delegate_destroy(d);
    return st;
}

void bcl_delegate_destroy(bcl_delegate *d)
{
    bcl_queue_destroy_n(d->q, d->nq);
    free(d->q);
    memset(d, 0, sizeof *d);
}
