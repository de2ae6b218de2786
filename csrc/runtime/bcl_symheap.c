/* bcl_symheap.c -- keep MPICH from looking for a symmetric heap (see bcl_symheap.h). */
#include "runtime/bcl_symheap.h"

#include <mpi.h>
#include <stdlib.h>

#define SYMHEAP_CVAR "MPIR_CVAR_SHM_SYMHEAP_RETRY"

void bcl_skip_symmetric_heap(void)
{
    if (getenv(SYMHEAP_CVAR) || getenv("MPICH_SHM_SYMHEAP_RETRY"))
        return;                          /* the user's choice */
    int provided, index, count, zero = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
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
