/* bcl_queue_values.c -- queues of variable-length values: the queue stores
 * the values out of line and holds their references (see bcl_queue.h). */
#include "containers/bcl_queue.h"

#include <stdlib.h>

#include "containers/bcl_object.h"

static void release_refs(const bcl_objref *refs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bcl_obj_release(refs[i]);
}

/* Store each value out of line; on failure the ones stored are given back. */
static bcl_status store_all(const unsigned char *bytes, const size_t *lens, size_t n,
                            bcl_objref *refs)
{
    for (size_t i = 0; i < n; i++) {
        bcl_status st = bcl_obj_store(bytes, lens[i], &refs[i]);
        if (st != BCL_OK) {
            release_refs(refs, i);
            return st;
        }
        bytes += lens[i];
    }
    return BCL_OK;
}

bcl_status bcl_queue_push_values(bcl_queue *q, const void *bytes, const size_t *lens,
                                 size_t n, unsigned promise, int *pushed)
{
    *pushed = 0;
    if (q->slot_size != sizeof(bcl_objref))
        return bcl_set_error(BCL_ERR_TYPE, "variable-length values pushed to a queue of "
                             "%zu-byte elements", q->slot_size);
    bcl_objref one = { 0, 0, 0 }, *refs = n <= 1 ? &one : malloc(n * sizeof *refs);
    if (!refs)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu references", n);
    bcl_status st = store_all(bytes, lens, n, refs);
    if (st == BCL_OK) {
        st = bcl_queue_push(q, refs, n, promise, pushed);
        if (st != BCL_OK || !*pushed)       /* nothing went in: free the values */
            release_refs(refs, n);
    }
    if (refs != &one)
        free(refs);
    return st;
}

void bcl_queue_release_values(bcl_queue *q)
{
    if (q->host != bcl_rt.rank || q->slot_size != sizeof(bcl_objref))
        return;
    bcl_objref ref;
    size_t got = 1;
    while (bcl_queue_local_pop(q, &ref, 1, &got) == BCL_OK && got)
        bcl_obj_release(ref);
}
