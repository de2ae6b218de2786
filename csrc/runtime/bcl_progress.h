/*
 * bcl_progress.h -- optional progress thread (PYBCL_ASYNC_PROGRESS=1).
 *
 * With MPICH, RMA aimed at a rank completes only while that rank is inside
 * MPI.  A rank that computes for long outside pybcl stalls everybody who
 * targets it.  The progress thread polls MPI every few microseconds and
 * sleeps in between, so targets answer within ~tens of microseconds while
 * costing little CPU (MPICH's own MPIR_CVAR_ASYNC_PROGRESS thread spins and
 * measured slower in every case, docs/progress.md).  Needs
 * MPI_THREAD_MULTIPLE, which mpi4py requests by default.
 */
#ifndef BCL_PROGRESS_H
#define BCL_PROGRESS_H

#include "runtime/bcl_error.h"

bcl_status bcl_progress_thread_start(unsigned interval_us);
void bcl_progress_thread_stop(void);

#endif /* BCL_PROGRESS_H */
