/*
 * bcl_jobwin.h -- W_job: the window every MPI RMA operation of the job goes
 * through (bcl_rt.win), on the rma and rma-node transports.
 */
#ifndef BCL_JOBWIN_H
#define BCL_JOBWIN_H

#include <mpi.h>

#include "runtime/bcl_error.h"

/* Collective over bcl_rt.comm: bcl_rt.win over bcl_rt.segment_size bytes --
 * allocated by MPI into bcl_rt.local_base (plain rma), or with over_local
 * over the segment that is there already (rma-node: W_job over W_node's
 * memory) -- in a lock_all epoch. */
bcl_status bcl_job_window(int over_local);

/* Collective: complete this rank's operations on bcl_rt.win and end its
 * epoch there (and on *also, rma-node's W_node, when not NULL), wait until
 * every rank has -- so no rank frees a window a peer still targets -- and
 * free W_job, then *also.  An MPI return code (the first failure). */
int bcl_job_window_free(MPI_Win *also);

#endif /* BCL_JOBWIN_H */
