/*
 * bcl_key_order.h -- uint64 keys in the order of their home buckets in a
 * pybcl hash map of 8-byte keys, whatever its size.
 *
 * A map's home bucket of a key is (hash * buckets) >> 64 and its owner
 * follows the home, so both rise with the hash.  A large batch of lookups
 * or updates taken in hash order sweeps the table from one end to the
 * other: consecutive keys fall on the same page and often the same cache
 * line.  In random order almost every key pays a TLB miss (a page walk,
 * dearer still under a hypervisor) and a cache miss, and a software
 * prefetch waits for the walk.
 */
#ifndef BCL_KEY_ORDER_H
#define BCL_KEY_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"
#include "serial/bcl_hash.h"

/* The top `bits` (1..16) bits of an 8-byte key's map hash (bcl_hm_hash:
 * bcl_hash_u64 with seed 0): its group in hash order.  Were the two hashes
 * to differ, the order would lose its locality, not its correctness: it is
 * only the order the caller asks the map in. */
static inline unsigned bcl_key_hash_group(uint64_t key, int bits)
{
    return (unsigned)(bcl_hash_u64(key, 0) >> (64 - bits));
}

/* Groups of a batch's hash order: 2^12, about 4 pages each in a map of a
 * few hundred MiB -- consecutive lookups stay on pages the TLB holds and
 * lines the cache holds, while a counting sort's 4096 write streams stay
 * in the cache. */
#define BCL_KEY_ORDER_BITS 12

/* A counting sort's group sizes count[0..groups) -> each group's first
 * place (exclusive prefix sums), in place. */
void bcl_key_groups_start(size_t *count, size_t groups);

/* keys_out, vals_out: keys and their values (vals[i] goes with keys[i])
 * by the top BCL_KEY_ORDER_BITS bits of the keys' map hash, ties in index
 * order (stable). */
bcl_status bcl_key_hash_sort(const uint64_t *keys, const uint64_t *vals, size_t n,
                             uint64_t *keys_out, uint64_t *vals_out);

#endif /* BCL_KEY_ORDER_H */
