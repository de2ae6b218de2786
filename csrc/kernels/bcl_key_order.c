/* bcl_key_order.c -- see bcl_key_order.h. */
#include "kernels/bcl_key_order.h"

#include <stdlib.h>

void bcl_key_groups_start(size_t *count, size_t groups)
{
    for (size_t g = 0, s = 0; g < groups; g++) {
        size_t c = count[g];
        count[g] = s;
        s += c;
    }
}

bcl_status bcl_key_hash_sort(const uint64_t *keys, const uint64_t *vals, size_t n,
                             uint64_t *keys_out, uint64_t *vals_out)
{
    /* One counting pass, the hash computed twice rather than stored: no
     * scratch the size of the input (fresh pages cost more than hashing). */
    size_t groups = (size_t)1 << BCL_KEY_ORDER_BITS;
    size_t *pos = calloc(groups, sizeof *pos);
    if (!pos)
        return bcl_set_error(BCL_ERR_NOMEM, "key order: no memory for its counts");
    for (size_t i = 0; i < n; i++)
        pos[bcl_key_hash_group(keys[i], BCL_KEY_ORDER_BITS)]++;
    bcl_key_groups_start(pos, groups);
    for (size_t i = 0; i < n; i++) {
        size_t j = pos[bcl_key_hash_group(keys[i], BCL_KEY_ORDER_BITS)]++;
        keys_out[j] = keys[i];
        vals_out[j] = vals[i];
    }
    free(pos);
    return BCL_OK;
}
