/*
 * bcl_nodewin.h -- the windows of the node-aware rma transport ("rma-node").
 *
 * Design A of docs/transports.md ("Node-aware rma"):
 *   W_node  MPI_Win_allocate_shared over the ranks of this node: it only
 *           provides the memory and maps every node peer's segment here
 *           (bcl_rt.bases[r], NULL for ranks on other nodes).  Never an RMA
 *           target.
 *   W_job   MPI_Win_create over the same local segment on the whole
 *           communicator (bcl_rt.win): every MPI operation of the job goes
 *           through it, every atomic included, even on this node.
 * Only data-word get/put to node peers bypass MPI (memcpy, ordered by
 * MPI_Win_sync on W_job: comm/bcl_data.c).
 */
#ifndef BCL_NODEWIN_H
#define BCL_NODEWIN_H

#include "runtime/bcl_error.h"

/* Collective over bcl_rt.comm: create W_node and W_job for bcl_rt.segment_size,
 * fill bcl_rt.local_base, bcl_rt.bases, bcl_rt.node_win, bcl_rt.win, and open
 * a lock_all epoch on both. */
bcl_status bcl_nodewin_create(void);

/* Collective: *unified = 1 iff both windows are MPI_WIN_UNIFIED on every rank
 * (the load/store path is unsound with separate public/private copies). */
bcl_status bcl_nodewin_unified(int *unified);

/* Collective: close the epochs and free both windows and the segment table
 * (the fallback to plain rma, and bcl_finalize).  Flushes W_job first. */
bcl_status bcl_nodewin_free(void);

#endif /* BCL_NODEWIN_H */
