/*
 * bcl_indexed.h -- what the indexed calls (bcl_comm_batch, bcl_comm_accum)
 * share: the checks of their offsets, and the target datatype that lets one
 * MPI call reach n elements of one rank.
 */
#ifndef BCL_INDEXED_H
#define BCL_INDEXED_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"

/* Every offset inside `rank`'s segment and aligned to `width` bytes. */
bcl_status bcl_indexed_check(int rank, const uint64_t *offsets, size_t n, size_t width);

/* A committed hindexed-block datatype of n `elem`s at `offsets` (n <= INT_MAX).
 * The caller frees it right after issuing: a pending operation keeps what it
 * needs. */
bcl_status bcl_indexed_type(const uint64_t *offsets, size_t n, MPI_Datatype elem,
                            MPI_Datatype *dt);

#endif /* BCL_INDEXED_H */
