/* bcl_indexed.c -- offsets and target datatype of the indexed calls (see header). */
#include "comm/bcl_indexed.h"

#include <stdlib.h>

bcl_status bcl_indexed_check(int rank, const uint64_t *offsets, size_t n, size_t width)
{
    for (size_t i = 0; i < n; i++) {
        bcl_status st = bcl_check_range(bcl_gptr_make(rank, offsets[i]), width);
        if (st != BCL_OK)
            return st;
        if (offsets[i] % width)
            return bcl_set_error(BCL_ERR_ARG, "offset %llu is not %zu-byte aligned",
                                 (unsigned long long)offsets[i], width);
    }
    return BCL_OK;
}

bcl_status bcl_indexed_type(const uint64_t *offsets, size_t n, MPI_Datatype elem,
                            MPI_Datatype *dt)
{
    MPI_Aint *disp = malloc(n * sizeof *disp);
    if (!disp)
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for %zu displacements", n);
    for (size_t i = 0; i < n; i++)
        disp[i] = (MPI_Aint)offsets[i];
    int rc = MPI_Type_create_hindexed_block((int)n, 1, disp, elem, dt);
    free(disp);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Type_create_hindexed_block", rc);
    if ((rc = MPI_Type_commit(dt)) != MPI_SUCCESS) {
        MPI_Type_free(dt);
        return bcl_mpi_error("MPI_Type_commit", rc);
    }
    return BCL_OK;
}
