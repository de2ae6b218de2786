/* bcl_runtime.c -- communicator, transport choice and the shared segment. */
#include "runtime/bcl_runtime.h"
#include "runtime/bcl_lifetime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/bcl_alloc.h"
#include "runtime/bcl_cpus.h"
#include "runtime/bcl_exit_guard.h"
#include "runtime/bcl_jobwin.h"
#include "runtime/bcl_memcheck.h"
#include "runtime/bcl_mpicheck.h"
#include "runtime/bcl_nodewin.h"
#include "runtime/bcl_ompi_osc.h"
#include "runtime/bcl_symheap.h"
#include "runtime/bcl_progress.h"
#include "runtime/bcl_viewpin.h"

bcl_runtime bcl_rt;
static uint64_t epochs_started;   /* survives finalize's memset of bcl_rt */

/* The one table of the transports' names. */
static const struct { const char *name; bcl_transport t; } transports[] = {
    {"auto", BCL_TRANSPORT_AUTO}, {"shm", BCL_TRANSPORT_SHM},
    {"rma", BCL_TRANSPORT_RMA}, {"rma-node", BCL_TRANSPORT_RMA_NODE},
};
#define NTRANSPORTS (int)(sizeof transports / sizeof transports[0])

const char *bcl_transport_name(bcl_transport t)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        if (transports[i].t == t)
            return transports[i].name;
    return "auto";
}

const char *bcl_transport_nth_name(int i)
{
    return i >= 0 && i < NTRANSPORTS ? transports[i].name : NULL;
}

bcl_status bcl_transport_parse(const char *name, bcl_transport *out)
{
    char names[64] = "";
    for (int i = 0; i < NTRANSPORTS; i++) {
        if (!strcmp(name, transports[i].name)) {
            *out = transports[i].t;
            return BCL_OK;
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'",
                 i == 0 ? "" : i == NTRANSPORTS - 1 ? " or " : ", ", transports[i].name);
    }
    return bcl_set_error(BCL_ERR_ARG, "transport must be %s, not '%.40s'", names, name);
}

void bcl_abort(int errorcode)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down)
        exit(errorcode);
    /* Always COMM_WORLD, never the runtime's duplicate: MPICH (ch4) aborts
     * COMM_WORLD through the process manager at once, but for any other
     * communicator it first notifies that communicator's ranks and waits in
     * its progress engine until they make an MPI call.  On shm the peers'
     * data path makes none, so a peer polling a queue kept the job alive
     * forever (a rank spinning in pure C: measured hang, 15 s+; COMM_WORLD:
     * ended in 1 s).  The policy is job-wide anyway (pybcl/_abort.py). */
    MPI_Abort(MPI_COMM_WORLD, errorcode);
}

static bcl_status ensure_mpi(void)
{
    int up = 0, down = 0;
    BCL_MPI_CHECK("MPI_Finalized", MPI_Finalized(&down));
    if (down)
        return bcl_set_error(BCL_ERR_STATE, "MPI was already finalised");
    BCL_MPI_CHECK("MPI_Initialized", MPI_Initialized(&up));
    if (up)
        return BCL_OK;
    int provided;
    BCL_MPI_CHECK("MPI_Init_thread",
                  MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    bcl_rt.we_initialized_mpi = 1;
    return BCL_OK;
}

/* How many CPUs the ranks of this node may use together (bcl_cpus.h): the
 * union of their affinity masks, capped by the tightest cgroup CPU quota
 * any of them has.  Collective over the node communicator. */
static bcl_status node_cpus(MPI_Comm node, int *cpus)
{
    size_t bytes = bcl_cpu_mask_bytes();
    unsigned char *mask = malloc(bytes);
    if (!mask)
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for a CPU mask");
    bcl_cpu_mask(mask, bytes);
    int rc = MPI_Allreduce(MPI_IN_PLACE, mask, (int)bytes, MPI_BYTE, MPI_BOR, node);
    int usable = bcl_cpu_mask_count(mask, bytes);
    free(mask);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Allreduce", rc);
    /* A rank in no limited cgroup reports 0: it must not hide another's
     * limit, so unlimited counts as "no smaller than the mask". */
    double quota = bcl_cgroup_cpu_limit();
    if (quota <= 0)
        quota = (double)usable;
    BCL_MPI_CHECK("MPI_Allreduce",
                  MPI_Allreduce(MPI_IN_PLACE, &quota, 1, MPI_DOUBLE, MPI_MIN, node));
    /* Rounded down: 1.5 CPUs for 2 ranks is oversubscribed, and waiting
     * patiently when we need not costs little, spinning when we should
     * not costs 100x (docs/progress.md). */
    int quota_cpus = (int)(quota + 1e-9);
    if (quota_cpus < usable)
        usable = quota_cpus;
    *cpus = usable > 0 ? usable : 1;
    return BCL_OK;
}

/* All ranks on one node <=> the shared-memory split keeps everybody.  Also
 * tells whether this node runs more ranks than the CPUs they may use: MPI's
 * blocking calls busy-poll, and then a waiting rank starves the one it
 * waits for. */
static bcl_status inspect_node(MPI_Comm comm, int nprocs, int *one_node,
                               int *oversubscribed)
{
    MPI_Comm node;
    BCL_MPI_CHECK("MPI_Comm_split_type",
                  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                      MPI_INFO_NULL, &node));
    int rc = MPI_Comm_size(node, &bcl_rt.node_ranks);
    bcl_status st = rc == MPI_SUCCESS ? node_cpus(node, &bcl_rt.node_cpus)
                                      : bcl_mpi_error("MPI_Comm_size", rc);
    MPI_Comm_free(&node);
    if (st != BCL_OK)
        return st;
    *one_node = (bcl_rt.node_ranks == nprocs);
    *oversubscribed = bcl_rt.node_ranks > bcl_rt.node_cpus;
    /* PYBCL_WAIT=patient|spin overrides the guess (for benchmarks, or for
     * nodes whose cores are shared with other jobs). */
    const char *wait = getenv("PYBCL_WAIT");
    bcl_rt.wait_forced = wait && (!strcmp(wait, "patient") || !strcmp(wait, "spin"));
    if (wait && !strcmp(wait, "patient"))
        *oversubscribed = 1;
    else if (wait && !strcmp(wait, "spin"))
        *oversubscribed = 0;
    return BCL_OK;
}

static bcl_status create_shm_window(void)
{
    MPI_Info info;
    BCL_MPI_CHECK("MPI_Info_create", MPI_Info_create(&info));
    /* Page-aligned per-rank pieces: each segment stays on its owner's NUMA
     * node and no two ranks' hot words share a cache line. */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int rc = MPI_Win_allocate_shared((MPI_Aint)bcl_rt.segment_size, 1, info,
                                     bcl_rt.comm, &bcl_rt.local_base, &bcl_rt.win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Win_allocate_shared", rc);
    BCL_MPI_CHECK("MPI_Win_set_errhandler",
                  MPI_Win_set_errhandler(bcl_rt.win, MPI_ERRORS_RETURN));
    bcl_rt.bases = calloc((size_t)bcl_rt.nprocs, sizeof *bcl_rt.bases);
    if (!bcl_rt.bases)
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for segment table");
    for (int r = 0; r < bcl_rt.nprocs; r++) {
        MPI_Aint size;
        int disp;
        void *base;
        BCL_MPI_CHECK("MPI_Win_shared_query",
                      MPI_Win_shared_query(bcl_rt.win, r, &size, &disp, &base));
        bcl_rt.bases[r] = base;
    }
    /* The shm transport never calls MPI on the data path, but the MPI memory
     * model still wants the window in an access epoch; lock_all is free. */
    BCL_MPI_CHECK("MPI_Win_lock_all", MPI_Win_lock_all(MPI_MODE_NOCHECK, bcl_rt.win));
    return BCL_OK;
}

/* auto across nodes: rma-node pays off only where some node hosts two or
 * more ranks (otherwise there is no node peer to reach by memcpy). */
static bcl_status some_node_shared(int *shared)
{
    int most = bcl_rt.node_ranks;
    BCL_MPI_CHECK("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT,
                                                 MPI_MAX, bcl_rt.comm));
    *shared = most >= 2;
    return BCL_OK;
}

static bcl_status choose_transport(bcl_transport requested, bcl_transport *out)
{
    int one_node = 0, shared = 0;
    bcl_status st = inspect_node(bcl_rt.comm, bcl_rt.nprocs, &one_node,
                                 &bcl_rt.oversubscribed);
    if (st != BCL_OK)
        return st;
    if (requested == BCL_TRANSPORT_SHM && !one_node)
        return bcl_set_error(BCL_ERR_ARG,
                             "transport 'shm' needs all ranks on one node");
    char *why = bcl_rt.transport_reason;
    size_t len = sizeof bcl_rt.transport_reason;
    if (requested != BCL_TRANSPORT_AUTO) {
        *out = requested;
        snprintf(why, len, "requested: %s", bcl_transport_name(requested));
        return BCL_OK;
    }
    if (one_node) {
        *out = BCL_TRANSPORT_SHM;
        snprintf(why, len, "auto: all ranks on this rank's node -> shm");
        return BCL_OK;
    }
    if ((st = some_node_shared(&shared)) != BCL_OK)   /* same answer everywhere */
        return st;
    *out = shared ? BCL_TRANSPORT_RMA_NODE : BCL_TRANSPORT_RMA;
    snprintf(why, len, "auto: %d of %d ranks on this rank's node, %s -> %s",
             bcl_rt.node_ranks, bcl_rt.nprocs,
             shared ? "some node runs two or more" : "one on each node",
             bcl_transport_name(*out));
    return BCL_OK;
}

/* rma-node's windows, checked for the unified model.  auto falls back to
 * plain rma when they are not (loads/stores would not see MPI's copy);
 * a forced rma-node refuses with the reason.  Same outcome on every rank. */
static bcl_status create_node_windows(int forced)
{
    int unified = 0;
    bcl_status st = bcl_nodewin_create();
    if (st == BCL_OK)
        st = bcl_nodewin_unified(&unified);
    if (st != BCL_OK || unified)
        return st;
    if ((st = bcl_nodewin_free()) != BCL_OK)
        return st;
    if (forced)
        return bcl_set_error(BCL_ERR_STATE, "transport 'rma-node' needs MPI_WIN_UNIFIED "
                             "windows, but %s gives MPI_WIN_SEPARATE",
                             bcl_mpi_library_name());
    bcl_rt.transport = BCL_TRANSPORT_RMA;
    size_t used = strlen(bcl_rt.transport_reason);
    snprintf(bcl_rt.transport_reason + used, sizeof bcl_rt.transport_reason - used,
             ", whose windows are MPI_WIN_SEPARATE here -> rma");
    return bcl_job_window(0);
}

static bcl_status create_window(bcl_transport requested)
{
    bcl_skip_symmetric_heap();
    switch (bcl_rt.transport) {
    case BCL_TRANSPORT_SHM: return create_shm_window();
    case BCL_TRANSPORT_RMA_NODE:
        return create_node_windows(requested == BCL_TRANSPORT_RMA_NODE);
    default: return bcl_job_window(0);
    }
}

static bcl_status init_steps(MPI_Comm comm, size_t segment_size,
                             bcl_transport transport)
{
    bcl_status st;
    BCL_MPI_CHECK("MPI_Comm_dup", MPI_Comm_dup(comm, &bcl_rt.comm));
    BCL_MPI_CHECK("MPI_Comm_set_errhandler",
                  MPI_Comm_set_errhandler(bcl_rt.comm, MPI_ERRORS_RETURN));
    BCL_MPI_CHECK("MPI_Comm_dup", MPI_Comm_dup(bcl_rt.comm, &bcl_rt.depart_comm));
    BCL_MPI_CHECK("MPI_Comm_dup", MPI_Comm_dup(bcl_rt.comm, &bcl_rt.agree_comm));
    BCL_MPI_CHECK("MPI_Comm_rank", MPI_Comm_rank(bcl_rt.comm, &bcl_rt.rank));
    BCL_MPI_CHECK("MPI_Comm_size", MPI_Comm_size(bcl_rt.comm, &bcl_rt.nprocs));

    /* Every rank must agree on the segment size (pointer bounds checks use
     * it for remote segments): take the minimum that was asked for. */
    unsigned long long want = segment_size, agreed;
    BCL_MPI_CHECK("MPI_Allreduce", MPI_Allreduce(&want, &agreed, 1,
                                                 MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                                                 bcl_rt.comm));
    bcl_rt.segment_size = ((size_t)agreed / BCL_SEGMENT_ALIGN) * BCL_SEGMENT_ALIGN;

    if ((st = choose_transport(transport, &bcl_rt.transport)) != BCL_OK)
        return st;
    /* One wait policy for the whole job (docs/progress.md): patient when any
     * node is oversubscribed. */
    BCL_MPI_CHECK("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, &bcl_rt.oversubscribed, 1,
                                                 MPI_INT, MPI_MAX, bcl_rt.comm));
    /* A one-sided component known to crash in our atomics (bcl_ompi_osc.h):
     * rma and rma-node both issue them through MPI. */
    if (bcl_rt.transport != BCL_TRANSPORT_SHM &&
        (st = bcl_check_ompi_osc(bcl_rt.comm)) != BCL_OK)
        return st;
    /* Before any window exists, and on every rank alike (bcl_memcheck.h). */
    if ((st = bcl_check_segments_fit(bcl_rt.comm, bcl_rt.segment_size,
                                     bcl_rt.transport != BCL_TRANSPORT_RMA)) != BCL_OK)
        return st;
    st = create_window(transport);
    if (st == BCL_OK)
        st = bcl_check_window_model(bcl_rt.win);
    if (st != BCL_OK)
        return st;
    memset(bcl_rt.local_base, 0, BCL_SEGMENT_RESERVED);
    if ((st = bcl_alloc_init(BCL_SEGMENT_RESERVED, bcl_rt.segment_size)) != BCL_OK)
        return st;
    /* The first allocation of a fresh allocator lands at the same offset on
     * every rank, so peers can find each other's remote-free stack. */
    if ((st = bcl_alloc(sizeof(uint64_t), 64, &bcl_rt.free_stack)) != BCL_OK)
        return st;
    memset(bcl_rt.local_base + bcl_rt.free_stack, 0, sizeof(uint64_t));
    /* Only the rma transports need the target's CPU to complete operations. */
    bcl_rt.progress_thread = bcl_rt.async_progress == BCL_PROGRESS_ALWAYS ||
        (bcl_rt.async_progress == BCL_PROGRESS_RMA && bcl_rt.transport != BCL_TRANSPORT_SHM);
    snprintf(bcl_rt.progress_reason, sizeof bcl_rt.progress_reason, "%s",
             bcl_rt.async_progress == BCL_PROGRESS_OFF ? "not requested"
             : bcl_rt.async_progress == BCL_PROGRESS_ALWAYS
                 ? "interactive kernel: ranks sit idle between cells -> running"
             : bcl_rt.progress_thread ? "requested; rma needs the target's CPU -> running"
                                      : "requested, but shm makes no MPI call -> none");
    if (bcl_rt.progress_thread && (st = bcl_progress_thread_start(20)) != BCL_OK)
        return st;
    /* Nobody touches a peer's segment before the peer has finished setting it up. */
    BCL_MPI_CHECK("MPI_Barrier", MPI_Barrier(bcl_rt.comm));
    return BCL_OK;
}

bcl_status bcl_init(MPI_Comm comm, size_t segment_size, bcl_transport transport,
                    int async_progress)
{
    if (bcl_rt.initialized)
        return BCL_OK;
    if (segment_size < BCL_MIN_SEGMENT_SIZE)
        return bcl_set_error(BCL_ERR_ARG, "segment_size must be at least %u bytes, got %zu",
                             BCL_MIN_SEGMENT_SIZE, segment_size);
    bcl_status st = ensure_mpi();
    if (st != BCL_OK)
        return st;
    if (comm == MPI_COMM_NULL)
        comm = MPI_COMM_WORLD;
    if ((st = bcl_check_mpi_library()) != BCL_OK)
        return st;
    bcl_rt.async_progress = async_progress;
    st = init_steps(comm, segment_size, transport);
    if (st != BCL_OK)
        return st;   /* MPI objects of a half-made runtime die with MPI_Finalize */
    bcl_rt.epoch = ++epochs_started;
    bcl_rt.initialized = 1;
    return BCL_OK;
}

bcl_status bcl_finalize(double exit_guard_seconds)
{
    if (!bcl_rt.initialized)
        return BCL_OK;
    int down = 0;
    MPI_Finalized(&down);
    if (down) {            /* somebody finalised MPI under us: nothing to free */
        bcl_rt.initialized = 0;
        bcl_life_discard();
        return BCL_OK;
    }
    bcl_status st = BCL_OK;
    bcl_progress_thread_stop();
    /* Teardown order: complete this rank's operations (flush_all, then the
     * epoch ends), wait until every rank has, so nobody still targets the
     * window being freed; free it; and meet once more so that no rank enters
     * MPI_Finalize while a peer is still inside MPI_Win_free.  (The TCP hang
     * at exit is not cured by any order here: bcl_exit_guard.h.) */
    int rc = MPI_SUCCESS;
    bcl_view_detach_before();       /* local() views outlive the window */
    if (bcl_rt.transport == BCL_TRANSPORT_RMA_NODE) {
        st = bcl_nodewin_free();
    } else {
        rc = bcl_job_window_free(NULL);
    }
    bcl_view_detach_after();
    if (rc == MPI_SUCCESS && st == BCL_OK)
        rc = MPI_Barrier(bcl_rt.comm);
    if (rc != MPI_SUCCESS)
        st = bcl_mpi_error("bcl_finalize (window teardown)", rc);
    bcl_alloc_finalize();
    free(bcl_rt.bases);
    MPI_Comm_free(&bcl_rt.comm);
    MPI_Comm_free(&bcl_rt.depart_comm);
    MPI_Comm_free(&bcl_rt.agree_comm);   /* a round left unfinished dies with it */
    int ours = bcl_rt.we_initialized_mpi;
    int rank = bcl_rt.rank;
    memset(&bcl_rt, 0, sizeof bcl_rt);
    bcl_life_discard();    /* buried containers' segments went with the window */
    if (ours && st == BCL_OK) {
        /* MPI's teardown is ours to bound here: the TCP hang the guard exists
         * for happens inside this very call (CI saw a job wait 60 s in it). */
        if (exit_guard_seconds > 0)
            st = bcl_exit_guard_arm(exit_guard_seconds, rank);
        if (st != BCL_OK)
            return st;
        rc = MPI_Finalize();
        if (rc != MPI_SUCCESS)
            st = bcl_mpi_error("MPI_Finalize", rc);
    }
    return st;
}
