/*
 * cas64_same_node.c -- 64-bit MPI_Compare_and_swap on an MPI_Win_allocate
 * window under lock_all, the way pybcl's rma transport issues it: each rank
 * swaps a word in its own segment, then one in its right neighbour's.
 *
 * On Open MPI 4.0.0-4.0.4 and 4.1.0-4.1.4 with osc/rdma (their default on
 * one node) this crashes in btl/vader (open-mpi/ompi#7027; docs/install.md):
 *     mpicc.openmpi cas64_same_node.c -o cas64 && mpiexec.openmpi -n 2 ./cas64
 * With OMPI_MCA_osc=^rdma, or on any other MPI, it prints "ok" per rank.
 * Exit status 1 when a value is wrong (MPI errors abort: the default
 * MPI_ERRORS_ARE_FATAL handler).  A teardown that does not return is ended
 * by finalize_guard.h with the same status and a notice on stderr.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "finalize_guard.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    uint64_t *base;
    MPI_Win win;
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[0] = ((uint64_t)1 << 40) + (uint64_t)me;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);

    int right = (me + 1) % p, bad = 0;
    uint64_t expected = ((uint64_t)1 << 40) + (uint64_t)me, desired = 7, old = 0;
    MPI_Compare_and_swap(&desired, &expected, &old, MPI_UINT64_T, me, 0, win);
    MPI_Win_flush(me, win);
    bad |= old != expected;
    MPI_Barrier(MPI_COMM_WORLD);

    expected = 7;
    desired = ((uint64_t)2 << 40) + (uint64_t)me;
    MPI_Compare_and_swap(&desired, &expected, &old, MPI_UINT64_T, right, 0, win);
    MPI_Win_flush(right, win);
    bad |= old != expected;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    bad |= base[0] != ((uint64_t)2 << 40) + (uint64_t)((me + p - 1) % p);

    printf("rank %d: %s\n", me, bad ? "WRONG" : "ok");
    /* The verdict is out: bound a teardown that MPICH over TCP may hang. */
    arm_finalize_guard("cas64_same_node", bad);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return bad;
}
