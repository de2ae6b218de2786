/* bcl_queue_values.c -- elements as bytes: a queue of variable-length values
 * stores them out of line and holds their references; a fixed-size queue
 * moves its slots as they are (see bcl_queue.h). */
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

/* Room for n references: `one` when n <= 1 (the common case), else the
 * heap (refs_free gives it back). */
static bcl_status refs_get(size_t n, bcl_objref *one, bcl_objref **refs)
{
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

bcl_status bcl_queue_push_elems(bcl_queue *q, const void *bytes, const size_t *lens,
                                size_t n, unsigned promise, int *pushed)
{
    if (!q->values)
        return bcl_queue_push(q, bytes, n, promise, pushed);
    *pushed = 0;
    bcl_objref one = {0}, *refs;      /* n == 0 reads none of it */
    bcl_status st = refs_get(n, &one, &refs);
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
static bcl_status pop_slots(bcl_queue *q, size_t n, unsigned promise, int local, void *dst,
                            size_t *popped)
{
    return local ? bcl_queue_local_pop(q, dst, n, popped)
                 : bcl_queue_pop(q, dst, n, promise, popped);
}

/* A fixed-size queue's slots straight into `out`. */
static bcl_status pop_fixed(bcl_queue *q, size_t n, unsigned promise, int local,
                            bcl_mp_writer *out, size_t *lens, size_t *popped)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, q->slot_size, &bytes))
        return bcl_set_error(BCL_ERR_NOMEM, "%zu elements of %zu bytes", n, q->slot_size);
    bcl_status st = bcl_mp_reserve(out, bytes);
    if (st == BCL_OK)
        st = pop_slots(q, n, promise, local, out->buf + out->len, popped);
    for (size_t i = 0; i < *popped; i++)
        lens[i] = q->slot_size;
    out->len += *popped * q->slot_size;
    return st;
}

bcl_status bcl_queue_pop_elems(bcl_queue *q, size_t n, unsigned promise, int local,
                               bcl_mp_writer *out, size_t *lens, size_t *popped)
{
    *popped = 0;
    if (!q->values)
        return pop_fixed(q, n, promise, local, out, lens, popped);
    bcl_objref one = {0}, *refs;      /* n == 0 reads none of it */
    bcl_status st = refs_get(n, &one, &refs);
    if (st != BCL_OK)
        return st;
    st = pop_slots(q, n, promise, local, refs, popped);
    bcl_status taken = take_all(refs, *popped, out, lens);   /* even after an error */
    refs_free(refs, &one);
    return st != BCL_OK ? st : taken;
}
