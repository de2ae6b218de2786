/* bcl_key_order.c -- see bcl_key_order.h. */
#include "kernels/bcl_key_order.h"

#include <stdlib.h>

#include "serial/bcl_hash.h"

/* The map's hash of an 8-byte key (bcl_hm_hash: bcl_hash_u64 with seed 0).
 * Were the two to differ, the order would lose its locality, not its
 * correctness: it is only the order the caller asks the map in. */
static uint16_t top16(uint64_t key)
{
    return (uint16_t)(bcl_hash_u64(key, 0) >> 48);
}

#define GROUPS ((size_t)1 << 16)

bcl_status bcl_key_hash_sort(const uint64_t *keys, const uint64_t *vals, size_t n,
                             uint64_t *keys_out, uint64_t *vals_out, int64_t *order)
{
    /* One counting pass, the hash computed twice rather than stored: no
     * scratch the size of the input (fresh pages cost more than hashing). */
    size_t *pos = calloc(GROUPS, sizeof *pos);
    if (!pos)
        return bcl_set_error(BCL_ERR_NOMEM, "key order: no memory for its counts");
    for (size_t i = 0; i < n; i++)
        pos[top16(keys[i])]++;
    for (size_t g = 0, s = 0; g < GROUPS; g++) {
        size_t c = pos[g];
        pos[g] = s;
        s += c;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = pos[top16(keys[i])]++;
        keys_out[j] = keys[i];
        vals_out[j] = vals[i];
        order[j] = (int64_t)i;
    }
    free(pos);
    return BCL_OK;
}
