/* bcl_depart.c -- departure notices at finalize (bcl_depart.h). */
#include "comm/bcl_depart.h"

#include <stdlib.h>
#include <time.h>

#include "comm/bcl_comm.h"
#include "comm/bcl_resync.h"

#define DEPART_TAG 1

/* The runtime epoch whose notices were sent: one bcl_depart per runtime. */
static uint64_t announced_epoch;

int bcl_departed_peer(void)
{
    if (!bcl_rt.initialized || bcl_rt.nprocs == 1 || bcl_rt.depart_comm == MPI_COMM_NULL)
        return -1;
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, DEPART_TAG, bcl_rt.depart_comm, &flag, &status) !=
        MPI_SUCCESS || !flag)
        return -1;
    return status.MPI_SOURCE;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bcl_status bcl_depart_watch_poll(bcl_depart_watch *w, const char *what)
{
    if (w->round > 0) {
        bcl_status st = bcl_resync_check(w->round, what);
        if (st != BCL_OK)
            return st;
    }
    if (w->gone < 0) {
        if ((w->gone = bcl_departed_peer()) >= 0)
            w->since = now_s();
        return BCL_OK;
    }
    /* The grace period: the peer may have left this very collective a
     * moment ago, its part on its way to us (bcl_depart.h). */
    if (now_s() - w->since <= BCL_DEPART_GRACE_S)
        return BCL_OK;
    return bcl_set_error(BCL_ERR_STATE,
                         "%s: rank %d has finalized pybcl (finalize() or the end of its "
                         "program) while this rank waits for it here; every rank must "
                         "make the same collective calls in the same order", what, w->gone);
}

/* Receive the P-1 notices (every one was sent before its sender entered the
 * barrier that has completed, so each is on its way) and complete our sends:
 * nothing is left pending on the communicator that finalize frees. */
static bcl_status drain(MPI_Request *sends, int n)
{
    for (int i = 0; i < n; i++)
        BCL_MPI_CHECK("MPI_Recv", MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, DEPART_TAG,
                                           bcl_rt.depart_comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        BCL_MPI_CHECK("MPI_Wait", MPI_Wait(&sends[i], MPI_STATUS_IGNORE));
    return BCL_OK;
}

bcl_status bcl_depart(void)
{
    BCL_REQUIRE_INIT();
    int p = bcl_rt.nprocs, me = bcl_rt.rank, down = 0;
    MPI_Finalized(&down);           /* MPI finalised under us: nobody to tell */
    if (p == 1 || down || announced_epoch == bcl_rt.epoch)
        return BCL_OK;
    MPI_Request *rq = malloc((size_t)p * sizeof *rq);   /* p-1 sends + the barrier */
    if (!rq)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for %d departure notices", p - 1);
    bcl_status st = BCL_OK;
    int n = 0;
    for (int r = 0; r < p && st == BCL_OK; r++) {
        if (r == me)
            continue;
        int rc = MPI_Isend(NULL, 0, MPI_BYTE, r, DEPART_TAG, bcl_rt.depart_comm, &rq[n]);
        if (rc != MPI_SUCCESS)
            st = bcl_mpi_error("MPI_Isend (departure notice)", rc);
        else
            n++;
    }
    if (st == BCL_OK) {
        announced_epoch = bcl_rt.epoch;
        int rc = MPI_Ibarrier(bcl_rt.depart_comm, &rq[n]);
        st = rc != MPI_SUCCESS ? bcl_mpi_error("MPI_Ibarrier (departure)", rc)
                               : bcl_wait(1, &rq[n]);
    }
    if (st == BCL_OK)
        st = drain(rq, n);
    free(rq);
    bcl_resync_finish();
    return st;
}
