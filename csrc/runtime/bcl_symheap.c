/* bcl_symheap.c -- keep MPICH from looking for a symmetric heap (see bcl_symheap.h). */
#include "runtime/bcl_symheap.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define SYMHEAP_CVAR "MPIR_CVAR_SHM_SYMHEAP_RETRY"

/* Only MPICH has the variable; and the tool interface is started at the
 * thread level MPI already has (Open MPI lowers MPI's own level to the one
 * MPI_T_init_thread asks for). */
static int mpich(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    return MPI_Get_library_version(lib, &len) == MPI_SUCCESS && strstr(lib, "MPICH") != NULL;
}

void bcl_skip_symmetric_heap(void)
{
    if (getenv(SYMHEAP_CVAR) || getenv("MPICH_SHM_SYMHEAP_RETRY") || !mpich())
        return;                          /* the user's choice, or not MPICH */
    int level, provided, index, count, zero = 0;
    if (MPI_Query_thread(&level) != MPI_SUCCESS ||
        MPI_T_init_thread(level, &provided) != MPI_SUCCESS)
        return;
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_get_index(SYMHEAP_CVAR, &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) == MPI_SUCCESS) {
        if (count == 1)
            (void)MPI_T_cvar_write(handle, &zero);   /* read-only: nothing changes */
        MPI_T_cvar_handle_free(&handle);
    }
    MPI_T_finalize();
}
