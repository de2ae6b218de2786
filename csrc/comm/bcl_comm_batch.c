/* bcl_comm_batch.c -- one atomic op over many words of one rank (see header). */
#include "comm/bcl_comm_batch.h"

#include <limits.h>
#include <stdlib.h>

bcl_status bcl_fetch_op_indexed_nb(int rank, const uint64_t *offsets, size_t n,
                                   bcl_atomic_op op, const uint64_t *operands,
                                   uint64_t *results)
{
    BCL_REQUIRE_INIT();
    if (n == 0)
        return BCL_OK;
    if (n > INT_MAX)
        return bcl_set_error(BCL_ERR_ARG, "batch of %zu words is too large", n);
    for (size_t i = 0; i < n; i++) {
        bcl_status st = bcl_check_range(bcl_gptr_make(rank, offsets[i]), 8);
        if (st != BCL_OK)
            return st;
        if (offsets[i] % 8u)
            return bcl_set_error(BCL_ERR_ARG, "offset %llu is not 8-byte aligned",
                                 (unsigned long long)offsets[i]);
    }
    if (bcl_rt.transport == BCL_TRANSPORT_SHM) {
        for (size_t i = 0; i < n; i++) {
            uint64_t *w = bcl_local_addr(bcl_gptr_make(rank, offsets[i]));
            uint64_t v = operands[i];
            switch (op) {
            case BCL_OP_ADD: results[i] = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_OR: results[i] = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_AND: results[i] = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_XOR: results[i] = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_REPLACE: results[i] = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break;
            default: results[i] = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;
            }
        }
        return BCL_OK;
    }
    MPI_Aint *disp = malloc(n * sizeof *disp);
    if (!disp)
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for %zu displacements", n);
    for (size_t i = 0; i < n; i++)
        disp[i] = (MPI_Aint)offsets[i];
    MPI_Datatype dt;
    int rc = MPI_Type_create_hindexed_block((int)n, 1, disp, MPI_UINT64_T, &dt);
    free(disp);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Type_create_hindexed_block", rc);
    if ((rc = MPI_Type_commit(&dt)) != MPI_SUCCESS) {
        MPI_Type_free(&dt);
        return bcl_mpi_error("MPI_Type_commit", rc);
    }
    bcl_comm_issued(rank);
    rc = MPI_Get_accumulate(operands, (int)n, MPI_UINT64_T, results, (int)n, MPI_UINT64_T,
                            rank, 0, 1, dt, bcl_mpi_op(op), bcl_rt.win);
    MPI_Type_free(&dt);   /* the pending operation keeps what it needs */
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Get_accumulate", rc);
    return BCL_OK;
}
