/*
 * bcl_memcheck.h -- does the node have the memory for the segments asked for?
 *
 * A window larger than the node can hold does not fail cleanly: MPICH's
 * MPI_Win_allocate was seen to spin for minutes in an msync loop, and a rank
 * that fails alone leaves its peers inside the collective.  So bcl_init asks
 * first, on every rank, and all ranks agree (one allreduce) before any
 * window exists: either every rank allocates or every rank raises
 * SegmentFull with the same message.
 */
#ifndef BCL_MEMCHECK_H
#define BCL_MEMCHECK_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

/* Bytes this node can still give to new memory: the least of MemAvailable
 * (/proc/meminfo), the cgroup's memory limit minus its usage, and with
 * `shm` the free space of /dev/shm.  *what names the bound that won.
 * UINT64_MAX (and "unknown") when none could be read. */
uint64_t bcl_node_memory_available(int shm, const char **what);

/* Collective over `comm`: BCL_ERR_SEGFULL on every rank when some node's
 * ranks' segments (node ranks x segment_size) exceed its available memory. */
bcl_status bcl_check_segments_fit(MPI_Comm comm, size_t segment_size, int shm);

#endif /* BCL_MEMCHECK_H */
