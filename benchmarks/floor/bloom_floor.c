/*
 * bloom_floor.c -- the C floor under pybcl.BloomFilter: what one Bloom
 * insert (one 64-bit fetch-and-or + flush) and one find (one atomic read =
 * MPI_Fetch_and_op(MPI_NO_OP) + flush) cost in raw MPI, set up as pybcl's
 * rma transport is (MPI_Win_allocate on a dup of COMM_WORLD,
 * MPI_Win_lock_all(MPI_MODE_NOCHECK), MPI_THREAD_MULTIPLE as mpi4py asks),
 * plus the same operations pipelined (BATCH ops, one MPI_Win_flush_all) and
 * the shm equivalent (CPU atomics on an MPI_Win_allocate_shared segment).
 *
 * Rank 0 measures; rank 1 waits in MPI_Barrier (the target is "idle in
 * MPI", as in benchmarks/bench_bloom.py).  Words are picked at random from
 * a WORDS-word array, like Bloom blocks.  Prints one JSON object (rank 0).
 * Usage: mpiexec -n 2 ./bloom_floor [--iters N] [--reps R]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floor_util.h"

#define WORDS (1u << 18)          /* 2 MiB of filter words per rank */
#define BATCH 2048

static MPI_Win win;
static int rank, nprocs;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t xorshift(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* target: 1 = remote, 0 = self, -1 = random over both */
static double scalar_op(MPI_Op op, int target, long iters)
{
    uint64_t operand = 0, result;
    double t = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        uint64_t r = xorshift();
        int t_rank = target >= 0 ? target : (int)(r >> 63);
        operand = (uint64_t)1 << (r & 63u);
        MPI_Fetch_and_op(&operand, &result, MPI_UINT64_T, t_rank,
                         (MPI_Aint)(8 * ((r >> 8) % WORDS)), op, win);
        MPI_Win_flush(t_rank, win);
    }
    return (MPI_Wtime() - t) / (double)iters * 1e6;
}

static double batch_op(MPI_Op op, int target, long batches)
{
    static uint64_t operand[BATCH], result[BATCH];
    double t = MPI_Wtime();
    for (long b = 0; b < batches; b++) {
        for (int i = 0; i < BATCH; i++) {
            uint64_t r = xorshift();
            int t_rank = target >= 0 ? target : (int)(r >> 63);
            operand[i] = (uint64_t)1 << (r & 63u);
            MPI_Fetch_and_op(&operand[i], &result[i], MPI_UINT64_T, t_rank,
                             (MPI_Aint)(8 * ((r >> 8) % WORDS)), op, win);
        }
        MPI_Win_flush_all(win);
    }
    return (MPI_Wtime() - t) / (double)(batches * BATCH) * 1e6;
}

/* The batch as pybcl's rma path issues it: per target rank one
 * MPI_Get_accumulate over an hindexed datatype of distinct words. */
static double batch_gacc(MPI_Op op, int target, long batches)
{
    static uint64_t operand[BATCH], result[BATCH];
    static MPI_Aint disp[2][BATCH];
    int cnt[2];
    double t = MPI_Wtime();
    for (long b = 0; b < batches; b++) {
        cnt[0] = cnt[1] = 0;
        for (int i = 0; i < BATCH; i++) {
            uint64_t r = xorshift();
            int t_rank = target >= 0 ? target : (int)(r >> 63);
            /* distinct words per batch: stride through the array */
            disp[t_rank][cnt[t_rank]++] = (MPI_Aint)(8 * (((uint64_t)b * BATCH + i) % WORDS));
            operand[i] = (uint64_t)1 << (r & 63u);
        }
        int base = 0;
        for (int t_rank = 0; t_rank < 2; t_rank++) {
            if (!cnt[t_rank]) continue;
            MPI_Datatype dt;
            MPI_Type_create_hindexed_block(cnt[t_rank], 1, disp[t_rank], MPI_UINT64_T, &dt);
            MPI_Type_commit(&dt);
            MPI_Get_accumulate(operand + base, cnt[t_rank], MPI_UINT64_T, result + base,
                               cnt[t_rank], MPI_UINT64_T, t_rank, 0, 1, dt, op, win);
            MPI_Type_free(&dt);
            base += cnt[t_rank];
        }
        MPI_Win_flush_all(win);
    }
    return (MPI_Wtime() - t) / (double)(batches * BATCH) * 1e6;
}

static double best[8];
static int nbest;

/* Median of `reps` runs; the best run goes to best[nbest++]. */
static double median_of(double (*f)(MPI_Op, int, long), MPI_Op op, int target, long n,
                        int reps)
{
    double v[64];
    for (int r = 0; r < reps; r++)
        v[r] = f(op, target, n);
    best[nbest++] = floor_min(v, reps);
    return floor_median(v, reps);
}

int main(int argc, char **argv)
{
    long iters = 20000;
    int reps = 5;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--iters") && a + 1 < argc) iters = atol(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    MPI_Comm comm;
    int provided = floor_init_pair(&argc, &argv, "bloom_floor", &comm, &rank);
    nprocs = 2;
    /* ---- rma ---- */
    uint64_t *base;
    MPI_Win_allocate((MPI_Aint)WORDS * 8, 1, MPI_INFO_NULL, comm, &base, &win);
    memset(base, 0, (size_t)WORDS * 8);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(comm);
    double res[8] = { 0 };
    if (rank == 0) {
        scalar_op(MPI_BOR, 1, iters / 10);   /* warm-up */
        res[0] = median_of(scalar_op, MPI_BOR, 1, iters, reps);
        res[1] = median_of(scalar_op, MPI_NO_OP, 1, iters, reps);
        res[2] = median_of(scalar_op, MPI_BOR, -1, iters, reps);
        res[3] = median_of(scalar_op, MPI_NO_OP, -1, iters, reps);
        long nb = iters / BATCH + 1;
        res[4] = median_of(batch_op, MPI_BOR, -1, nb, reps);
        res[5] = median_of(batch_op, MPI_NO_OP, -1, nb, reps);
        res[6] = median_of(batch_gacc, MPI_BOR, -1, nb, reps);
        res[7] = median_of(batch_gacc, MPI_NO_OP, -1, nb, reps);
    }
    MPI_Barrier(comm);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    /* ---- shm: CPU atomics on the peer's segment ---- */
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_size;
    MPI_Comm_size(node, &node_size);
    double shm_or = -1, shm_load = -1;
    if (node_size == 2) {
        uint64_t *mine, *peer;
        MPI_Aint sz;
        int du;
        MPI_Win swin;
        MPI_Win_allocate_shared((MPI_Aint)WORDS * 8, 1, MPI_INFO_NULL, node, &mine, &swin);
        memset(mine, 0, (size_t)WORDS * 8);
        MPI_Win_shared_query(swin, 1 - rank, &sz, &du, &peer);
        MPI_Barrier(node);
        if (rank == 0) {
            volatile uint64_t sink = 0;
            long n = iters * 50;
            double t = MPI_Wtime();
            for (long i = 0; i < n; i++) {
                uint64_t r = xorshift();
                sink += __atomic_fetch_or(&peer[(r >> 8) % WORDS], (uint64_t)1 << (r & 63u),
                                          __ATOMIC_SEQ_CST);
            }
            shm_or = (MPI_Wtime() - t) / (double)n * 1e6;
            t = MPI_Wtime();
            for (long i = 0; i < n; i++) {
                uint64_t r = xorshift();
                sink += __atomic_load_n(&peer[(r >> 8) % WORDS], __ATOMIC_SEQ_CST);
            }
            shm_load = (MPI_Wtime() - t) / (double)n * 1e6;
        }
        MPI_Barrier(node);
        MPI_Win_free(&swin);
    }
    MPI_Comm_free(&node);
    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        char *nl = strchr(ver, '\n');
        if (nl) *nl = 0;
        char *sp = strstr(ver, " MPICH Release");
        if (sp) *sp = 0;
        for (char *c = ver; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\') *c = ' ';
        printf("{\"benchmark\": \"bloom_floor\", \"mpi\": \"%s\", \"nranks\": 2, "
               "\"thread_level_provided\": %d, \"iters\": %ld, \"reps\": %d, "
               "\"batch\": %d, \"target\": \"rank 1 idle in MPI_Barrier\",\n"
               " \"rma_us_per_op\": {\"fetch_or_flush_remote\": %.3f, "
               "\"atomic_read_flush_remote\": %.3f, \"fetch_or_flush_mixed\": %.3f, "
               "\"atomic_read_flush_mixed\": %.3f, \"pipelined_fetch_or_mixed\": %.4f, "
               "\"pipelined_atomic_read_mixed\": %.4f, "
               "\"indexed_get_accumulate_bor_mixed\": %.4f, "
               "\"indexed_get_accumulate_noop_mixed\": %.4f},\n"
               " \"rma_us_per_op_best_of_reps\": {\"fetch_or_flush_remote\": %.3f, "
               "\"atomic_read_flush_remote\": %.3f, \"fetch_or_flush_mixed\": %.3f, "
               "\"atomic_read_flush_mixed\": %.3f, \"pipelined_fetch_or_mixed\": %.4f, "
               "\"pipelined_atomic_read_mixed\": %.4f, "
               "\"indexed_get_accumulate_bor_mixed\": %.4f, "
               "\"indexed_get_accumulate_noop_mixed\": %.4f},\n"
               " \"shm_us_per_op\": {\"cpu_fetch_or_peer\": %.4f, \"cpu_atomic_load_peer\": %.4f}}\n",
               ver, provided, iters, reps, BATCH, res[0], res[1], res[2], res[3], res[4],
               res[5], res[6], res[7], best[0], best[1], best[2], best[3], best[4],
               best[5], best[6], best[7], shm_or, shm_load);
    }
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
