/* bcl_queue_values.c -- queues of variable-length values: the queue stores
 * the values out of line and holds their references (see bcl_queue.h). */
#include "containers/bcl_queue.h"

#include <stdlib.h>

#include "containers/bcl_object.h"
#include "serial/bcl_msgpack.h"

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

/* The queue must hold references; room for n of them is `one` when n <= 1
 * (the common case), else the heap (refs_free gives it back). */
static bcl_status refs_get(const bcl_queue *q, const char *what, size_t n,
                           bcl_objref *one, bcl_objref **refs)
{
    if (q->slot_size != sizeof(bcl_objref))
        return bcl_set_error(BCL_ERR_TYPE, "variable-length values %s a queue of %zu-byte "
                             "elements", what, q->slot_size);
    *refs = n <= 1 ? one : malloc(n * sizeof **refs);
    if (!*refs)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu references", n);
    return BCL_OK;
}

static void refs_free(bcl_objref *refs, const bcl_objref *one)
{
    if (refs != one)
        free(refs);
}

bcl_status bcl_queue_push_values(bcl_queue *q, const void *bytes, const size_t *lens,
                                 size_t n, unsigned promise, int *pushed)
{
    *pushed = 0;
    bcl_objref one, *refs;
    bcl_status st = refs_get(q, "pushed to", n, &one, &refs);
    if (st != BCL_OK)
        return st;
    st = store_all(bytes, lens, n, refs);
    if (st == BCL_OK) {
        st = bcl_queue_push(q, refs, n, promise, pushed);
        if (st != BCL_OK || !*pushed)       /* nothing went in: free the values */
            release_refs(refs, n);
    }
    refs_free(refs, &one);
    return st;
}

/* Copy the popped values' bytes out, then release every block: the values
 * have left the queue, so one that cannot be read is lost either way and
 * must not stay allocated.  The first failure is the one returned. */
static bcl_status take_all(const bcl_objref *refs, size_t n, bcl_mp_writer *out,
                           size_t *lens)
{
    bcl_status first = BCL_OK;
    for (size_t i = 0; i < n; i++) {
        bcl_status st = bcl_mp_reserve(out, refs[i].len);
        if (st == BCL_OK)
            st = bcl_obj_load(refs[i], out->buf + out->len);
        lens[i] = st == BCL_OK ? refs[i].len : 0;
        out->len += lens[i];
        if (first == BCL_OK)
            first = st;
        st = bcl_obj_release(refs[i]);
        if (first == BCL_OK)
            first = st;
    }
    return first;
}

/* local: the host-only nonatomic pop, else bcl_queue_pop with `promise`. */
static bcl_status pop_values(bcl_queue *q, size_t n, unsigned promise, int local,
                             bcl_mp_writer *out, size_t *lens, size_t *popped)
{
    *popped = 0;
    bcl_objref one, *refs;
    bcl_status st = refs_get(q, "popped from", n, &one, &refs);
    if (st != BCL_OK)
        return st;
    st = local ? bcl_queue_local_pop(q, refs, n, popped)
               : bcl_queue_pop(q, refs, n, promise, popped);
    bcl_status taken = take_all(refs, *popped, out, lens);   /* even after an error */
    refs_free(refs, &one);
    return st != BCL_OK ? st : taken;
}

bcl_status bcl_queue_pop_values(bcl_queue *q, size_t n, unsigned promise,
                                bcl_mp_writer *out, size_t *lens, size_t *popped)
{
    return pop_values(q, n, promise, 0, out, lens, popped);
}

bcl_status bcl_queue_local_pop_values(bcl_queue *q, size_t n, bcl_mp_writer *out,
                                      size_t *lens, size_t *popped)
{
    return pop_values(q, n, 0, 1, out, lens, popped);
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
