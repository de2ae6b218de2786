/*
 * bcl_comm_batch.h -- batched atomics: one atomic op over many words of one
 * rank, and a round of fetch-ops aggregated into such calls.
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
 *
 * bcl_round collects the word operations a pipelined algorithm issues in one
 * round (the hash map's batches) and sends them, on rma, as ONE indexed call
 * per (target rank, op) followed by one flush; on shm every operation is done
 * at once with CPU atomics and sending is a no-op.  An indexed call must not
 * name a word twice (MPICH does not apply repeats in order), so a fetch-add /
 * fetch-or on a word this round's call of the same op already has is refused
 * (*issued = 0) and the caller issues it in a later round.  Reads (NO_OP) and
 * writes (REPLACE) are word-wise atomic, so they never race with the
 * accumulates of other ranks on the same words, as MPI requires.
 */
#ifndef BCL_COMM_BATCH_H
#define BCL_COMM_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"

bcl_status bcl_fetch_op_indexed_nb(int rank, const uint64_t *offsets, size_t n,
                                   bcl_atomic_op op, const uint64_t *operands,
                                   uint64_t *results);

/* ---- a round of aggregated fetch-ops ---------------------------------- */

/* The ops one round sends in one indexed call: to one rank, one op. */
typedef struct bcl_round_group {
    uint64_t *off, *operand, *res, **dest;
    size_t n, cap;
} bcl_round_group;

typedef struct bcl_round {
    int rma;                   /* 0: shm, every op done at once             */
    bcl_round_group *g;        /* rma: per rank, BCL_ROUND_NG ops            */
    int *touched, ntouched;    /* ranks this round sends to (or flushes)     */
    unsigned char *is_touched;
    /* words claimed by this round's fetch-add / fetch-or calls: an open-
     * addressing set, cleared by bumping the generation */
    uint64_t *set;
    uint32_t *set_gen;
    uint32_t gen;
    size_t set_cap;
} bcl_round;

/* A round for the current transport; max_claims bounds the fetch-adds and
 * fetch-ors one round issues (the claimed-word set is sized for it). */
bcl_status bcl_round_init(bcl_round *r, size_t max_claims);
void bcl_round_free(bcl_round *r);

/* A fetch-op (ADD, OR or NO_OP) on the 8-byte word p; the old value goes to
 * *dest (if not NULL) once the round is sent.  *issued = 0: not issued, the
 * word is taken this round (issue it again next round). */
bcl_status bcl_round_fetch(bcl_round *r, bcl_gptr p, bcl_atomic_op op, uint64_t operand,
                           uint64_t *dest, int *issued);

/* Read / write nbytes (a multiple of 8) at p, word by word atomically. */
bcl_status bcl_round_read(bcl_round *r, bcl_gptr p, void *dst, size_t nbytes);
bcl_status bcl_round_write(bcl_round *r, bcl_gptr p, const void *src, size_t nbytes);

/* The caller issued its own non-blocking op to `rank`: the send flushes it. */
void bcl_round_touch(bcl_round *r, int rank);

/* Send the round's calls and complete them (one flush per touched rank, or
 * one bcl_flush), deliver the results, and start an empty round. */
bcl_status bcl_round_send(bcl_round *r);

#endif /* BCL_COMM_BATCH_H */
