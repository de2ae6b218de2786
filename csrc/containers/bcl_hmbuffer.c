/* bcl_hmbuffer.c -- HashMapBuffer (see bcl_hmbuffer.h). */
#include "containers/bcl_hmbuffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)
#define POP_CHUNK 8192u           /* entries popped (copied out) at a time */

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
    if (queue_size == 0 || message_size == 0 || queue_size > (size_t)INT64_MAX)
        return bcl_set_error(BCL_ERR_ARG, "queue_size and message_size must be positive");
    int p = bcl_rt.nprocs;
    b->m = m;
    b->queue_size = queue_size;
    b->message_size = message_size;
    b->stride = ALIGN8(m->key_size + m->val_size + 1);
    /* message_size entries of a wide key/value type (S1000000) could wrap
     * message_size * stride and under-allocate the buffers that are then
     * filled message_size entries deep. */
    if (message_size > SIZE_MAX / b->stride / (size_t)bcl_rt.nprocs)
        return bcl_set_error(BCL_ERR_NOMEM, "message_size %zu entries of %zu bytes for "
                             "each of %d ranks is more than any memory", message_size,
                             b->stride, bcl_rt.nprocs);
    b->self_cap = message_size;
    b->q = calloc((size_t)p, sizeof *b->q);
    b->buf = calloc((size_t)p, sizeof *b->buf);
    b->count = calloc((size_t)p, sizeof *b->count);
    uint64_t ok = b->q && b->buf && b->count;
    for (int r = 0; ok && r < p; r++)
        ok = (b->buf[r] = malloc(message_size * b->stride)) != NULL;
    /* Every rank must take part in the queue creations (collective): agree
     * first that everybody has its local memory. */
    bcl_status st = bcl_allreduce(&ok, 1, BCL_U64, BCL_MIN);
    if (st == BCL_OK && !ok)
        st = bcl_set_error(BCL_ERR_NOMEM, "no memory for HashMapBuffer's buffers "
                           "(message_size %zu entries of %zu bytes for each of %d ranks)",
                           message_size, b->stride, p);
    /* One FastQueue per rank, hosted there.  A failure is the same on every
     * rank (bcl_queue_create agrees), so all stop at the same queue. */
    for (int r = 0; st == BCL_OK && r < p; r++) {
        st = bcl_queue_create(&b->q[r], BCL_QUEUE_FAST, r, (int64_t)queue_size, b->stride);
        if (st == BCL_OK)
            b->nq++;
    }
    if (st == BCL_OK)
        return bcl_barrier();
    bcl_hmbuf_destroy(b);
    return st;
}

void bcl_hmbuf_destroy(bcl_hmbuf *b)
{
    for (int r = 0; r < b->nq; r++)
        bcl_queue_destroy(&b->q[r]);
    for (int r = 0; b->buf && r < bcl_rt.nprocs; r++)
        free(b->buf[r]);
    free(b->buf);
    free(b->q);
    free(b->count);
    free(b->kept.e);
    free(b->deferred.e);
    memset(b, 0, sizeof *b);
}

/* Append n entries to a waiting list. */
static bcl_status list_add(const bcl_hmbuf *b, bcl_hmbuf_list *l, const unsigned char *e,
                           size_t n)
{
    if (l->n + n > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        while (cap < l->n + n)
            cap *= 2;
        unsigned char *ne = realloc(l->e, cap * b->stride);
        if (!ne)
            return bcl_set_error(BCL_ERR_NOMEM, "no memory to keep %zu buffered entries "
                                 "for the next flush", l->n + n);
        l->e = ne;
        l->cap = cap;
    }
    memcpy(l->e + l->n * b->stride, e, n * b->stride);
    l->n += n;
    return BCL_OK;
}

/* One entry's outcome in the map (apply / direct): kept or counted. */
static bcl_status settle(bcl_hmbuf *b, const unsigned char *e, int outcome)
{
    if (outcome == BCL_HM_NOROOM)
        return list_add(b, &b->kept, e, 1);
    if (outcome == BCL_HM_OVERFLOW)
        b->n_overflow++;
    return BCL_OK;
}

/* Insert entries with the atomic protocol, pipelined (inserts, then
 * accumulates: the buffer promises no order until flush).  Entries that
 * find no room are kept, overflowing accumulates counted. */
static bcl_status direct(bcl_hmbuf *b, unsigned char *e, size_t n)
{
    const bcl_hashmap *m = b->m;
    unsigned char *k = malloc(n * m->key_size + 1), *v = malloc(n * m->val_size + 1);
    unsigned char *out = malloc(n + 1);
    bcl_status st = k && v && out ? BCL_OK
                                  : bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu entries", n);
    for (int acc = 0; acc < 2 && st == BCL_OK; acc++) {
        size_t c = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned char *x = e + i * b->stride;
            if (*op_byte(b, x) != acc)
                continue;
            memcpy(k + c * m->key_size, x, m->key_size);
            memcpy(v + c * m->val_size, x + m->key_size, m->val_size);
            c++;
        }
        if (c)
            st = bcl_hm_batch_outcome(m, acc, k, v, c, out);
        for (size_t i = 0, j = 0; st == BCL_OK && c && i < n; i++) {
            unsigned char *x = e + i * b->stride;
            if (*op_byte(b, x) == acc)
                st = settle(b, x, out[j++]);
        }
    }
    free(k);
    free(v);
    free(out);
    return st;
}

/* Insert a waiting list directly (entries that find no room again are
 * kept again). */
static bcl_status drain(bcl_hmbuf *b, bcl_hmbuf_list *l)
{
    bcl_hmbuf_list old = *l;
    memset(l, 0, sizeof *l);
    bcl_status st = old.n ? direct(b, old.e, old.n) : BCL_OK;
    free(old.e);
    return st;
}

/* One FastQueue push_many of dest's buffer; refused (the owner's queue is
 * full): the entries go in directly -- or, while some rank keeps entries a
 * full map refused, wait for the next flush, which inserts those first. */
static bcl_status push(bcl_hmbuf *b, int dest)
{
    size_t n = b->count[dest];
    int pushed = 0;
    b->count[dest] = 0;
    if (!n)
        return BCL_OK;
    bcl_status st = bcl_queue_push(&b->q[dest], b->buf[dest], n, 0, &pushed);
    if (st == BCL_OK && !pushed) {
        b->pushed_direct += n;
        st = b->kept_all ? list_add(b, &b->deferred, b->buf[dest], n)
                         : direct(b, b->buf[dest], n);
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
    b->n_added++;
    if (dest != bcl_rt.rank && b->count[dest] == b->message_size)
        return push(b, dest);
    return BCL_OK;
}

/* Local phase: apply entries with plain CPU inserts; keep spills aside. */
static bcl_status apply(bcl_hmbuf *b, unsigned char *e, size_t n, unsigned char **spill,
                        size_t *nspill, size_t *spill_cap)
{
    const bcl_hashmap *m = b->m;
    /* The table is MBs and the keys random: every entry is a cache miss.
     * Hash PF entries ahead and prefetch their home bucket. */
    enum { PF = 16 };
    uint64_t ring[PF];
    uint64_t first = (uint64_t)bcl_rt.rank * m->block;
    unsigned char *block = bcl_rt.local_base + m->base[bcl_rt.rank];
    for (size_t i = 0; i < n && i < PF; i++)
        ring[i] = bcl_hm_hash(e + i * b->stride, m->key_size);
    for (size_t i = 0; i < n; i++) {
        unsigned char *x = e + i * b->stride;
        bcl_hm_key k = { x, m->key_size, ring[i % PF] };
        if (i + PF < n) {
            uint64_t h = bcl_hm_hash(x + PF * b->stride, m->key_size);
            uint64_t home = (uint64_t)(((unsigned __int128)h * m->n) >> 64);
            ring[i % PF] = h;
            if (home - first < m->block)
                __builtin_prefetch(block + (home - first) * m->bsize, 1);
        }
        int spilled;
        bcl_status st = b->refusing ? BCL_ERR_FULL
                      : bcl_hm_apply_local(m, &k, x + m->key_size, *op_byte(b, x), &spilled);
        if (st == BCL_ERR_FULL && b->grow)
            b->refusing = 1;
        if (st == BCL_ERR_FULL || st == BCL_ERR_OVERFLOW) {
            /* Our block is full along the key's probes, or the sum overflows. */
            st = settle(b, x, st == BCL_ERR_FULL ? BCL_HM_NOROOM : BCL_HM_OVERFLOW);
            if (st != BCL_OK)
                return st;
            continue;
        }
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
        /* A block at most half full spills only the keys homed near its
         * end; spilling one entry in 16 means it is full. */
        if (b->grow && *nspill >= 64 && *nspill * 16 > b->n_local + i + 1)
            b->refusing = 1;
    }
    b->n_local += n;
    return BCL_OK;
}

static void keep_first(bcl_status *first, bcl_status st)
{
    if (*first == BCL_OK)
        *first = st;
}

/* What every rank learns at the end of a flush. */
static bcl_status agree(bcl_hmbuf *b, bcl_status err)
{
    uint64_t v[3] = { b->kept.n, b->n_overflow, err != BCL_OK };
    bcl_status st = bcl_allreduce(v, 3, BCL_U64, BCL_SUM);
    if (st != BCL_OK)
        return st;
    b->kept_all = v[0];
    if (err != BCL_OK)
        return err;               /* this rank's own message */
    if (v[2])
        return bcl_set_error(BCL_ERR_STATE, "HashMapBuffer.flush failed on %llu other "
                             "rank(s)", (unsigned long long)v[2]);
    if (v[0])
        return bcl_set_error(BCL_ERR_FULL, "hash map full: %llu buffered entries (%zu of "
                             "them from this rank) found no free bucket; they stay in "
                             "the buffer: resize() the map and flush() again%s",
                             (unsigned long long)v[0], b->kept.n,
                             v[1] ? " (and some accumulates overflowed)" : "");
    b->n_overflow = 0;            /* reported once */
    if (v[1])
        return bcl_set_error(BCL_ERR_OVERFLOW, "%llu buffered accumulates were not "
                             "applied: the sums overflow the %zu-byte integer value type",
                             (unsigned long long)v[1], b->m->val_size);
    return BCL_OK;
}

/* Move the entries this rank owns to the front of l; returns how many. */
static size_t own_first(const bcl_hmbuf *b, bcl_hmbuf_list *l, unsigned char *tmp)
{
    size_t nown = 0;
    for (size_t i = 0; i < l->n; i++) {
        unsigned char *x = l->e + i * b->stride;
        bcl_hm_key k = bcl_hm_key_make(x, b->m->key_size);
        if (bcl_hm_owner(b->m, &k) != bcl_rt.rank)
            continue;
        if (i != nown) {
            unsigned char *y = l->e + nown * b->stride;
            memcpy(tmp, y, b->stride);
            memcpy(y, x, b->stride);
            memcpy(x, tmp, b->stride);
        }
        nown++;
    }
    return nown;
}

/* The entries a full map refused last time go in first, on every rank.
 * Nearly all are this rank's own (its local phase refused them once its
 * block filled): after the resize that made room they go in with plain CPU
 * inserts, in a local phase of their own between two barriers (every rank
 * touches only its own block there), not one atomic insert each.  What
 * spills and the entries owned elsewhere then go in atomically.  The
 * barrier return is the flush's to return; *err collects the rest. */
static bcl_status retry_kept(bcl_hmbuf *b, bcl_status *err)
{
    bcl_hmbuf_list old = b->kept;
    memset(&b->kept, 0, sizeof b->kept);
    unsigned char *tmp = malloc(b->stride);   /* a key can be MBs (S<n>) */
    if (!tmp)
        *err = bcl_set_error(BCL_ERR_NOMEM, "no memory to sort the kept entries");
    size_t nown = tmp ? own_first(b, &old, tmp) : 0;
    free(tmp);
    unsigned char *spill = NULL;
    size_t nspill = 0, cap = 0;
    b->refusing = 0;
    b->n_local = 0;
    bcl_status st = bcl_barrier();
    if (st == BCL_OK && nown && *err == BCL_OK)
        *err = apply(b, old.e, nown, &spill, &nspill, &cap);
    if (st == BCL_OK)
        st = bcl_barrier();
    if (st == BCL_OK && *err == BCL_OK && nspill)
        *err = b->refusing ? list_add(b, &b->kept, spill, nspill) : direct(b, spill, nspill);
    if (st == BCL_OK && *err == BCL_OK && old.n > nown)
        *err = direct(b, old.e + nown * b->stride, old.n - nown);
    free(spill);
    free(old.e);
    b->refusing = 0;
    b->n_local = 0;
    if (st == BCL_OK)
        st = bcl_barrier();
    return st;
}

void bcl_hmbuf_set_grow(bcl_hmbuf *b, int grow)
{
    b->grow = grow != 0;
}

uint64_t bcl_hmbuf_pending(const bcl_hmbuf *b)
{
    return b->n_added + b->kept.n;
}

bcl_status bcl_hmbuf_flush(bcl_hmbuf *b)
{
    int me = bcl_rt.rank;
    bcl_status err = BCL_OK, st;
    b->n_added = 0;           /* from here on they are applied or kept */
    b->refusing = 0;
    b->n_local = 0;
    /* Entries a full map refused last time go first, on every rank, then a
     * barrier: everything buffered since (the deferred pushes, the queues,
     * our own entries) lands after them.  kept_all is the same everywhere. */
    if (b->kept_all) {
        if ((st = retry_kept(b, &err)) != BCL_OK)
            return st;
        keep_first(&err, drain(b, &b->deferred));
        b->kept_all = 0;
    }
    /* Every path runs all barriers and the agreement, so an error never
     * strands peers. */
    for (int r = 0; r < bcl_rt.nprocs; r++)
        if (r != me)
            keep_first(&err, push(b, r));
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    /* Local phase: nobody pushes until the next barrier. */
    unsigned char *spill = NULL, *chunk = NULL;
    size_t nspill = 0, cap = 0, got = 0;
    if (err == BCL_OK && !(chunk = malloc((size_t)POP_CHUNK * b->stride)))
        err = bcl_set_error(BCL_ERR_NOMEM, "no memory to drain the HashMapBuffer queue");
    do {
        got = 0;
        if (err == BCL_OK)
            err = bcl_queue_local_pop(&b->q[me], chunk, POP_CHUNK, &got);
        if (err == BCL_OK && got)
            err = apply(b, chunk, got, &spill, &nspill, &cap);
    } while (err == BCL_OK && got == POP_CHUNK);
    free(chunk);
    if (err == BCL_OK)
        err = apply(b, b->buf[me], b->count[me], &spill, &nspill, &cap);
    b->count[me] = 0;
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    if (nspill && err == BCL_OK)
        err = b->refusing ? list_add(b, &b->kept, spill, nspill)   /* grow: resized first */
                          : direct(b, spill, nspill);
    free(spill);
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    return agree(b, err);
}
