/*
 * bcl_array_update.h -- batched atomic updates of array elements by index
 * (DArray.update_many / Array.update_many).
 *
 * n (index, value) pairs are applied with one atomic op each, grouped by
 * owner: updates of one element within the call are first combined into
 * one (add: summed, or/and/xor/min/max: folded, replace: the last one wins --
 * the same result as applying them one by one in some order), then each owner
 * gets ONE bcl_accumulate_indexed_nb over all of its elements, and the call
 * returns once every update is complete at its owner.  Concurrent updates
 * of the same element from other ranks (update_many, the atomics of
 * bcl_comm.h on 4/8-byte words) are never lost.
 */
#ifndef BCL_ARRAY_UPDATE_H
#define BCL_ARRAY_UPDATE_H

#include "comm/bcl_comm_accum.h"
#include "containers/bcl_array.h"

/* `elem` describes the array's elements (its size must be a->elem_size);
 * `values` holds n elements of that type.  BCL_ERR_BOUNDS (naming the
 * position) if an index is >= a->size; nothing is applied then. */
bcl_status bcl_array_update_many(const bcl_array *a, const uint64_t *idx,
                                 const void *values, size_t n, bcl_elem elem,
                                 bcl_atomic_op op);

/* Segment offset of element i at its owner (i < a->size, checked by the
 * caller); the owner is bcl_array_owner(a, i). */
uint64_t bcl_array_elem_offset(const bcl_array *a, uint64_t i);

/* One posted atomic `op` (bcl_atomic_post) of `operand` on element i of an
 * array of 4- or 8-byte integers: complete at its owner after the next
 * flush.  BCL_ERR_BOUNDS if i >= a->size. */
bcl_status bcl_array_post(const bcl_array *a, uint64_t i, bcl_atomic_op op,
                          uint64_t operand);

/* BCL_OK iff every idx[i] (i < n) is an element of the array; else
 * BCL_ERR_BOUNDS naming the first one outside. */
bcl_status bcl_array_check_indices(const bcl_array *a, const uint64_t *idx, size_t n);

#endif /* BCL_ARRAY_UPDATE_H */
