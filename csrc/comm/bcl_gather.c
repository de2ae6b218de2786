/* bcl_gather.c -- allgather of byte blobs on the runtime's communicator
 * (bcl_gather.h). */
#include "comm/bcl_gather.h"

#include <limits.h>
#include <stdlib.h>

#include "comm/bcl_comm.h"

/* Every rank's size, on every rank. */
static bcl_status gather_sizes(uint64_t n, uint64_t *sizes)
{
    MPI_Request rq;
    BCL_MPI_CHECK("MPI_Iallgather", MPI_Iallgather(&n, 1, MPI_UINT64_T, sizes, 1,
                                                   MPI_UINT64_T, bcl_rt.comm, &rq));
    return bcl_wait_collective(&rq, "allgather");
}

/* MPI's counts and displacements are ints: every rank sees the same sizes,
 * so every rank takes the same branch here. */
static bcl_status int_counts(const uint64_t *sizes, int p, int *counts, int *displs)
{
    uint64_t total = 0;
    for (int r = 0; r < p; r++) {
        if (sizes[r] > (uint64_t)INT_MAX || total > (uint64_t)INT_MAX - sizes[r])
            return bcl_set_error(BCL_ERR_ARG, "allgather: %llu bytes from rank %d after "
                                 "%llu from lower ranks exceed MPI's 2 GiB limit",
                                 (unsigned long long)sizes[r], r,
                                 (unsigned long long)total);
        counts[r] = (int)sizes[r];
        displs[r] = (int)total;
        total += sizes[r];
    }
    return BCL_OK;
}

/* Every rank learns whether every rank could allocate its receive buffer:
 * one rank failing alone must not leave the others in the Iallgatherv. */
static bcl_status all_allocated(int mine_ok)
{
    int64_t ok = mine_ok;
    bcl_status st = bcl_allreduce(&ok, 1, BCL_I64, BCL_MIN);
    if (st == BCL_OK && !ok)
        st = bcl_set_error(BCL_ERR_NOMEM, "allgather: %s had no memory for the gathered "
                           "bytes", mine_ok ? "another rank" : "this rank");
    return st;
}

bcl_status bcl_allgather_bytes(const void *mine, size_t n, unsigned char **out,
                               uint64_t **sizes)
{
    BCL_REQUIRE_INIT();
    *out = NULL;
    *sizes = NULL;
    int p = bcl_rt.nprocs;
    /* The three small tables (p words each): if even these cannot be had
     * this rank raises MemoryError before the first step, and the job ends
     * on it (an uncaught error aborts it: pybcl/_abort.py). */
    uint64_t *sz = malloc((size_t)p * sizeof *sz);
    int *counts = malloc((size_t)p * sizeof *counts);
    int *displs = malloc((size_t)p * sizeof *displs);
    unsigned char *buf = NULL;
    bcl_status st = sz && counts && displs
        ? gather_sizes((uint64_t)n, sz)
        : bcl_set_error(BCL_ERR_NOMEM, "allgather: no memory for %d sizes", p);
    if (st == BCL_OK)
        st = int_counts(sz, p, counts, displs);
    if (st == BCL_OK) {
        size_t total = (size_t)displs[p - 1] + (size_t)counts[p - 1];
        buf = malloc(total ? total : 1);
        st = all_allocated(buf != NULL);
    }
    if (st == BCL_OK) {
        MPI_Request rq;
        int rc = MPI_Iallgatherv(mine, (int)n, MPI_BYTE, buf, counts, displs, MPI_BYTE,
                                 bcl_rt.comm, &rq);
        st = rc != MPI_SUCCESS ? bcl_mpi_error("MPI_Iallgatherv", rc)
                               : bcl_wait_collective(&rq, "allgather");
    }
    free(counts);
    free(displs);
    if (st != BCL_OK) {
        free(sz);
        free(buf);
        return st;
    }
    *out = buf;
    *sizes = sz;
    return BCL_OK;
}
