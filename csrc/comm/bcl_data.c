/* bcl_data.c -- get and put on every transport (bcl_comm.h). */
#include "comm/bcl_comm.h"

#include <string.h>

#include "comm/bcl_flush.h"
#include "comm/bcl_quiet.h"
#include "comm/bcl_wait.h"

/* rma-node (docs/transports.md, "Node-aware rma", design A): the address of
 * a node peer's (or our own) segment byte, or NULL when p must go through
 * MPI.  Only data-word get/put use it; atomics never do, so no word ever
 * meets both CPU atomics and MPI atomics. */
static unsigned char *node_addr(bcl_gptr p)
{
    if (bcl_rt.transport != BCL_TRANSPORT_RMA_NODE || !bcl_rt.bases[p.rank])
        return NULL;
    return bcl_rt.bases[p.rank] + p.offset;
}

/* Orders this rank's loads/stores of node segments with the MPI operations
 * on bcl_rt.win (MPI-3.1 11.7, unified model): a writer syncs after its
 * stores and before the MPI atomic that publishes them; a reader syncs
 * after the MPI atomic that saw the publication completed, before its
 * loads.  In MPICH it is a memory barrier, not a round trip. */
static bcl_status node_sync(void)
{
    BCL_MPI_CHECK("MPI_Win_sync", MPI_Win_sync(bcl_rt.win));
    return BCL_OK;
}

/* Both make no call that runs MPI's progress engine (bcl_quiet.h). */
static bcl_status node_get(void *dst, const unsigned char *src, size_t n)
{
    bcl_quiet_op();
    bcl_status st = node_sync();
    if (st == BCL_OK)
        memcpy(dst, src, n);
    return st;
}

static bcl_status node_put(unsigned char *dst, const void *src, size_t n)
{
    bcl_quiet_op();
    memcpy(dst, src, n);
    return node_sync();
}

bcl_status bcl_check_range(bcl_gptr p, size_t nbytes)
{
    BCL_REQUIRE_INIT();
    if (p.rank < 0 || p.rank >= bcl_rt.nprocs)
        return bcl_set_error(BCL_ERR_BOUNDS, "rank %d is not in [0, %d)",
                             (int)p.rank, bcl_rt.nprocs);
    if (p.offset < BCL_SEGMENT_RESERVED)
        return bcl_set_error(BCL_ERR_BOUNDS,
                             "offset %llu is the null pointer or the runtime's "
                             "reserved header", (unsigned long long)p.offset);
    if (p.offset > bcl_rt.segment_size || nbytes > bcl_rt.segment_size - p.offset)
        return bcl_set_error(BCL_ERR_BOUNDS,
                             "offset %llu + %zu bytes is past the end of rank %d's "
                             "%zu-byte segment", (unsigned long long)p.offset, nbytes,
                             (int)p.rank, bcl_rt.segment_size);
    return BCL_OK;
}

/* ---- data movement ---------------------------------------------------- */

/* A get (put = 0) or put of n bytes between local and remote, in pieces
 * that fit MPI's int counts. */
static bcl_status rma_move(int put, unsigned char *local, bcl_gptr remote, size_t n)
{
    bcl_comm_issued(remote.rank);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < BCL_MPI_CHUNK ? n - done : BCL_MPI_CHUNK;
        MPI_Aint at = (MPI_Aint)(remote.offset + done);
        int rc = put ? MPI_Put(local + done, (int)k, MPI_BYTE, remote.rank, at, (int)k,
                               MPI_BYTE, bcl_rt.win)
                     : MPI_Get(local + done, (int)k, MPI_BYTE, remote.rank, at, (int)k,
                               MPI_BYTE, bcl_rt.win);
        BCL_MPI_CHECK(put ? "MPI_Put" : "MPI_Get", rc);
        done += k;
    }
    return BCL_OK;
}

static bcl_status rma_get(void *dst, bcl_gptr src, size_t n)
{
    return rma_move(0, dst, src, n);
}

static bcl_status rma_put(bcl_gptr dst, const void *src, size_t n)
{
    return rma_move(1, (unsigned char *)src, dst, n);    /* MPI_Put only reads it */
}

bcl_status bcl_get_nb(void *dst, bcl_gptr src, size_t nbytes)
{
    bcl_status st = bcl_check_range(src, nbytes);
    if (st != BCL_OK)
        return st;
    if (bcl_comm_direct()) {
        memcpy(dst, bcl_local_addr(src), nbytes);
        return BCL_OK;
    }
    unsigned char *near = node_addr(src);
    if (near)                 /* complete on return: never dirty */
        return node_get(dst, near, nbytes);
    /* Our own segment too goes through MPI on rma: a load racing with a
     * peer's accumulate is undefined, and MPI to self is a local copy.
     * (rma-node loads data words only, which the containers' protocols
     * keep from racing with anything.) */
    return rma_get(dst, src, nbytes);
}

bcl_status bcl_put_nb(bcl_gptr dst, const void *src, size_t nbytes)
{
    bcl_status st = bcl_check_range(dst, nbytes);
    if (st != BCL_OK)
        return st;
    if (bcl_comm_direct()) {
        memcpy(bcl_local_addr(dst), src, nbytes);
        return BCL_OK;
    }
    unsigned char *near = node_addr(dst);
    if (near)                 /* complete on return: never dirty */
        return node_put(near, src, nbytes);
    return rma_put(dst, src, nbytes);
}

bcl_status bcl_get(void *dst, bcl_gptr src, size_t nbytes)
{
    int was_dirty = !bcl_comm_direct() && bcl_flush_pending(src.rank);
    bcl_status st = bcl_get_nb(dst, src, nbytes);
    if (st != BCL_OK || bcl_comm_direct() || (bcl_rt.initialized && node_addr(src)))
        return st;
    if (bcl_patient())
        return bcl_flush_patiently(src.rank);
    BCL_MPI_CHECK("MPI_Win_flush_local", MPI_Win_flush_local(src.rank, bcl_rt.win));
    if (!was_dirty)          /* a completed get leaves nothing to flush */
        bcl_flush_forget(src.rank);
    return BCL_OK;
}

bcl_status bcl_put_detached(bcl_gptr dst, const void *src, size_t nbytes)
{
    if (bcl_rt.initialized && dst.rank >= 0 && dst.rank < bcl_rt.nprocs && node_addr(dst))
        return bcl_put_nb(dst, src, nbytes);      /* a memcpy: complete already */
    if (bcl_comm_direct() || nbytes > BCL_STAGE_MAX_PUT || bcl_patient()) {
        bcl_status st = bcl_put_nb(dst, src, nbytes);
        if (st != BCL_OK || bcl_comm_direct())
            return st;
        if (bcl_patient())
            return bcl_flush_patiently(dst.rank);
        BCL_MPI_CHECK("MPI_Win_flush_local", MPI_Win_flush_local(dst.rank, bcl_rt.win));
        return BCL_OK;
    }
    bcl_status st = bcl_check_range(dst, nbytes);
    if (st != BCL_OK)
        return st;
    const void *copy = bcl_flush_stage(src, nbytes);
    if (!copy)
        return bcl_set_error(BCL_ERR_NOMEM, "rput: no memory for the staging arena "
                             "(or its flush failed: %s)", bcl_last_error());
    return rma_put(dst, copy, nbytes);
}

bcl_status bcl_put(bcl_gptr dst, const void *src, size_t nbytes)
{
    bcl_status st = bcl_put_nb(dst, src, nbytes);
    if (st != BCL_OK)
        return st;
    return bcl_flush_rank(dst.rank);
}
