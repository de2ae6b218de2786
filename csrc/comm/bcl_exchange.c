/* bcl_exchange.c -- alltoall of counts and alltoallv of bytes on the
 * runtime's communicator (bcl_exchange.h). */
#include "comm/bcl_exchange.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcl_comm.h"

/* int counts and displacements of n sizes; 0 if they do not fit. */
static int to_ints(const uint64_t *n, int p, int *counts, int *displs)
{
    uint64_t total = 0;
    for (int r = 0; r < p; r++) {
        if (n[r] > (uint64_t)INT_MAX || total > (uint64_t)INT_MAX - n[r])
            return 0;
        counts[r] = (int)n[r];
        displs[r] = (int)total;
        total += n[r];
    }
    return 1;
}

bcl_status bcl_alltoallv_bytes(const unsigned char *const *send, const size_t *sendn,
                               unsigned char **out, size_t *outn)
{
    BCL_REQUIRE_INIT();
    *out = NULL;
    *outn = 0;
    int p = bcl_rt.nprocs;
    uint64_t *sz = malloc(2 * (size_t)p * sizeof *sz);
    int *ints = malloc(4 * (size_t)p * sizeof *ints);
    unsigned char *sbuf = NULL, *rbuf = NULL;
    if (!sz || !ints) {
        /* As bcl_gather.c: this rank raises MemoryError before the first
         * step, and the job ends on it. */
        free(sz);
        free(ints);
        return bcl_set_error(BCL_ERR_NOMEM, "alltoall: no memory for %d sizes", p);
    }
    for (int r = 0; r < p; r++)
        sz[r] = sendn[r];
    MPI_Request rq0;
    int rc0 = MPI_Ialltoall(sz, 1, MPI_UINT64_T, sz + p, 1, MPI_UINT64_T, bcl_rt.comm, &rq0);
    bcl_status st = rc0 != MPI_SUCCESS ? bcl_mpi_error("MPI_Ialltoall", rc0)
                                       : bcl_wait_collective(&rq0, "alltoall");
    if (st != BCL_OK) {
        free(sz);
        free(ints);
        return st;
    }
    int *sc = ints, *sd = ints + p, *rc_ = ints + 2 * p, *rd = ints + 3 * p;
    int fits = to_ints(sz, p, sc, sd) && to_ints(sz + p, p, rc_, rd);
    size_t stot = 0, rtot = 0;
    if (fits) {
        stot = (size_t)sd[p - 1] + (size_t)sc[p - 1];
        rtot = (size_t)rd[p - 1] + (size_t)rc_[p - 1];
        sbuf = malloc(stot ? stot : 1);
        rbuf = malloc(rtot ? rtot : 1);
    }
    /* -1: no memory; 0: over MPI's counts; 1: fine. */
    int64_t state = !fits ? 0 : (sbuf && rbuf) ? 1 : -1, all = state;
    st = bcl_allreduce(&all, 1, BCL_I64, BCL_MIN);
    if (st == BCL_OK && all < 1)
        st = all < 0
            ? bcl_set_error(BCL_ERR_NOMEM, "alltoall: %s had no memory for the exchanged "
                            "bytes", state < 0 ? "this rank" : "another rank")
            : bcl_set_error(BCL_ERR_ARG, "alltoall: a rank would send or receive more "
                            "than MPI's 2 GiB limit in one exchange");
    if (st == BCL_OK) {
        for (int r = 0; r < p; r++)
            if (sc[r])
                memcpy(sbuf + sd[r], send[r], (size_t)sc[r]);
        MPI_Request rq;
        int rc = MPI_Ialltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc_, rd, MPI_BYTE,
                                bcl_rt.comm, &rq);
        st = rc != MPI_SUCCESS ? bcl_mpi_error("MPI_Ialltoallv", rc)
                               : bcl_wait_collective(&rq, "alltoallv");
    }
    free(sbuf);
    free(sz);
    free(ints);
    if (st != BCL_OK) {
        free(rbuf);
        return st;
    }
    *out = rbuf;
    *outn = rtot;
    return BCL_OK;
}

bcl_status bcl_alltoall_u64(const uint64_t *count, uint64_t *got)
{
    BCL_REQUIRE_INIT();
    MPI_Request rq;
    int rc = MPI_Ialltoall(count, 1, MPI_UINT64_T, got, 1, MPI_UINT64_T, bcl_rt.comm, &rq);
    return rc != MPI_SUCCESS ? bcl_mpi_error("MPI_Ialltoall", rc)
                             : bcl_wait_collective(&rq, "alltoall");
}

bcl_status bcl_alltoallv_known(const unsigned char *send, const uint64_t *sendn,
                               unsigned char *recv, const uint64_t *recvn)
{
    BCL_REQUIRE_INIT();
    int p = bcl_rt.nprocs;
    int *ints = malloc(4 * (size_t)p * sizeof *ints);
    if (!ints)
        return bcl_set_error(BCL_ERR_NOMEM, "alltoallv: no memory for %d counts", p);
    int *sc = ints, *sd = ints + p, *rc_ = ints + 2 * p, *rd = ints + 3 * p;
    bcl_status st = BCL_OK;
    if (!to_ints(sendn, p, sc, sd) || !to_ints(recvn, p, rc_, rd))
        st = bcl_set_error(BCL_ERR_ARG, "alltoallv: over MPI's 2 GiB limit in one exchange");
    if (st == BCL_OK) {
        MPI_Request rq;
        /* MPI wants non-NULL buffers even where every count is 0 */
        static unsigned char none;
        int rc = MPI_Ialltoallv(send ? send : &none, sc, sd, MPI_BYTE, recv ? recv : &none,
                                rc_, rd, MPI_BYTE, bcl_rt.comm, &rq);
        st = rc != MPI_SUCCESS ? bcl_mpi_error("MPI_Ialltoallv", rc)
                               : bcl_wait_collective(&rq, "alltoallv");
    }
    free(ints);
    return st;
}
