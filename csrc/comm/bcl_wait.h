/*
 * bcl_wait.h -- how the communication layer's own files wait; the public
 * waits (bcl_wait, bcl_wait_pause, bcl_relax, bcl_progress) are in bcl_comm.h.
 *
 * MPI's blocking calls busy-poll.  When ranks outnumber cores, a rank
 * spinning in MPI_Win_flush or MPI_Barrier holds the core the target needs
 * to make progress, so in that case ("patient", docs/progress.md) every wait
 * is a loop of our own that yields (bcl_wait.c).
 */
#ifndef BCL_WAIT_H
#define BCL_WAIT_H

#include "comm/bcl_comm.h"

/* The patient policy: some node runs more ranks than the CPUs they may use
 * (bcl_runtime.h: oversubscribed; the same on every rank). */
static inline int bcl_patient(void) { return bcl_rt.oversubscribed; }

/* One pause of bcl_relax's spin loop, the `spins`-th in a row: as
 * bcl_wait_pause, with shorter spin and yield phases. */
void bcl_relax_pause(unsigned spins);

#endif /* BCL_WAIT_H */
