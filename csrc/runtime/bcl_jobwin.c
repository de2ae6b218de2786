/* bcl_jobwin.c -- W_job, the window every MPI RMA of the job goes through
 * (bcl_jobwin.h). */
#include "runtime/bcl_jobwin.h"

#include "runtime/bcl_runtime.h"

bcl_status bcl_job_window(int over_local)
{
    MPI_Info info;
    BCL_MPI_CHECK("MPI_Info_create", MPI_Info_create(&info));
    /* Every rank's segment has the same size, which lets MPICH skip the
     * per-target size lookup.  accumulate_ops is deliberately left at its
     * default: we mix CAS, fetch-and-op and accumulate on one word, which
     * "same_op"/"same_op_no_op" would forbid. */
    MPI_Info_set(info, "same_size", "true");
    MPI_Info_set(info, "same_disp_unit", "true");
    MPI_Aint size = (MPI_Aint)bcl_rt.segment_size;
    int rc = over_local
        ? MPI_Win_create(bcl_rt.local_base, size, 1, info, bcl_rt.comm, &bcl_rt.win)
        : MPI_Win_allocate(size, 1, info, bcl_rt.comm, &bcl_rt.local_base, &bcl_rt.win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error(over_local ? "MPI_Win_create" : "MPI_Win_allocate", rc);
    BCL_MPI_CHECK("MPI_Win_set_errhandler",
                  MPI_Win_set_errhandler(bcl_rt.win, MPI_ERRORS_RETURN));
    BCL_MPI_CHECK("MPI_Win_lock_all", MPI_Win_lock_all(MPI_MODE_NOCHECK, bcl_rt.win));
    return BCL_OK;
}

int bcl_job_window_free(MPI_Win *also)
{
    int rc = MPI_Win_flush_all(bcl_rt.win);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_unlock_all(bcl_rt.win);
    if (rc == MPI_SUCCESS && also)
        rc = MPI_Win_unlock_all(*also);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(bcl_rt.comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_free(&bcl_rt.win);
    if (rc == MPI_SUCCESS && also)
        rc = MPI_Win_free(also);
    return rc;
}
