/*
 * bcl_comm.h -- the communication layer: global pointers, get/put, atomics,
 * flush, barrier, collectives, progress.
 *
 * One API over every transport (bcl_runtime.h); on rma-node, get/put to a
 * node peer are memcpy ordered by MPI_Win_sync, everything else is rma.  Containers are written only
 * against this header, as BCL's containers are written against BCL Core, so
 * they run unchanged on shm and rma.
 *
 * Completion rules (the same on both transports):
 *  - bcl_get / bcl_put / the blocking atomics are complete at the target on
 *    return;
 *  - bcl_put_detached returns once `src` may be reused; the data reach the
 *    target by the next flush (cheap: no round trip for small puts);
 *  - the _nb variants are complete after bcl_flush / bcl_flush_rank /
 *    bcl_barrier; until then their local buffers must stay untouched/alive.
 *
 * Files: bcl_data.c (get/put), bcl_atomic.c, bcl_flush.c (completion),
 * bcl_wait.c (wait loops), bcl_barrier.c, bcl_collective.c.
 *
 * MPI memory model: a plain get/put racing with an atomic on the same word is
 * undefined in MPI, so words that are updated atomically while others may
 * look at them are read with bcl_fetch_op(BCL_OP_NOOP) (= atomic load) and
 * written with bcl_atomic_store (MPI_Accumulate(MPI_REPLACE)), never with
 * get/put.  Containers follow this rule; shm obeys it for free.
 */
#ifndef BCL_COMM_H
#define BCL_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_runtime.h"

/* A global pointer: owner rank and byte offset in the owner's segment.
 * 16 bytes, stored as is inside segments (e.g. out-of-line value records). */
typedef struct bcl_gptr {
    int32_t rank;
    uint32_t reserved;   /* zero; keeps offset 8-byte aligned in segments */
    uint64_t offset;
} bcl_gptr;

static inline bcl_gptr bcl_gptr_make(int rank, uint64_t offset)
{
    bcl_gptr p = { rank, 0, offset };
    return p;
}

static inline int bcl_gptr_is_null(bcl_gptr p) { return p.offset == 0; }

/* The one question the containers ask about the transport: whether every
 * rank's segment is mapped in this process and every access to it -- loads,
 * stores and atomics -- is a CPU instruction with no MPI call (the shm
 * transport; the same answer on every rank).  Containers pick their direct
 * paths (plain loads of a peer's buckets, bigger batches where MPI has no
 * per-call cost to spread) by it, never by the transport's name. */
static inline int bcl_comm_direct(void)
{
    return bcl_rt.transport == BCL_TRANSPORT_SHM;
}

/* BCL_OK iff [p.offset, p.offset + nbytes) is inside rank p.rank's segment
 * and past the runtime's reserved header. */
bcl_status bcl_check_range(bcl_gptr p, size_t nbytes);

/* Address of a pointer's target in this process: the local segment, or on
 * shm any segment.  NULL when the target is not mapped here (rma, remote).
 * On rma-node node peers are mapped, yet this stays NULL for them: the
 * containers' direct-access paths (local views, local scans) are rma's,
 * and only bcl_data.c's get/put touch a peer's memory, in the order the
 * MPI memory model needs (docs/transports.md). */
static inline void *bcl_local_addr(bcl_gptr p)
{
    if (p.rank == bcl_rt.rank)
        return bcl_rt.local_base + p.offset;
    if (bcl_comm_direct())
        return bcl_rt.bases[p.rank] + p.offset;
    return NULL;
}

/* ---- data movement ---------------------------------------------------- */
/* MPI counts are ints: get, put and broadcast move larger blocks in pieces
 * of this many bytes. */
#define BCL_MPI_CHUNK ((size_t)1 << 30)

bcl_status bcl_get(void *dst, bcl_gptr src, size_t nbytes);
bcl_status bcl_put(bcl_gptr dst, const void *src, size_t nbytes);
bcl_status bcl_put_detached(bcl_gptr dst, const void *src, size_t nbytes);
bcl_status bcl_get_nb(void *dst, bcl_gptr src, size_t nbytes);
bcl_status bcl_put_nb(bcl_gptr dst, const void *src, size_t nbytes);

/* ---- atomics on 4- or 8-byte integers (naturally aligned) ------------- */
typedef enum bcl_atomic_op {
    BCL_OP_ADD, BCL_OP_OR, BCL_OP_AND, BCL_OP_XOR,
    BCL_OP_REPLACE,     /* atomic swap */
    BCL_OP_MIN,         /* keep the smaller / larger value, compared as the   */
    BCL_OP_MAX,         /* element type: accumulate calls only (bcl_comm_accum.h) */
    BCL_OP_NOOP         /* atomic load */
} bcl_atomic_op;

/* The MPI reduction op that performs `op` (MPI_NO_OP for BCL_OP_NOOP). */
MPI_Op bcl_mpi_op(bcl_atomic_op op);

/* *old receives the previous value, zero-extended to 64 bits. */
bcl_status bcl_fetch_op(bcl_gptr p, int width, bcl_atomic_op op, uint64_t operand,
                        uint64_t *old);
bcl_status bcl_cas(bcl_gptr p, int width, uint64_t expected, uint64_t desired,
                   uint64_t *old);
bcl_status bcl_atomic_store(bcl_gptr p, int width, uint64_t value);

/* Posted atomic: the op is issued and the call returns without waiting (no
 * result).  Complete at the target after the next bcl_flush_rank(p.rank) /
 * bcl_flush / bcl_barrier, or once this rank spins in bcl_relax; later
 * atomics of this rank on the same word are ordered after it (MPI's default
 * accumulate ordering).  For steps whose completion nobody waits on: a
 * publication, dropping a reader count. */
bcl_status bcl_atomic_post(bcl_gptr p, int width, bcl_atomic_op op, uint64_t operand);

/* Non-blocking forms: `result` (width bytes) and `operand` are written at the
 * next flush.  Used to pipeline batches: issue k, flush once. */
bcl_status bcl_fetch_op_nb(bcl_gptr p, int width, bcl_atomic_op op,
                           const void *operand, void *result);
bcl_status bcl_cas_nb(bcl_gptr p, int width, const void *expected,
                      const void *desired, void *result);

/* ---- completion and synchronisation ------------------------------------ */
bcl_status bcl_flush(void);               /* every target                    */
bcl_status bcl_flush_rank(int rank);      /* one target                      */
bcl_status bcl_barrier(void);             /* flush, then synchronise          */
/* bcl_barrier whose synchronisation is the agreement on `what` (bcl_agree.h):
 * a peer in any other collective of pybcl makes both raise. */
bcl_status bcl_barrier_named(const char *what);
/* The same, agreeing on n <= 8 arguments too (bcl_agree's names/vals). */
bcl_status bcl_barrier_agree(const char *what, const char *const *names,
                             const int64_t *vals, int n);
bcl_status bcl_progress(void);            /* let RMA aimed at us advance     */

/* Wait for n MPI requests in the core's wait loop (patient when ranks
 * outnumber cores, interruptible by Ctrl-C). */
bcl_status bcl_wait(int n, MPI_Request *rq);

/* One pause of a collective's wait loop, the `fails`-th in a row: under the
 * patient policy spin, then sched_yield(), then sleep 1 us; otherwise an
 * occasional sched_yield().  For loops that wait on something other than an
 * MPI request (bcl_agree_node.h). */
void bcl_wait_pause(unsigned fails);

/* Wait for one collective request on bcl_rt.comm: as bcl_wait, and a peer
 * that finalized (bcl_depart.h) ends the wait with an error naming `what`. */
bcl_status bcl_wait_collective(MPI_Request *rq, const char *what);

/* The same for agreement round `round` (comm/bcl_agree.h): a peer that
 * stopped its cell before that round ends the wait too (bcl_resync.h).  On
 * an error the request is still pending: the caller keeps it. */
bcl_status bcl_wait_round(MPI_Request *rq, const char *what, int64_t round);

/* Flush cost tracking.  rma keeps the set of targets with operations issued
 * since their last flush ("dirty"), so bcl_flush() touches only those: O(1)
 * when idle, O(k) after touching k targets, in both wait policies;
 * bcl_flush_rank of a clean target is free.  Extensions of this layer that
 * issue MPI RMA on bcl_rt.win themselves (bcl_comm_batch.c) must report the
 * target with bcl_comm_issued before issuing.  The counters are cumulative
 * since the process started (a debug / test query). */
void bcl_comm_issued(int rank);

typedef struct bcl_flush_stats {
    uint64_t flushes;          /* bcl_flush + bcl_flush_rank calls (rma)     */
    uint64_t targets_flushed;  /* targets completed by MPI_Win_flush(_all)   */
    uint64_t flush_all_calls;  /* of those, via one MPI_Win_flush_all        */
    int dirty;                 /* targets outstanding now (-1: not tracked)  */
    int flush_all_trusted;     /* MPI_Win_flush_all is used for big sets     */
} bcl_flush_stats;

void bcl_flush_stats_get(bcl_flush_stats *out);

/* Called inside every wait/spin loop of the core and the containers: keeps
 * MPI progressing and, when ranks outnumber cores, yields the CPU so the
 * rank we wait for can run.  BCL_ERR_INTERRUPTED when a signal handler
 * raised (bcl_interrupt.h): the loop must give up and return it. */
bcl_status bcl_relax(unsigned *spins);

/* ---- collectives ------------------------------------------------------- */
typedef enum bcl_elem {
    BCL_I8, BCL_I16, BCL_I32, BCL_I64,
    BCL_U8, BCL_U16, BCL_U32, BCL_U64,
    BCL_F32, BCL_F64, BCL_BOOL
} bcl_elem;

/* The MPI datatype of one element of kind `e`. */
MPI_Datatype bcl_mpi_elem(bcl_elem e);

typedef enum bcl_redop {
    BCL_SUM, BCL_PROD, BCL_MIN, BCL_MAX,
    BCL_LAND, BCL_LOR, BCL_BAND, BCL_BOR, BCL_BXOR
} bcl_redop;

bcl_status bcl_bcast(void *buf, size_t nbytes, int root);
bcl_status bcl_allreduce(void *buf, size_t count, bcl_elem elem, bcl_redop op);
/* The same, naming the call `what` in the error when a peer has finalized
 * instead (bcl_depart.h): the agreement passes the user's call. */
bcl_status bcl_allreduce_named(const char *what, void *buf, size_t count, bcl_elem elem,
                               bcl_redop op);

#endif /* BCL_COMM_H */
