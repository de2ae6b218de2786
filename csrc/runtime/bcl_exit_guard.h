/*
 * bcl_exit_guard.h -- a bound on how long MPI_Finalize may take at exit.
 *
 * MPICH 4.0.2 over UCX's TCP transport sometimes never returns from
 * MPI_Finalize (docs/multinode.md, tests/repro/teardown_loop.py): one rank
 * spins closing an endpoint whose flush needs a peer, and that peer already
 * sits in the PMI barrier that follows the disconnects, progressing nothing.
 * No order of pybcl's own teardown avoids it (plain mpi4py hangs the same
 * way); it is UCX's open issue 8738 meeting MPICH 4.0.2's finalize order.
 *
 * The guard is armed only at interpreter exit, after pybcl's last collective
 * barrier: every rank's work is complete and no peer touches this rank's
 * memory any more, so if MPI's teardown has not returned `seconds` later the
 * process reports it on stderr and ends itself with exit status 0.
 */
#ifndef BCL_EXIT_GUARD_H
#define BCL_EXIT_GUARD_H

#include "runtime/bcl_error.h"

/* Start a detached thread that ends the process `seconds` from now (> 0). */
bcl_status bcl_exit_guard_arm(double seconds, int rank);

#endif /* BCL_EXIT_GUARD_H */
