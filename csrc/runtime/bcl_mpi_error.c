/* bcl_mpi_error.c -- an MPI call's failure as a core error (bcl_mpi_error.h). */
#include "runtime/bcl_mpi_error.h"

#include <stdio.h>

bcl_status bcl_mpi_error(const char *call, int mpi_rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error code %d", mpi_rc);
    return bcl_set_error(BCL_ERR_MPI, "%s failed: %s", call, msg);
}
