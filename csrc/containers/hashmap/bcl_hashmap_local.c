/* bcl_hashmap_local.c -- one entry into this rank's own block of a map of
 * the classic layout with plain loads and stores (bcl_hm_apply_local's rule,
 * bcl_hashmap.h).  Apart from bcl_hashmap.c, which chooses the layout, so
 * that the compact layout's own-block code (a side map is classic) can call
 * it without depending on the file that calls it. */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <string.h>

/* No other rank writes these buckets (the promise, or the buffer's flush),
 * so the first tombstone is reused once the key is known absent. */
bcl_status bcl_hm_classic_apply_local(const bcl_hashmap *m, const bcl_hm_key *k,
                                      const void *val, int accumulate, int *spilled)
{
    bcl_hm_local_walk w = bcl_hm_local_walk_of(m, k->hash);
    *spilled = 1;
    while (bcl_hm_local_next(m, &w, "local insert met a bucket being written by another "
                             "rank: the local promise was broken")) {
        if (!bcl_hm_same_key(w.b + 8, k->bytes, m->key_size))
            continue;
        *spilled = 0;
        if (!accumulate)
            bcl_hm_copy_slot(w.b + m->val_off, val, m->val_size);
        else if (bcl_hm_num_add(m, w.b + m->val_off, val))
            return bcl_hm_overflow_error(m, val);
        return BCL_OK;
    }
    if (w.st == BCL_OK && w.b) {
        bcl_hm_local_store(m, w.b, k, val);
        *spilled = 0;
    }
    return w.st;
}
