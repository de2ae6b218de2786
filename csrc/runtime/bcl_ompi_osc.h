/*
 * bcl_ompi_osc.h -- Open MPI releases whose osc/rdma component crashes in
 * MPI_Compare_and_swap, and what pybcl does about them.
 *
 * Open MPI 4.0.0-4.0.4 and 4.1.0-4.1.4 (Debian 12 ships 4.1.4): on a window
 * served by osc/rdma, a 64-bit MPI_Compare_and_swap whose target is on the
 * same node is sent through btl/vader's emulated atomics, and that peer has
 * no usable vader endpoint (itself: a NULL endpoint, SIGSEGV at 0x150 in
 * mca_btl_vader_send; a neighbour: SIGSEGV in the handler of the emulated
 * CAS).  open-mpi/ompi#7027; fixed by doing the CAS in shared memory (#7113),
 * in 4.0.5 (#7969) and 4.1.5 (#10513).  32-bit CAS and fetch-and-op take
 * another path and work.  Plain MPI reproduces it (docs/install.md).
 *
 * osc/rdma wins on one node (priority 101, and vader reaches every local
 * peer), so pybcl's rma transport on one node always hits it.  The other
 * components (ucx, sm, pt2pt) are unaffected, so pybcl keeps osc/rdma out:
 *   - before MPI starts, `import pybcl` defaults OMPI_MCA_osc=^rdma
 *     (bcl_mpi_env_default; a value the user exported wins);
 *   - at init on the rma (or rma-node) transport, a job on an affected release whose osc
 *     selection still allows rdma (MPI started before pybcl was imported, an
 *     explicit `--mca osc rdma`) is refused on every rank with one message,
 *     instead of crashing at its first hash-map insert.
 * The shm transport never calls MPI atomics and is not affected.
 */
#ifndef BCL_OMPI_OSC_H
#define BCL_OMPI_OSC_H

#include <mpi.h>

#include "runtime/bcl_error.h"

/* 1 when the loaded MPI library is an Open MPI release with the defect.
 * Reads MPI_Get_library_version, which MPI-3 allows before MPI_Init. */
int bcl_ompi_cas_defect(void);

/* The environment default pybcl sets before MPI_Init on such a release:
 * name and value, or NULL names when this library needs none. */
void bcl_mpi_env_default(const char **name, const char **value);

/* Collective over `comm` (every rank gets the same answer): BCL_OK unless
 * this is an affected release whose "osc" selection still allows rdma. */
bcl_status bcl_check_ompi_osc(MPI_Comm comm);

#endif /* BCL_OMPI_OSC_H */
