/* bcl_hmbuffer.c -- HashMapBuffer (see bcl_hmbuffer.h). */
#include "bcl_hmbuffer.h"

#include <stdlib.h>
#include <string.h>

#include "bcl_alloc.h"

#define QHEAD 64u                 /* tail word, then the entries */
#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

static unsigned char *op_byte(const bcl_hmbuf *b, unsigned char *e)
{
    return e + b->m->key_size + b->m->val_size;
}

bcl_status bcl_hmbuf_create(bcl_hmbuf *b, const bcl_hashmap *m, size_t queue_size,
                            size_t message_size)
{
    BCL_REQUIRE_INIT();
    memset(b, 0, sizeof *b);
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "HashMapBuffer needs fixed-size key and value "
                             "types");
    if (queue_size == 0 || message_size == 0)
        return bcl_set_error(BCL_ERR_ARG, "queue_size and message_size must be positive");
    int p = bcl_rt.nprocs;
    b->m = m;
    b->queue_size = queue_size;
    b->message_size = message_size;
    b->stride = ALIGN8(m->key_size + m->val_size + 1);
    b->self_cap = message_size;
    b->qbase = calloc((size_t)p, sizeof *b->qbase);
    b->buf = calloc((size_t)p, sizeof *b->buf);
    b->count = calloc((size_t)p, sizeof *b->count);
    int ok = b->qbase && b->buf && b->count;
    for (int r = 0; ok && r < p; r++)
        ok = (b->buf[r] = malloc(message_size * b->stride)) != NULL;
    uint64_t off = 0;
    if (ok && bcl_alloc(QHEAD + queue_size * b->stride, 64, &off) == BCL_OK)
        memset(bcl_rt.local_base + off, 0, QHEAD);
    if (b->qbase)
        b->qbase[bcl_rt.rank] = off;
    uint64_t flag = off != 0;
    bcl_status st = bcl_allreduce(&flag, 1, BCL_U64, BCL_MIN);
    if (st == BCL_OK && flag)
        st = bcl_allreduce(b->qbase, (size_t)p, BCL_U64, BCL_MAX);
    if (st == BCL_OK && flag)
        return bcl_barrier();
    if (off)
        bcl_free(off);
    bcl_hmbuf_destroy(b);
    return st != BCL_OK ? st : bcl_set_error(BCL_ERR_SEGFULL, "a HashMapBuffer queue of "
                                             "%zu entries does not fit in some rank's "
                                             "segment", queue_size);
}

void bcl_hmbuf_destroy(bcl_hmbuf *b)
{
    if (b->qbase && b->qbase[bcl_rt.rank] && bcl_rt.initialized)
        bcl_free(b->qbase[bcl_rt.rank]);
    for (int r = 0; b->buf && r < bcl_rt.nprocs; r++)
        free(b->buf[r]);
    free(b->buf);
    free(b->qbase);
    free(b->count);
    memset(b, 0, sizeof *b);
}

/* Insert entries with the atomic protocol, pipelined (inserts, then
 * accumulates: the buffer promises no order until flush). */
static bcl_status direct(bcl_hmbuf *b, unsigned char *e, size_t n)
{
    const bcl_hashmap *m = b->m;
    unsigned char *k = malloc(n * m->key_size + 1), *v = malloc(n * m->val_size + 1);
    bcl_status st = k && v ? BCL_OK
                           : bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu entries", n);
    for (int acc = 0; acc < 2 && st == BCL_OK; acc++) {
        size_t c = 0, full = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned char *x = e + i * b->stride;
            if (*op_byte(b, x) != acc)
                continue;
            memcpy(k + c * m->key_size, x, m->key_size);
            memcpy(v + c * m->val_size, x + m->key_size, m->val_size);
            c++;
        }
        if (c)
            st = acc ? bcl_hm_accumulate_many(m, k, v, c, &full)
                     : bcl_hm_insert_many(m, k, v, c, &full);
        if (st == BCL_OK && full)
            st = bcl_set_error(BCL_ERR_FULL, "hash map full: %zu buffered entries found "
                               "no free bucket", full);
    }
    free(k);
    free(v);
    return st;
}

/* One FastQueue push of dest's buffer; what does not fit goes in directly. */
static bcl_status push(bcl_hmbuf *b, int dest)
{
    size_t n = b->count[dest], fits = 0;
    uint64_t old;
    b->count[dest] = 0;
    if (!n)
        return BCL_OK;
    bcl_status st = bcl_fetch_op(bcl_gptr_make(dest, b->qbase[dest]), 8, BCL_OP_ADD, n, &old);
    if (st != BCL_OK)
        return st;
    if (old < b->queue_size)
        fits = n < b->queue_size - old ? n : (size_t)(b->queue_size - old);
    /* Complete at the next flush (the barrier of flush() at the latest). */
    if (fits)
        st = bcl_put_detached(bcl_gptr_make(dest, b->qbase[dest] + QHEAD + old * b->stride),
                              b->buf[dest], fits * b->stride);
    if (st == BCL_OK && fits < n) {
        b->pushed_direct += n - fits;
        st = direct(b, b->buf[dest] + fits * b->stride, n - fits);
    }
    return st;
}

bcl_status bcl_hmbuf_add(bcl_hmbuf *b, const void *key, const void *val, int accumulate)
{
    const bcl_hashmap *m = b->m;
    bcl_hm_key k = bcl_hm_key_make(key, m->key_size);
    int dest = bcl_hm_owner(m, &k);
    if (dest == bcl_rt.rank && b->count[dest] == b->self_cap) {
        /* Our own entries wait for flush() without a queue: grow. */
        unsigned char *nb = realloc(b->buf[dest], 2 * b->self_cap * b->stride);
        if (!nb)
            return bcl_set_error(BCL_ERR_NOMEM, "no memory to buffer more entries");
        b->buf[dest] = nb;
        b->self_cap *= 2;
    }
    unsigned char *e = b->buf[dest] + b->count[dest]++ * b->stride;
    memcpy(e, key, m->key_size);
    memcpy(e + m->key_size, val, m->val_size);
    *op_byte(b, e) = (unsigned char)(accumulate != 0);
    if (dest != bcl_rt.rank && b->count[dest] == b->message_size)
        return push(b, dest);
    return BCL_OK;
}

/* Local phase: apply entries with plain CPU inserts; keep spills aside. */
static bcl_status apply(bcl_hmbuf *b, unsigned char *e, size_t n, unsigned char **spill,
                        size_t *nspill, size_t *spill_cap)
{
    const bcl_hashmap *m = b->m;
    for (size_t i = 0; i < n; i++) {
        unsigned char *x = e + i * b->stride;
        bcl_hm_key k = bcl_hm_key_make(x, m->key_size);
        int spilled;
        bcl_status st = bcl_hm_apply_local(m, &k, x + m->key_size, *op_byte(b, x), &spilled);
        if (st != BCL_OK)
            return st;
        if (!spilled)
            continue;
        if (*nspill == *spill_cap) {
            size_t cap = *spill_cap ? 2 * *spill_cap : 64;
            unsigned char *ns = realloc(*spill, cap * b->stride);
            if (!ns)
                return bcl_set_error(BCL_ERR_NOMEM, "no memory for spilled entries");
            *spill = ns;
            *spill_cap = cap;
        }
        memcpy(*spill + (*nspill)++ * b->stride, x, b->stride);
    }
    return BCL_OK;
}

static void keep_first(bcl_status *first, bcl_status st)
{
    if (*first == BCL_OK)
        *first = st;
}

bcl_status bcl_hmbuf_flush(bcl_hmbuf *b)
{
    int me = bcl_rt.rank;
    bcl_status err = BCL_OK, st;
    /* Every path runs all three barriers, so an error never strands peers. */
    for (int r = 0; r < bcl_rt.nprocs; r++)
        if (r != me)
            keep_first(&err, push(b, r));
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    unsigned char *q = bcl_rt.local_base + b->qbase[me], *spill = NULL;
    uint64_t tail;
    memcpy(&tail, q, sizeof tail);
    size_t n = tail < b->queue_size ? (size_t)tail : b->queue_size, nspill = 0, cap = 0;
    if (err == BCL_OK)
        err = apply(b, q + QHEAD, n, &spill, &nspill, &cap);
    if (err == BCL_OK)
        err = apply(b, b->buf[me], b->count[me], &spill, &nspill, &cap);
    b->count[me] = 0;
    memset(q, 0, sizeof tail);             /* nobody pushes until we return */
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    if (nspill && err == BCL_OK)
        err = direct(b, spill, nspill);
    free(spill);
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    return err;
}
