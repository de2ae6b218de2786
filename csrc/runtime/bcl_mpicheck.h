/*
 * bcl_mpicheck.h -- does this MPI library provide what pybcl is built on?
 *
 * pybcl needs MPI-3 one-sided communication (MPI_Win_allocate[_shared],
 * passive-target lock_all/flush, MPI_Fetch_and_op, MPI_Compare_and_swap,
 * MPI_Get_accumulate), a window memory model that is UNIFIED (local loads and
 * stores to the segment and remote RMA see one copy: local() views, the shm
 * transport and the allocator's in-segment bookkeeping rely on it).  Headers can be newer than the
 * library actually loaded (MPICH keeps one ABI from 3.1 on), so this is a run
 * time check.  Every answer here is the same on every rank of one job, so a
 * refusal is raised by all ranks at once and nobody is left waiting.
 */
#ifndef BCL_MPICHECK_H
#define BCL_MPICHECK_H

#include <mpi.h>

#include "runtime/bcl_error.h"

/* Before any window exists: MPI standard version >= 3.0.  (The thread level
 * the progress thread needs is checked where it starts, bcl_progress.c.) */
bcl_status bcl_check_mpi_library(void);

/* After the window is created: its memory model must be MPI_WIN_UNIFIED. */
bcl_status bcl_check_window_model(MPI_Win win);

/* "MPICH Version: 4.0.2 ..." style first line of MPI_Get_library_version,
 * for messages and diagnostics; never fails (empty string on error). */
const char *bcl_mpi_library_name(void);

#endif /* BCL_MPICHECK_H */
