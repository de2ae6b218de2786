/* bcl_hashmap_buffer.c -- HashMapBuffer's one interface (bcl_hashmap_buffer.h). */
#include "containers/hashmap/bcl_hashmap_buffer.h"

#include <string.h>

/* Buffers created so far on this rank: creation is collective, so the count
 * names a buffer alike on every rank. */
static uint64_t created;

bcl_status bcl_hm_buffer_create(bcl_hm_buffer *b, bcl_hashmap *m, size_t queue_size,
                                size_t message_size, int grow)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->queue_size = queue_size;
    b->message_size = message_size;
    b->grow = grow != 0;
    b->var = m->key_var || m->val_var;
    bcl_status st = b->var ? bcl_hmvbuf_create(&b->u.v, m, queue_size, message_size)
                           : bcl_hmbuf_create(&b->u.f, m, queue_size, message_size);
    if (st == BCL_OK)
        b->id = ++created;
    if (b->var)
        b->u.v.grow = b->grow;
    else
        b->u.f.grow = b->grow;
    return st;
}

void bcl_hm_buffer_destroy(bcl_hm_buffer *b, int storage)
{
    if (b->var) {
        bcl_hmvbuf_destroy(&b->u.v);          /* all of it private */
        return;
    }
    if (!storage)
        b->u.f.d.nq = 0;                      /* leave the inboxes alone */
    bcl_hmbuf_destroy(&b->u.f);
}

bcl_status bcl_hm_buffer_add(bcl_hm_buffer *b, const void *key, size_t klen,
                             const void *val, size_t vlen, int accumulate)
{
    if (b->var)
        return bcl_hmvbuf_add(&b->u.v, key, klen, val, vlen, accumulate);
    return bcl_hmbuf_add(&b->u.f, key, val, accumulate);
}

bcl_status bcl_hm_buffer_add_many(bcl_hm_buffer *b, const unsigned char *keys,
                                  const size_t *koff, size_t n, const unsigned char *vals,
                                  const size_t *voff, size_t vstep, int accumulate)
{
    if (b->var)
        return bcl_hmvbuf_add_many(&b->u.v, keys, koff, n, vals, voff, vstep,
                                   b->m->val_size, accumulate);
    return bcl_hmbuf_add_many(&b->u.f, keys, vals, vstep, n, accumulate);
}

uint64_t bcl_hm_buffer_pending(const bcl_hm_buffer *b)
{
    return b->var ? bcl_hmvbuf_pending(&b->u.v) : bcl_hmbuf_pending(&b->u.f);
}

uint64_t bcl_hm_buffer_waited(const bcl_hm_buffer *b)
{
    return b->var ? 0 : b->u.f.waited;
}

uint64_t bcl_hm_buffer_digest(const bcl_hm_buffer *b)
{
    return b->id;
}

bcl_status bcl_hm_buffer_flush(bcl_hm_buffer *b)
{
    for (;;) {
        bcl_status st = b->var ? bcl_hmvbuf_flush(&b->u.v) : bcl_hmbuf_flush(&b->u.f);
        /* BCL_ERR_FULL is the same on every rank (bcl_hm_flush_agree): all
         * grow, or none. */
        if (st != BCL_ERR_FULL || !b->grow)
            return st;
        bcl_status err = BCL_OK;
        if ((st = bcl_hm_grow_past(b->m, bcl_hm_buffer_pending(b), &err)) != BCL_OK)
            return st;
        if (err != BCL_OK)
            return err;                       /* the segments cannot hold it */
    }
}
