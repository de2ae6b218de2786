/* bcl_darray_buffer.c -- DArrayBuffer (see bcl_darray_buffer.h). */
#include "containers/bcl_darray_buffer.h"

#include <stdlib.h>
#include <string.h>

#define POP_CHUNK 8192u           /* records popped (copied out) at a time */

/* Records per owner queue when the caller leaves it to us: room for many
 * messages from every rank (at least 2^20 records, 16 MiB), within a
 * quarter of the segment (a full queue costs speed, never updates). */
static size_t default_queue_records(size_t message_size)
{
    size_t want = (size_t)1 << 20;
    size_t per_rank = message_size * 4;
    if (per_rank / 4 == message_size && per_rank <= SIZE_MAX / (size_t)bcl_rt.nprocs &&
        per_rank * (size_t)bcl_rt.nprocs > want)
        want = per_rank * (size_t)bcl_rt.nprocs;
    size_t cap = bcl_rt.segment_size / 4 / sizeof(bcl_dabuf_rec);
    if (want > cap)
        want = cap;
    return want < message_size ? message_size : want;
}

bcl_status bcl_dabuf_create(bcl_dabuf *b, const bcl_array *a, bcl_elem elem,
                            bcl_atomic_op op, size_t message_size, size_t queue_size)
{
    BCL_REQUIRE_INIT();
    if (queue_size == 0)
        queue_size = default_queue_records(message_size);
    memset(b, 0, sizeof *b);
    bcl_status st = bcl_array_usable(a);
    if (st == BCL_OK)
        st = bcl_accumulate_check(elem, op);
    if (st == BCL_OK && bcl_elem_size(elem) != a->elem_size)
        st = bcl_set_error(BCL_ERR_TYPE, "values of %zu bytes for elements of %zu bytes",
                           bcl_elem_size(elem), a->elem_size);
    if (st == BCL_OK && (message_size == 0 || queue_size < message_size))
        st = bcl_set_error(BCL_ERR_ARG, "message_size must be positive and at most "
                           "the queue size");
    int p = bcl_rt.nprocs;
    if (st == BCL_OK && message_size > SIZE_MAX / sizeof(bcl_dabuf_rec) / (size_t)p)
        st = bcl_set_error(BCL_ERR_NOMEM, "message_size %zu records for each of %d "
                           "ranks is more than any memory", message_size, p);
    b->a = a;
    b->elem = elem;
    b->op = op;
    b->self_cap = message_size;
    if (st == BCL_OK) {
        b->buf = calloc((size_t)p, sizeof *b->buf);
        b->count = calloc((size_t)p, sizeof *b->count);
        if (!b->buf || !b->count)
            st = bcl_set_error(BCL_ERR_NOMEM, "no memory for DArrayBuffer's buffers");
    }
    for (int r = 0; st == BCL_OK && r < p; r++)
        if (!(b->buf[r] = malloc(message_size * sizeof(bcl_dabuf_rec))))
            st = bcl_set_error(BCL_ERR_NOMEM, "no memory for DArrayBuffer's buffers");
    st = bcl_delegate_create(&b->d, "DArrayBuffer creation", st, queue_size, message_size,
                             sizeof(bcl_dabuf_rec));
    if (st != BCL_OK)
        bcl_dabuf_destroy(b);
    return st;
}

void bcl_dabuf_destroy(bcl_dabuf *b)
{
    bcl_delegate_destroy(&b->d);
    for (int r = 0; b->buf && r < bcl_rt.nprocs; r++)
        free(b->buf[r]);
    free(b->buf);
    free(b->count);
    memset(b, 0, sizeof *b);
}

/* Records applied with the atomic path (their owner's queue was full). */
static bcl_status direct(bcl_dabuf *b, const bcl_dabuf_rec *e, size_t n)
{
    size_t width = b->a->elem_size;
    uint64_t *idx = malloc(n * sizeof *idx + 1);
    unsigned char *val = malloc(n * width + 1);
    bcl_status st = idx && val ? BCL_OK
                               : bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu updates", n);
    for (size_t i = 0; st == BCL_OK && i < n; i++) {
        idx[i] = e[i].index;
        memcpy(val + i * width, &e[i].bits, width);
    }
    if (st == BCL_OK)
        st = bcl_array_update_many(b->a, idx, val, n, b->elem, b->op);
    free(idx);
    free(val);
    b->pushed_direct += n;
    return st;
}

/* One push_many of dest's buffer; refused: applied atomically now. */
static bcl_status push(bcl_dabuf *b, int dest)
{
    size_t n = b->count[dest];
    int pushed = 0;
    b->count[dest] = 0;
    if (!n)
        return BCL_OK;
    bcl_status st = bcl_delegate_push(&b->d, dest, b->buf[dest], n, &pushed);
    if (st == BCL_OK && !pushed)
        st = direct(b, b->buf[dest], n);
    return st;
}

static bcl_status grow_self(bcl_dabuf *b, int me)
{
    bcl_dabuf_rec *nb = realloc(b->buf[me], 2 * b->self_cap * sizeof *nb);
    if (!nb)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to buffer more updates");
    b->buf[me] = nb;
    b->self_cap *= 2;
    return BCL_OK;
}

bcl_status bcl_dabuf_add(bcl_dabuf *b, const uint64_t *idx, const void *values, size_t n)
{
    bcl_status st = bcl_array_usable(b->a);
    if (st != BCL_OK)
        return st;
    const bcl_array *a = b->a;
    if ((st = bcl_array_check_indices(a, idx, n)) != BCL_OK)
        return st;
    int me = bcl_rt.rank;
    size_t width = a->elem_size;
    const unsigned char *v = values;
    for (size_t i = 0; i < n; i++) {
        int dest = bcl_array_owner(a, idx[i]);
        if (dest == me && b->count[me] == b->self_cap && (st = grow_self(b, me)) != BCL_OK)
            return st;
        bcl_dabuf_rec *e = &b->buf[dest][b->count[dest]++];
        e->index = idx[i];
        e->bits = 0;
        memcpy(&e->bits, v + i * width, width);
        if (dest != me && b->count[dest] == b->d.message_size && (st = push(b, dest)) != BCL_OK)
            return st;
    }
    return BCL_OK;
}

/* Local phase: apply records to our own block with plain operations. */
static void apply(bcl_dabuf *b, const bcl_dabuf_rec *e, size_t n)
{
    const bcl_array *a = b->a;
    unsigned char *block = bcl_local_addr(bcl_gptr_make(bcl_rt.rank,
                                                        a->offsets[bcl_rt.rank]));
    uint64_t first = a->host >= 0 ? 0 : (uint64_t)bcl_rt.rank * a->block;
    for (size_t i = 0; i < n; i++)
        bcl_accumulate_local(block + (e[i].index - first) * a->elem_size, b->elem, b->op,
                             &e[i].bits);
}

static bcl_status drain_queue(bcl_dabuf *b)
{
    bcl_dabuf_rec *chunk = malloc((size_t)POP_CHUNK * sizeof *chunk);
    if (!chunk)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to drain the DArrayBuffer queue");
    bcl_status st;
    size_t got;
    do {
        got = 0;
        st = bcl_delegate_pop(&b->d, chunk, POP_CHUNK, &got);
        if (st == BCL_OK)
            apply(b, chunk, got);
    } while (st == BCL_OK && got == POP_CHUNK);
    free(chunk);
    return st;
}

static void keep_first(bcl_status *first, bcl_status st)
{
    if (*first == BCL_OK)
        *first = st;
}

/* The user's call, named when a peer has left instead (bcl_depart.h). */
#define FLUSH "DArrayBuffer.flush()"

bcl_status bcl_dabuf_flush(bcl_dabuf *b)
{
    int me = bcl_rt.rank;
    bcl_status err = bcl_array_usable(b->a), st;
    /* Every path runs both barriers and the agreement, so an error never
     * strands peers. */
    for (int r = 0; err == BCL_OK && r < bcl_rt.nprocs; r++)
        if (r != me)
            keep_first(&err, push(b, r));
    if ((st = bcl_barrier_named(FLUSH)) != BCL_OK)
        return st;
    /* Local phase: nobody pushes or updates until the next barrier. */
    if (err == BCL_OK)
        err = drain_queue(b);
    if (err == BCL_OK)
        apply(b, b->buf[me], b->count[me]);
    b->count[me] = 0;
    if ((st = bcl_barrier_named(FLUSH)) != BCL_OK)
        return st;
    uint64_t failed = err != BCL_OK;
    if ((st = bcl_allreduce_named(FLUSH, &failed, 1, BCL_U64, BCL_SUM)) != BCL_OK)
        return st;
    if (err != BCL_OK)
        return err;
    if (failed)
        return bcl_set_error(BCL_ERR_STATE, "DArrayBuffer.flush failed on %llu other "
                             "rank(s)", (unsigned long long)failed);
    return BCL_OK;
}
