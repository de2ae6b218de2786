/* bcl_nodewin.c -- W_node (node mapping) + W_job (all MPI RMA): see header. */
#include "runtime/bcl_nodewin.h"

#include <stdlib.h>

#include "runtime/bcl_jobwin.h"
#include "runtime/bcl_runtime.h"

/* Allocate this rank's segment in the node's shared memory (W_node). */
static bcl_status allocate_node_segment(MPI_Comm node)
{
    MPI_Info info;
    BCL_MPI_CHECK("MPI_Info_create", MPI_Info_create(&info));
    /* As the shm transport: page-aligned per-rank pieces, so each segment
     * stays on its owner's NUMA node and hot words never share a line. */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int rc = MPI_Win_allocate_shared((MPI_Aint)bcl_rt.segment_size, 1, info, node,
                                     &bcl_rt.local_base, &bcl_rt.node_win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Win_allocate_shared", rc);
    BCL_MPI_CHECK("MPI_Win_set_errhandler",
                  MPI_Win_set_errhandler(bcl_rt.node_win, MPI_ERRORS_RETURN));
    /* No RMA is ever issued on W_node, but the loads/stores to its memory
     * belong in an access epoch (MPI-3.1 11.5.4); lock_all costs nothing. */
    BCL_MPI_CHECK("MPI_Win_lock_all",
                  MPI_Win_lock_all(MPI_MODE_NOCHECK, bcl_rt.node_win));
    return BCL_OK;
}

/* bases[r] = node peer r's segment mapped here, NULL for other nodes.  The
 * node communicator numbers ranks differently: translate through groups. */
static bcl_status map_node_peers(MPI_Comm node)
{
    int n = 0;
    BCL_MPI_CHECK("MPI_Comm_size", MPI_Comm_size(node, &n));
    bcl_rt.bases = calloc((size_t)bcl_rt.nprocs, sizeof *bcl_rt.bases);
    int *local = malloc((size_t)n * sizeof *local);
    int *global = malloc((size_t)n * sizeof *global);
    bcl_status st = BCL_OK;
    if (!bcl_rt.bases || !local || !global)
        st = bcl_set_error(BCL_ERR_NOMEM, "out of memory for the node segment table");
    MPI_Group gnode = MPI_GROUP_NULL, gjob = MPI_GROUP_NULL;
    int rc = MPI_SUCCESS;
    if (st == BCL_OK) {
        for (int i = 0; i < n; i++)
            local[i] = i;
        rc = MPI_Comm_group(node, &gnode);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_group(bcl_rt.comm, &gjob);
        if (rc == MPI_SUCCESS)
            rc = MPI_Group_translate_ranks(gnode, n, local, gjob, global);
        if (rc != MPI_SUCCESS)
            st = bcl_mpi_error("MPI_Group_translate_ranks", rc);
    }
    for (int i = 0; st == BCL_OK && i < n; i++) {
        MPI_Aint size;
        int disp;
        void *base;
        rc = MPI_Win_shared_query(bcl_rt.node_win, i, &size, &disp, &base);
        if (rc != MPI_SUCCESS)
            st = bcl_mpi_error("MPI_Win_shared_query", rc);
        else if (global[i] < 0 || global[i] >= bcl_rt.nprocs)
            st = bcl_set_error(BCL_ERR_STATE, "node rank %d has no job rank", i);
        else
            bcl_rt.bases[global[i]] = base;
    }
    if (gnode != MPI_GROUP_NULL)
        MPI_Group_free(&gnode);
    if (gjob != MPI_GROUP_NULL)
        MPI_Group_free(&gjob);
    free(local);
    free(global);
    return st;
}

bcl_status bcl_nodewin_create(void)
{
    MPI_Comm node;
    BCL_MPI_CHECK("MPI_Comm_split_type",
                  MPI_Comm_split_type(bcl_rt.comm, MPI_COMM_TYPE_SHARED, 0,
                                      MPI_INFO_NULL, &node));
    bcl_status st = allocate_node_segment(node);
    if (st == BCL_OK)
        st = map_node_peers(node);
    MPI_Comm_free(&node);
    if (st == BCL_OK)
        st = bcl_job_window(1);   /* W_job over W_node's memory */
    return st;
}

static bcl_status window_unified(MPI_Win win, int *unified)
{
    int *model = NULL, found = 0;
    BCL_MPI_CHECK("MPI_Win_get_attr", MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &found));
    *unified = found && *model == MPI_WIN_UNIFIED;
    return BCL_OK;
}

bcl_status bcl_nodewin_unified(int *unified)
{
    int a = 0, b = 0;
    bcl_status st = window_unified(bcl_rt.node_win, &a);
    if (st == BCL_OK)
        st = window_unified(bcl_rt.win, &b);
    if (st != BCL_OK)
        return st;
    *unified = a && b;
    BCL_MPI_CHECK("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, unified, 1, MPI_INT,
                                                 MPI_MIN, bcl_rt.comm));
    return BCL_OK;
}

bcl_status bcl_nodewin_free(void)
{
    /* W_job first (it exposes W_node's memory), each after its epoch ends. */
    int rc = bcl_job_window_free(&bcl_rt.node_win);
    free(bcl_rt.bases);
    bcl_rt.bases = NULL;
    bcl_rt.local_base = NULL;
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("rma-node window teardown", rc);
    return BCL_OK;
}
