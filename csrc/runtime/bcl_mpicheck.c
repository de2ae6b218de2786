/* bcl_mpicheck.c -- refuse, with one clear message, an MPI pybcl cannot use. */
#include "runtime/bcl_mpicheck.h"

#include "runtime/bcl_mpi_error.h"

#include <string.h>

const char *bcl_mpi_library_name(void)
{
    static char name[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(name, &len) != MPI_SUCCESS)
        return "";
    name[len < (int)sizeof name ? len : (int)sizeof name - 1] = '\0';
    name[strcspn(name, "\n")] = '\0';           /* the first line says enough */
    return name;
}

bcl_status bcl_check_mpi_library(void)
{
    int major = 0, minor = 0;
    BCL_MPI_CHECK("MPI_Get_version", MPI_Get_version(&major, &minor));
    if (major < 3)
        return bcl_set_error(BCL_ERR_STATE,
                             "pybcl needs an MPI-3 library (one-sided windows, "
                             "passive-target flush, atomics); %s implements MPI %d.%d",
                             bcl_mpi_library_name(), major, minor);
    return BCL_OK;
}

bcl_status bcl_check_window_model(MPI_Win win)
{
    int *model = NULL, found = 0;
    BCL_MPI_CHECK("MPI_Win_get_attr",
                  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &found));
    if (found && *model != MPI_WIN_UNIFIED)
        return bcl_set_error(BCL_ERR_STATE,
                             "pybcl needs the MPI_WIN_UNIFIED memory model, but %s gives "
                             "this window MPI_WIN_SEPARATE (local views and remote RMA "
                             "would not see one copy of the segment)",
                             bcl_mpi_library_name());
    return BCL_OK;
}
