/* bcl_collective.c -- broadcast and allreduce, and the wait of every
 * collective on the runtime's communicator (bcl_comm.h). */
#include "comm/bcl_comm.h"

#include "comm/bcl_depart.h"
#include "runtime/bcl_interrupt.h"

/* Wait for one collective of the runtime communicator.  Like wait_all, and
 * it watches for departed peers (bcl_depart.h): a peer that finalized will
 * never join this collective, so after the grace period the wait ends with
 * an error instead of never.  The request is then left behind: the error
 * ends the job unless the program catches it. */
bcl_status bcl_wait_collective(MPI_Request *rq, const char *what)
{
    return bcl_wait_round(rq, what, 0);
}

bcl_status bcl_wait_round(MPI_Request *rq, const char *what, int64_t round)
{
    bcl_depart_watch watch = BCL_DEPART_WATCH_INIT;
    watch.round = round;
    for (unsigned fails = 1;; fails++) {
        int done = 0;
        BCL_MPI_CHECK("MPI_Test", MPI_Test(rq, &done, MPI_STATUS_IGNORE));
        if (done)
            return BCL_OK;
        bcl_status st = bcl_interrupt_poll();
        if (st == BCL_OK && fails % 256u == 0)
            st = bcl_depart_watch_poll(&watch, what);
        if (st != BCL_OK)
            return st;
        bcl_wait_pause(fails);
    }
}

bcl_status bcl_bcast(void *buf, size_t nbytes, int root)
{
    BCL_REQUIRE_INIT();
    if (root < 0 || root >= bcl_rt.nprocs)
        return bcl_set_error(BCL_ERR_ARG, "root %d is not a rank in [0, %d)", root,
                             bcl_rt.nprocs);
    unsigned char *b = buf;
    for (size_t done = 0; done < nbytes;) {
        size_t k = nbytes - done < BCL_MPI_CHUNK ? nbytes - done : BCL_MPI_CHUNK;
        /* As bcl_barrier: our own wait loop, never a blocking MPI_Bcast. */
        MPI_Request rq;
        BCL_MPI_CHECK("MPI_Ibcast", MPI_Ibcast(b + done, (int)k, MPI_BYTE, root,
                                               bcl_rt.comm, &rq));
        bcl_status st = bcl_wait_collective(&rq, "broadcast");
        if (st != BCL_OK)
            return st;
        done += k;
    }
    return BCL_OK;
}

MPI_Datatype bcl_mpi_elem(bcl_elem e)
{
    static const MPI_Datatype map[] = {
        [BCL_I8] = MPI_INT8_T, [BCL_I16] = MPI_INT16_T, [BCL_I32] = MPI_INT32_T,
        [BCL_I64] = MPI_INT64_T, [BCL_U8] = MPI_UINT8_T, [BCL_U16] = MPI_UINT16_T,
        [BCL_U32] = MPI_UINT32_T, [BCL_U64] = MPI_UINT64_T, [BCL_F32] = MPI_FLOAT,
        [BCL_F64] = MPI_DOUBLE, [BCL_BOOL] = MPI_C_BOOL,
    };
    return map[e];
}

static MPI_Op mpi_redop(bcl_redop op)
{
    static const MPI_Op map[] = {
        [BCL_SUM] = MPI_SUM, [BCL_PROD] = MPI_PROD, [BCL_MIN] = MPI_MIN,
        [BCL_MAX] = MPI_MAX, [BCL_LAND] = MPI_LAND, [BCL_LOR] = MPI_LOR,
        [BCL_BAND] = MPI_BAND, [BCL_BOR] = MPI_BOR, [BCL_BXOR] = MPI_BXOR,
    };
    return map[op];
}

bcl_status bcl_allreduce(void *buf, size_t count, bcl_elem elem, bcl_redop op)
{
    return bcl_allreduce_named("allreduce", buf, count, elem, op);
}

bcl_status bcl_allreduce_named(const char *what, void *buf, size_t count, bcl_elem elem,
                               bcl_redop op)
{
    BCL_REQUIRE_INIT();
    if (count > (size_t)0x7fffffff)
        return bcl_set_error(BCL_ERR_ARG, "allreduce of %zu elements is too large", count);
    int is_float = elem == BCL_F32 || elem == BCL_F64;
    int bitwise = op == BCL_BAND || op == BCL_BOR || op == BCL_BXOR;
    if (is_float && bitwise)
        return bcl_set_error(BCL_ERR_TYPE, "bitwise reductions need integer data");
    /* Our own wait loop, as bcl_barrier: it watches for departed peers, and
     * under the patient policy it yields -- ranks busy-polling in a blocking
     * MPI_Allreduce starve a peer still working towards it (16 ranks on 2
     * cores: one rank's 6000 remote Bloom inserts ran past 150 s while 15
     * waited in all_ok). */
    MPI_Request rq;
    BCL_MPI_CHECK("MPI_Iallreduce", MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count,
                                                   bcl_mpi_elem(elem), mpi_redop(op),
                                                   bcl_rt.comm, &rq));
    return bcl_wait_collective(&rq, what);
}
