/*
 * bcl_mpi_error.h -- an MPI call's failure as a core error.
 *
 * Apart from bcl_error.h, which the plain-C pieces (the codec, the
 * allocator, the kernels) use without MPI; and apart from the runtime's
 * state (bcl_runtime.h), so that runtime files that only call MPI need not
 * include it (the runtime and its helpers would include each other).
 */
#ifndef BCL_MPI_ERROR_H
#define BCL_MPI_ERROR_H

#include <mpi.h>

#include "runtime/bcl_error.h"

/* Shorthand for the error path of an MPI call: records "MPI_Xxx failed: ..."
 * and returns BCL_ERR_MPI. */
bcl_status bcl_mpi_error(const char *call, int mpi_rc);

/* Return bcl_mpi_error(call, rc) from the enclosing function when `expr`
 * (an MPI call) fails. */
#define BCL_MPI_CHECK(call, expr)                                  \
    do {                                                            \
        int bcl_mpi_rc_ = (expr);                                   \
        if (bcl_mpi_rc_ != MPI_SUCCESS)                             \
            return bcl_mpi_error(call, bcl_mpi_rc_);                \
    } while (0)

#endif /* BCL_MPI_ERROR_H */
