/*
 * test_epoch.c -- containers of an earlier runtime stay stale even where the
 * new runtime's segment sits at the very address the old one had.  Built
 * with the MPI compiler and run under mpiexec by tests/c/test_c_units.py.
 *
 * Containers remember the runtime epoch they were made in, never the
 * segment's address: a mapping reused at the same address after finalize()
 * and init() must not make a stale array or Bloom filter look live (they
 * would read, write and free offsets that now belong to new containers).
 * Whether MPI maps the new segment at the old address is up to MPI, so the
 * test forces it: it points bcl_rt.local_base back at the old address while
 * it asks, and restores it before it touches memory.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "containers/bcl_array.h"
#include "containers/bcl_array_update.h"
#include "containers/bcl_bloom.h"
#include "runtime/bcl_alloc.h"

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rank %d: FAIL: %s (%s)\n", bcl_rt.rank, what, bcl_last_error());
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);             /* ours: bcl_finalize leaves MPI up */
    check(bcl_init(MPI_COMM_WORLD, 1u << 20, BCL_TRANSPORT_AUTO, 0) == BCL_OK, "init");
    bcl_array old_array;
    bcl_bloom old_bloom;
    check(bcl_darray_create(&old_array, 64 * (uint64_t)bcl_rt.nprocs, 8) == BCL_OK, "darray");
    check(bcl_bloom_create(&old_bloom, 1000, 0.01) == BCL_OK, "bloom");
    uint64_t old_offset = old_array.offsets[bcl_rt.rank];
    unsigned char *old_base = bcl_rt.local_base;
    check(bcl_array_usable(&old_array) == BCL_OK, "a new array is usable");
    check(bcl_barrier() == BCL_OK && bcl_finalize(0) == BCL_OK, "finalize");

    check(bcl_init(MPI_COMM_WORLD, 1u << 20, BCL_TRANSPORT_AUTO, 0) == BCL_OK, "init again");
    /* A fresh allocator gives the same first offsets: the new array's block
     * is where the stale one's was. */
    bcl_array new_array;
    check(bcl_darray_create(&new_array, 64 * (uint64_t)bcl_rt.nprocs, 8) == BCL_OK,
          "darray again");
    check(new_array.offsets[bcl_rt.rank] == old_offset, "the same offset again");

    unsigned char *new_base = bcl_rt.local_base;
    bcl_rt.local_base = old_base;       /* the mapping reused at the old address */
    uint64_t word = 0;
    int present = 0;
    check(bcl_array_usable(&old_array) != BCL_OK, "the stale array is refused");
    check(bcl_array_get(&old_array, 0, 1, &word) == BCL_ERR_STATE, "a stale get is refused");
    check(bcl_bloom_find_hash(&old_bloom, 42, &present) != BCL_OK,
          "the stale filter is refused");
    bcl_rt.local_base = new_base;

    /* Dropping the stale ones frees private memory only, never the new
     * array's block at the same offset. */
    bcl_array_destroy(&old_array);
    bcl_bloom_destroy(&old_bloom);
    check(bcl_alloc_is_block(new_array.offsets[bcl_rt.rank]), "the new block is still live");
    check(bcl_array_usable(&new_array) == BCL_OK, "the new array is usable");

    check(bcl_barrier() == BCL_OK, "barrier");
    bcl_array_destroy(&new_array);
    check(bcl_finalize(0) == BCL_OK, "finalize again");
    int all = failures;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf(all ? "FAILED\n" : "ok\n");
    MPI_Finalize();
    return all != 0;
}
