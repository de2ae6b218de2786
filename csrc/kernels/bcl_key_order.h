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

/* keys_out, vals_out: keys and their values (vals[i] goes with keys[i])
 * by the top 16 bits of the keys' map hash, ties in index order (stable);
 * order[j]: the index in keys of keys_out[j].  2^16 groups: in a map of up
 * to a few GiB a group spans a page or two. */
bcl_status bcl_key_hash_sort(const uint64_t *keys, const uint64_t *vals, size_t n,
                             uint64_t *keys_out, uint64_t *vals_out, int64_t *order);

#endif /* BCL_KEY_ORDER_H */
