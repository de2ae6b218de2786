/*
 * bcl_flush.h -- completion of this rank's RMA, as the communication layer's
 * own files see it (bcl_data.c, bcl_atomic.c); the public half (bcl_flush,
 * bcl_flush_rank, bcl_comm_issued, bcl_relax) is in bcl_comm.h.
 *
 * rma keeps the set of targets with operations issued since their last flush
 * ("dirty") and, among them, those with posted atomics, whose operands wait
 * in a ring until their flush; small detached puts wait in a staging arena
 * until the next full flush.  bcl_flush.c owns all three.
 */
#ifndef BCL_FLUSH_H
#define BCL_FLUSH_H

#include "comm/bcl_comm.h"

/* Detached puts of at most this many bytes are staged (bcl_flush_stage). */
#define BCL_STAGE_MAX_PUT 256u

/* Whether `rank` has operations issued since its last flush. */
int bcl_flush_pending(int rank);

/* A get from `rank` completed by MPI_Win_flush_local, when nothing was
 * pending there before it, leaves nothing to flush: forget the target. */
void bcl_flush_forget(int rank);

/* Complete everything issued to `rank` the patient way (bcl_wait.h): a probe
 * waited on while yielding, then MPI_Win_flush. */
bcl_status bcl_flush_patiently(int rank);

/* A copy of n <= BCL_STAGE_MAX_PUT bytes that stays valid until the next full
 * flush (which it runs early when the arena is full); NULL without memory. */
void *bcl_flush_stage(const void *src, size_t n);

/* The operand slot of an atomic about to be posted to `rank` (the target is
 * noted as having one outstanding).  *slot NULL when the sets could not be
 * kept (no memory): the caller completes its operation at once instead. */
bcl_status bcl_flush_post_slot(int rank, uint64_t **slot);

#endif /* BCL_FLUSH_H */
