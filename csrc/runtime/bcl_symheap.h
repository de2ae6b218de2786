/*
 * bcl_symheap.h -- keep MPICH from looking for a symmetric heap.
 *
 * MPICH's ch4 device tries to map every window MPI allocates at one virtual
 * address in all processes (a "symmetric heap"), and checks that the range
 * is free with one msync() per 4 KiB page: 0.4 s at two ranks with 2 GiB
 * segments, inside MPI_Win_allocate[_shared], on every job.  pybcl never
 * relies on symmetric addresses (it asks MPI_Win_shared_query for each
 * peer's base, and RMA takes offsets), so before its windows are created
 * it sets MPICH's control variable MPIR_CVAR_SHM_SYMHEAP_RETRY to 0 through
 * the MPI tool interface.  A value the user exported wins; an MPI without
 * that variable is left alone.
 */
#ifndef BCL_SYMHEAP_H
#define BCL_SYMHEAP_H

void bcl_skip_symmetric_heap(void);

#endif /* BCL_SYMHEAP_H */
