/* bcl_barrier.c -- barrier(): a flush, then the agreement as the
 * synchronisation (bcl_comm.h, bcl_agree.h). */
#include "comm/bcl_comm.h"

#include "comm/bcl_agree.h"

bcl_status bcl_barrier_agree(const char *what, const char *const *names,
                             const int64_t *vals, int n)
{
    bcl_status st = bcl_flush();
    if (st != BCL_OK)
        return st;
    /* MPI_Win_sync on both sides of the barrier orders this rank's local
     * loads/stores of its own segment with the RMA others completed before
     * the barrier (MPI-3 11.7: needed even in the unified model). */
    BCL_MPI_CHECK("MPI_Win_sync", MPI_Win_sync(bcl_rt.win));
    /* The synchronisation is an agreement (bcl_agree.h), not MPI_Ibarrier:
     * every collective of pybcl then begins with the same MPI operation, so
     * a rank in barrier() while a peer is in another collective is matched
     * with it and both raise, at any number of ranks (an Ibarrier against
     * an Iallreduce exchanged garbage at 2 ranks and hung at 4).  An
     * allreduce completes on no rank before every rank has joined it, which
     * is all a barrier promises; so does the shm transport's exchange
     * through memory (bcl_agree_node.h: no rank reads the records before all
     * are published, each published with release, read with acquire).  Both
     * wait in our own loop: patient when ranks outnumber cores,
     * interruptible, departure-aware. */
    if ((st = bcl_agree(what, BCL_OK, names, vals, n)) != BCL_OK)
        return st;
    BCL_MPI_CHECK("MPI_Win_sync", MPI_Win_sync(bcl_rt.win));
    return BCL_OK;
}

bcl_status bcl_barrier_named(const char *what)
{
    return bcl_barrier_agree(what, NULL, NULL, 0);
}

bcl_status bcl_barrier(void) { return bcl_barrier_named("barrier"); }
