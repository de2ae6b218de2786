/*
 * bcl_comm_accum.h -- one atomic update over many elements of one rank,
 * without fetching (an extension of bcl_comm.h, in its own file).
 *
 * bcl_accumulate_indexed_nb applies `op` element-wise to n elements of one
 * type in ONE target rank's segment: on rma (and rma-node, whose atomics are
 * MPI's) a single MPI_Accumulate whose target datatype is an hindexed block
 * of the element type -- one message per target and batch instead of one
 * per element; MPI makes accumulates element-wise atomic with respect to
 * the other accumulates/atomics on the same element.  On shm, CPU atomics
 * (a compare-and-swap loop for float add).
 *
 * Element types: the integer bcl_elem kinds of 1, 2, 4 or 8 bytes with every
 * op but NOOP, except MIN / MAX on unsigned ones; F32 / F64 with BCL_OP_ADD,
 * BCL_OP_REPLACE, BCL_OP_MIN and BCL_OP_MAX only (BCL_ERR_TYPE otherwise).
 * MIN / MAX keep the smaller / larger of the element and the operand,
 * compared as the element type (MPI_MIN / MPI_MAX on its datatype; on shm a
 * compare-and-swap loop that stops once the element is as good); a NaN
 * operand or element gives an unspecified result.  Unsigned elements are
 * refused for them because MPICH 4.0's accumulate compares unsigned
 * integers as signed, and every transport must give the same answer.  `offsets` must be inside the segment, aligned
 * to the element size and distinct within one call (MPI forbids a target
 * datatype that names an element twice); checked, except distinctness,
 * which the caller guarantees.  n <= INT_MAX.
 *
 * Completion: as the other _nb calls -- complete at the target, and
 * `operands` reusable, after bcl_flush / bcl_flush_rank / bcl_barrier.
 */
#ifndef BCL_COMM_ACCUM_H
#define BCL_COMM_ACCUM_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"

/* Bytes per element of `elem` (1, 2, 4 or 8). */
size_t bcl_elem_size(bcl_elem elem);

/* BCL_OK iff `op` may be applied to elements of kind `elem` (see above). */
bcl_status bcl_accumulate_check(bcl_elem elem, bcl_atomic_op op);

bcl_status bcl_accumulate_indexed_nb(int rank, const uint64_t *offsets, size_t n,
                                     bcl_elem elem, bcl_atomic_op op,
                                     const void *operands);

/* Apply `op` to one element at `addr` in this process's memory, with no
 * other process touching it meanwhile (plain load/store: an owner applying
 * updates shipped to it, between barriers). */
void bcl_accumulate_local(void *addr, bcl_elem elem, bcl_atomic_op op,
                          const void *operand);

#endif /* BCL_COMM_ACCUM_H */
