/*
 * gups_floor.c -- raw-MPI floor for pybcl's one-atomic-per-update GUPS mode:
 * HPCC RandomAccess with one MPI_Accumulate(MPI_BXOR) per update.
 *
 * Set-up mirrors pybcl's rma transport: MPI_Init_thread(MULTIPLE) (as
 * mpi4py), MPI_Win_allocate of each rank's block of the 2^N-word table
 * (block-distributed as a pybcl DArray), MPI_Win_lock_all(NOCHECK) once.
 * The update stream is HPCC's (POLY 7, rank r starts at HPCC_starts(r*U)).
 * Operands live in a ring of RING words; MPI_Win_flush_all every RING
 * updates makes the ring reusable (pybcl's posted atomics do the same with
 * their slot ring).  Verification as HPCC: replay the stream, count words
 * with T[i] != i.
 *
 *   mpiexec -n P gups_floor [--log2-size N] [--updates-per-rank U]
 * prints ONE JSON object (rank 0): gups, seconds, updates, table_size, errors.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLY 0x7ull
#define PERIOD 1317624576693539401ll
#define RING 4096

static uint64_t next(uint64_t a) { return (a << 1) ^ ((int64_t)a < 0 ? POLY : 0); }

static uint64_t starts(int64_t n)
{
    uint64_t m2[64], temp = 1, ran = 2;
    while (n < 0) n += PERIOD;
    while (n > PERIOD) n -= PERIOD;
    if (n == 0) return 1;
    for (int i = 0; i < 64; i++) { m2[i] = temp; temp = next(next(temp)); }
    int i;
    for (i = 62; i >= 0; i--) if ((n >> i) & 1) break;
    while (i > 0) {
        temp = 0;
        for (int j = 0; j < 64; j++) if ((ran >> j) & 1) temp ^= m2[j];
        ran = temp;
        i -= 1;
        if ((n >> i) & 1) ran = next(ran);
    }
    return ran;
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "gups_floor: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* U updates from `start`, one MPI_Accumulate each. */
static void updates(MPI_Win win, uint64_t start, uint64_t U, uint64_t size, uint64_t block)
{
    static uint64_t ring[RING];
    uint64_t a = start;
    for (uint64_t k = 0; k < U; k++) {
        a = next(a);
        uint64_t i = a & (size - 1);
        int owner = (int)(i / block);
        ring[k % RING] = a;
        check(MPI_Accumulate(&ring[k % RING], 1, MPI_UINT64_T, owner,
                             (MPI_Aint)((i - (uint64_t)owner * block) * 8), 1, MPI_UINT64_T,
                             MPI_BXOR, win), "MPI_Accumulate");
        if (k % RING == RING - 1)
            check(MPI_Win_flush_all(win), "MPI_Win_flush_all");
    }
    check(MPI_Win_flush_all(win), "MPI_Win_flush_all");
}

int main(int argc, char **argv)
{
    int provided, rank, P, log2n = 20;
    long long U = -1;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--log2-size")) log2n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--updates-per-rank")) U = atoll(argv[i + 1]);
    }
    uint64_t size = 1ull << log2n, block = (size + (uint64_t)P - 1) / (uint64_t)P;
    if (U < 0) U = (long long)(4 * size / (uint64_t)P);
    MPI_Comm comm;
    MPI_Win win;
    uint64_t *T;
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
    check(MPI_Win_allocate((MPI_Aint)(block * 8), 1, MPI_INFO_NULL, comm, &T, &win),
          "MPI_Win_allocate");
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all");
    uint64_t first = (uint64_t)rank * block;
    for (uint64_t i = 0; i < block; i++) T[i] = first + i;
    MPI_Win_sync(win);
    MPI_Barrier(comm);
    uint64_t start = starts((int64_t)rank * U);
    double t0 = MPI_Wtime();
    updates(win, start, (uint64_t)U, size, block);
    MPI_Barrier(comm);
    double dt = MPI_Wtime() - t0, sec;
    MPI_Allreduce(&dt, &sec, 1, MPI_DOUBLE, MPI_MAX, comm);
    updates(win, start, (uint64_t)U, size, block);   /* replay: XOR undoes */
    MPI_Barrier(comm);
    MPI_Win_sync(win);
    long long bad = 0, errors;
    for (uint64_t i = 0; i < block && first + i < size; i++) bad += T[i] != first + i;
    MPI_Allreduce(&bad, &errors, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (rank == 0)
        printf("{\"benchmark\": \"gups_floor\", \"ranks\": %d, \"table_size\": %llu, "
               "\"updates\": %lld, \"seconds\": %.6f, \"gups\": %.9f, \"errors\": %lld}\n",
               P, (unsigned long long)size, U * P, sec, sec > 0 ? (double)(U * P) / sec / 1e9 : 0.0,
               errors);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return errors ? 1 : 0;
}
