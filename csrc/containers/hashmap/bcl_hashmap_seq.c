/* bcl_hashmap_seq.c -- batches key by key (bcl_hashmap.h): the scalar
 * protocol over keys of any type laid out back to back, for the batches the
 * pipelined engine does not take (variable-length keys or values, erase). */
#include "containers/hashmap/bcl_hashmap_internal.h"

static bcl_hm_key key_at(const bcl_hashmap *m, const void *keys, const size_t *koff,
                         size_t i)
{
    size_t len;
    const unsigned char *k = bcl_hm_batch_key(m->key_size, keys, koff, i, &len);
    return bcl_hm_key_make(k, len);
}

bcl_status bcl_hm_erase_many(const bcl_hashmap *m, const void *keys, const size_t *koff,
                             size_t k, unsigned char *found)
{
    if (!koff && m->key_var)
        return bcl_set_error(BCL_ERR_TYPE, "erase_many of an array needs a fixed-size "
                             "key type");
    if (!koff)
        return bcl_hm_erase_fixed(m, keys, k, found);
    bcl_status st = BCL_OK;
    for (size_t i = 0; i < k && st == BCL_OK; i++) {
        bcl_hm_key key = key_at(m, keys, koff, i);
        int f = 0;
        st = bcl_hm_erase(m, &key, &f);
        found[i] = (unsigned char)f;
    }
    return st;
}

bcl_status bcl_hm_insert_seq(const bcl_hashmap *m, const void *keys, const size_t *koff,
                             const void *vals, const size_t *voff, size_t k, size_t *stored)
{
    const unsigned char *v = vals;
    bcl_status st = BCL_OK;
    for (*stored = 0; *stored < k; ++*stored) {
        size_t i = *stored;
        bcl_hm_key key = key_at(m, keys, koff, i);
        if ((st = bcl_hm_insert(m, &key, v + voff[i], voff[i + 1] - voff[i], 0)) != BCL_OK)
            break;
    }
    return st;
}

bcl_status bcl_hm_find_seq(const bcl_hashmap *m, const void *keys, const size_t *koff,
                           size_t k, int promise, bcl_mp_writer *out, size_t *voff,
                           unsigned char *found)
{
    bcl_status st = BCL_OK;
    voff[0] = out->len;
    for (size_t i = 0; i < k && st == BCL_OK; i++) {
        bcl_hm_key key = key_at(m, keys, koff, i);
        int f = 0;
        st = bcl_hm_find(m, &key, out, &f, promise);
        found[i] = (unsigned char)f;
        voff[i + 1] = out->len;
    }
    return st;
}

bcl_status bcl_hm_accumulate_seq(const bcl_hashmap *m, const void *keys, const size_t *koff,
                                 size_t k, const void *deltas, size_t dstep)
{
    const unsigned char *d = deltas;
    bcl_status st = BCL_OK;
    for (size_t i = 0; i < k && st == BCL_OK; i++) {
        bcl_hm_key key = key_at(m, keys, koff, i);
        st = bcl_hm_accumulate(m, &key, d + i * dstep);
    }
    return st;
}
