/*
 * bcl_runtime.h -- the runtime layer: communicator, transport, shared segment.
 *
 * Each rank owns one shared segment of `segment_size` bytes, created once by
 * bcl_init() and mapped for the life of the program:
 *
 *   rma  MPI_Win_allocate + MPI_Win_lock_all(MPI_MODE_NOCHECK) once; every
 *        remote access is passive-target RMA completed by flushes.
 *   shm  MPI_Win_allocate_shared over a node-local communicator; every rank
 *        maps every segment (MPI_Win_shared_query) and accesses it with plain
 *        loads/stores and C11 atomics, with no MPI call on the data path.
 *   rma-node  (bcl_nodewin.h) the segment lives in the node's shared memory
 *        (MPI_Win_allocate_shared, mapping node peers' segments) and is also
 *        exposed to the job by MPI_Win_create; every atomic goes through MPI
 *        on that job window, only get/put to node peers are memcpy.
 *
 * The first BCL_SEGMENT_RESERVED bytes of every segment belong to the runtime
 * (offset 0 is the null pointer, so nothing user-visible ever lives there).
 * bcl_init zeroes them; on shm the agreement of collective calls exchanges
 * its records there (comm/bcl_agree_node.h).
 */
#ifndef BCL_RUNTIME_H
#define BCL_RUNTIME_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"
#include "runtime/bcl_mpi_error.h"

typedef enum bcl_transport {
    BCL_TRANSPORT_AUTO = 0,
    BCL_TRANSPORT_SHM,
    BCL_TRANSPORT_RMA,
    BCL_TRANSPORT_RMA_NODE   /* rma + memcpy for node peers' data words */
} bcl_transport;

#define BCL_SEGMENT_RESERVED 4096u
#define BCL_SEGMENT_ALIGN 64u
#define BCL_MIN_SEGMENT_SIZE (BCL_SEGMENT_RESERVED + 4096u)

typedef struct bcl_runtime {
    int initialized;
    int we_initialized_mpi;   /* MPI_Init was ours, so MPI_Finalize is too   */
    MPI_Comm comm;            /* private duplicate of the user's communicator */
    MPI_Comm depart_comm;     /* another, for departure notices only          */
    MPI_Comm agree_comm;      /* another, for the agreement rounds only: a    */
                              /* round some ranks left unfinished            */
                              /* (comm/bcl_resync.h) can then never match    */
                              /* a call's other collectives                  */
                              /* (comm/bcl_depart.h)                          */
    int rank;
    int nprocs;
    bcl_transport transport;
    int async_progress;       /* a bcl_progress_mode                         */
    int oversubscribed;       /* some node runs more ranks than the CPUs they */
                              /* may use: waits must yield (docs/progress.md) */
                              /* ("patient"); the same on every rank         */
    int wait_forced;          /* PYBCL_WAIT chose the policy, not the guess  */
    int node_ranks;           /* ranks on this rank's node                   */
    int node_cpus;            /* CPUs they may use together (bcl_cpus.h)     */
    MPI_Win win;              /* the window every MPI RMA op goes through    */
    MPI_Win node_win;         /* rma-node only: W_node, the node mapping     */
    size_t segment_size;      /* bytes per rank, identical on every rank     */
    unsigned char *local_base;
    unsigned char **bases;    /* shm: every rank's segment, mapped locally;  */
                              /* rma-node: node peers' (NULL off the node)   */
    uint64_t free_stack;      /* offset of the remote-free stack head, the   */
                              /* same on every rank (bcl_object.h)           */
    uint64_t epoch;           /* 1, 2, ... per successful bcl_init; 0 when   */
                              /* down.  Objects made in one epoch (offsets   */
                              /* into its segments) are stale in any other.  */
    int progress_thread;      /* the progress thread runs (bcl_progress.h)   */
    /* Why init chose what it chose, in words (pybcl.info() shows them). */
    char transport_reason[160];
    char progress_reason[96];
} bcl_runtime;

/* The one runtime of this process.  Read-only outside bcl_runtime.c; it is
 * exposed so the communication layer's fast paths can be inlined. */
extern bcl_runtime bcl_rt;

/* When the progress thread runs (bcl_progress.h): on the rma transports
 * only, whose remote operations need the target inside MPI
 * (PYBCL_ASYNC_PROGRESS=1), or on every transport: an interactive kernel's
 * ranks sit idle between cells, and pybcl's own messages (comm/bcl_resync.h)
 * leave an idle sender only while MPI runs there. */
typedef enum bcl_progress_mode {
    BCL_PROGRESS_OFF = 0,
    BCL_PROGRESS_RMA = 1,
    BCL_PROGRESS_ALWAYS = 2
} bcl_progress_mode;

/* Collective over `comm`.  Initialises MPI (MPI_THREAD_MULTIPLE requested)
 * when nobody has yet.  `transport` AUTO picks shm when all ranks of `comm`
 * share a node, rma-node when they span nodes and some node hosts >= 2 of
 * them (and its windows are MPI_WIN_UNIFIED), else rma.  async_progress
 * (a bcl_progress_mode) says when the progress thread runs;
 * bcl_rt.transport_reason and progress_reason say why, in words.  Calling it again while initialised is a no-op returning OK. */
bcl_status bcl_init(MPI_Comm comm, size_t segment_size, bcl_transport transport,
                    int async_progress);

/* Collective.  Completes outstanding operations, frees the window and the
 * communicator; finalises MPI only if bcl_init initialised it.  At
 * interpreter exit `exit_guard_seconds` > 0 arms the exit guard
 * (bcl_exit_guard.h) just before that MPI_Finalize, after the last barrier;
 * 0 arms nothing (an explicit finalize() mid-program). */
bcl_status bcl_finalize(double exit_guard_seconds);

/* MPI_Abort(MPI_COMM_WORLD): ends every rank of the job, whatever they are
 * doing (exit(errorcode) when MPI is not up). */
void bcl_abort(int errorcode);

/* The transports' names: "auto", "shm", "rma", "rma-node" (NULL past the
 * last, i = 0, 1, ...); a name's transport, or BCL_ERR_ARG naming them all. */
const char *bcl_transport_name(bcl_transport t);
const char *bcl_transport_nth_name(int i);
bcl_status bcl_transport_parse(const char *name, bcl_transport *out);

/* Whether something made in runtime epoch `epoch` (bcl_rt.epoch then) may be
 * used now: the runtime is up and is the same one.  Containers remember the
 * epoch, never an address: a new runtime may map its segment exactly where
 * the old one was. */
static inline int bcl_epoch_current(uint64_t epoch)
{
    return bcl_rt.initialized && epoch == bcl_rt.epoch;
}

#define BCL_REQUIRE_INIT()                                                   \
    do {                                                                      \
        if (!bcl_rt.initialized)                                              \
            return bcl_set_error(BCL_ERR_STATE, "pybcl is not initialised"); \
    } while (0)

#endif /* BCL_RUNTIME_H */
