/*
 * bcl_comm_batch.h -- a batched atomic for bcl_comm.h (proposed addition to
 * the communication layer; kept in its own file so it lands independently).
 *
 * bcl_fetch_op_indexed_nb applies one atomic op to n distinct 8-byte words of
 * ONE target rank in a single operation: MPI_Get_accumulate with an hindexed
 * target datatype on rma (MPI makes accumulates element-wise atomic, and
 * orders them with the other atomics of this origin on the same word:
 * default accumulate_ordering), CPU atomics on shm.  With MPICH's ch4:ucx,
 * whose MPI_Fetch_and_op is an active message per call even when pipelined,
 * one message per target and batch is 5-30x cheaper per word.
 *
 * Completion: as the other _nb calls (results valid, buffers reusable after
 * bcl_flush / bcl_flush_rank / bcl_barrier).  `offsets` must be distinct,
 * 8-byte aligned and inside the segment (checked); n <= INT_MAX.
 */
#ifndef BCL_COMM_BATCH_H
#define BCL_COMM_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"

bcl_status bcl_fetch_op_indexed_nb(int rank, const uint64_t *offsets, size_t n,
                                   bcl_atomic_op op, const uint64_t *operands,
                                   uint64_t *results);

#endif /* BCL_COMM_BATCH_H */
