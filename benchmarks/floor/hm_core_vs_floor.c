/*
 * hm_core_vs_floor.c -- pybcl's C hash map core against the raw MPI floor of
 * the same sequences, interleaved in ONE job so both see the same load.
 *
 *   mpicc -O2 -Icsrc -o hm_core_vs_floor benchmarks/floor/hm_core_vs_floor.c \
 *         csrc/{runtime,comm,serial,containers,containers/hashmap}/*.c -lm
 *   PYBCL_TRANSPORT=rma mpiexec -n 2 ./hm_core_vs_floor [--reps R] [--block B]
 *
 * Rank 0 works on buckets owned by rank 1 while rank 1 waits in a barrier.
 * Each repetition times a block of B ops of every kind, alternating floor and
 * core (floor insert, core insert, floor find, core find, ...); the ratio of
 * adjacent blocks is taken per repetition and the median reported, so slow
 * load drifts cancel.  The floor sequences are rma_floor.c's (the core runs
 * on the pybcl window, the floor on a window of its own).  No Python here:
 * the binding's cost is the difference to benchmarks/bench_hashmap.py.
 * Output: one JSON object (rank 0).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "containers/hashmap/bcl_hashmap.h"
#include "floor_util.h"

static MPI_Win fwin;
static char *fseg, *lbuf;

enum { F_INSERT, P_INSERT, C_INSERT, F_FIND, P_FIND, C_FIND, F_FONLY, P_FONLY, C_FONLY,
       F_BATCH, C_IMANY, C_FMANY, C_FOMANY, C_AMANY, NK };
static const char *kname[NK] = {
    "floor_insert", "floor_insert_same_footprint", "core_insert",
    "floor_find", "floor_find_same_footprint", "core_find",
    "floor_find_only", "floor_find_only_same_footprint", "core_find_only",
    "floor_pipelined_fao", "core_insert_many", "core_find_many",
    "core_find_only_many", "core_accumulate_many"};

/* "same footprint" floors: the floor's sequence on the home buckets of the
 * very keys the core uses, in a scratch table of the same size and layout
 * (the table is MBs: cache and TLB misses at the target are part of the
 * cost; rma_floor.c cycles over 256 KiB). */
static MPI_Aint *fp_disp;
static MPI_Win fp_win;

static void floor_op(int k, long i)
{
    const int t = 1;
    MPI_Aint slot = (MPI_Aint)((i % 4096) * 64);
    MPI_Win fwin_ = fwin;
    if (k == P_INSERT || k == P_FIND || k == P_FONLY) {
        slot = fp_disp[i];
        k = k == P_INSERT ? F_INSERT : k == P_FIND ? F_FIND : F_FONLY;
        fwin = fp_win;
    }
    switch (k) {
    case F_INSERT:
        floor_hm_insert(fwin, t, slot, lbuf);
        break;
    case F_FIND:
        floor_hm_find(fwin, t, slot, lbuf);
        break;
    case F_FONLY:
        floor_hm_find_only(fwin, t, slot, lbuf);
        break;
    }
    fwin = fwin_;
}

static void die(bcl_status st, const char *what)
{
    if (st != BCL_OK) {
        fprintf(stderr, "%s: %s\n", what, bcl_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int reps = 15, block = 1000, batch = 50000;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--block") && a + 1 < argc) block = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--batch") && a + 1 < argc) batch = atoi(argv[++a]);
    }
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const char *tr = getenv("PYBCL_TRANSPORT");
    bcl_transport t = tr && !strcmp(tr, "shm") ? BCL_TRANSPORT_SHM : BCL_TRANSPORT_RMA;
    die(bcl_init(MPI_COMM_WORLD, (size_t)256 << 20, t, 0), "bcl_init");
    int rank = bcl_rt.rank;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Win_allocate((MPI_Aint)1 << 20, 1, MPI_INFO_NULL, comm, &fseg, &fwin);
    memset(fseg, 0, 1 << 20);
    lbuf = calloc(1, 4096);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, fwin);

    bcl_hashmap m;
    uint64_t cap = (uint64_t)(reps + 1) * block * 8 + (uint64_t)(reps + 1) * batch * 3;
    die(bcl_hm_create(&m, cap, 8, 8, BCL_HM_NUM_INT), "create");
    /* keys owned by rank 1 */
    int64_t *keys = malloc(sizeof *keys * (size_t)(reps + 1) * block);
    long nk = 0;
    for (int64_t x = 1; nk < (long)(reps + 1) * block; x++) {
        bcl_hm_key k = bcl_hm_key_make(&x, 8);
        if (bcl_hm_owner(&m, &k) == 1)
            keys[nk++] = x;
    }
    bcl_hashmap scratch;
    die(bcl_hm_create(&scratch, cap, 8, 8, BCL_HM_NUM_INT), "create scratch");
    fp_win = bcl_rt.win;
    fp_disp = malloc(sizeof *fp_disp * (size_t)block);
    int64_t *bk = malloc(sizeof *bk * (size_t)batch), *bv = malloc(sizeof *bv * (size_t)batch);
    unsigned char *found = malloc((size_t)batch);
    double *v[NK];
    for (int k = 0; k < NK; k++)
        v[k] = calloc((size_t)reps, sizeof(double));
    bcl_mp_writer w;
    bcl_mp_writer_init(&w);
    for (int r = -1; r < reps; r++) {           /* r = -1: warm-up */
        int64_t *ks = keys + (r + 1) * block;
        for (int i = 0; i < block; i++) {
            bcl_hm_key kk = bcl_hm_key_make(&ks[i], 8);
            bcl_hm_probe pr;
            uint64_t idx = 0;
            bcl_hm_probe_init(&scratch, &pr, kk.hash);
            bcl_hm_probe_next(&scratch, &pr, &idx);
            fp_disp[i] = (MPI_Aint)bcl_hm_bucket(&scratch, idx).offset;
        }
        for (int i = 0; i < batch; i++)   /* fresh batch keys every repetition */
            bk[i] = bv[i] = (int64_t)((0x9e3779b97f4a7c15ull * (uint64_t)((r + 1) * batch + i + 7)) >> 2);
        for (int k = 0; k < NK; k++) {
            bcl_barrier();
            double t0 = MPI_Wtime();
            long n = block;
            if (rank == 0) {
                switch (k) {
                case F_INSERT: case F_FIND: case F_FONLY:
                case P_INSERT: case P_FIND: case P_FONLY:
                    for (long i = 0; i < block; i++) floor_op(k, i);
                    break;
                case F_BATCH: {
                    int64_t one = 1;
                    for (long i = 0; i < block; i++)
                        MPI_Fetch_and_op(&one, (int64_t *)lbuf + (i % 256), MPI_INT64_T, 1,
                                         (MPI_Aint)(i % 4096) * 64, MPI_SUM, fwin);
                    MPI_Win_flush(1, fwin);
                    break;
                }
                case C_INSERT:
                    for (long i = 0; i < block; i++) {
                        bcl_hm_key kk = bcl_hm_key_make(&ks[i], 8);
                        die(bcl_hm_insert(&m, &kk, &ks[i], 8, 0), "insert");
                    }
                    break;
                case C_FIND: case C_FONLY:
                    for (long i = 0; i < block; i++) {
                        bcl_hm_key kk = bcl_hm_key_make(&ks[i], 8);
                        int f;
                        w.len = 0;
                        die(bcl_hm_find(&m, &kk, &w, &f, k == C_FONLY ? BCL_HM_P_FIND : 0),
                            "find");
                        if (!f) { fprintf(stderr, "lost key\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
                    }
                    break;
                case C_IMANY: case C_AMANY: {
                    size_t full;
                    n = batch;
                    die((k == C_IMANY ? bcl_hm_insert_many : bcl_hm_accumulate_many)(
                            &m, bk, bv, (size_t)batch, &full),
                        k == C_IMANY ? "insert_many" : "acc_many");
                    break;
                }
                case C_FMANY: case C_FOMANY:
                    n = batch;
                    die(bcl_hm_find_many(&m, bk, (size_t)batch, bv, found,
                                         k == C_FOMANY ? BCL_HM_P_FIND : 0), "find_many");
                    break;
                }
                /* the scalar ops may leave posted atomics: their cost counts */
                bcl_flush();
            }
            double t1 = MPI_Wtime();
            if (r >= 0)
                v[k][r] = (t1 - t0) * 1e6 / (double)n;
        }
    }
    bcl_barrier();
    if (rank == 0) {
        double load[1] = { 0 };
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) { if (fscanf(f, "%lf", &load[0]) != 1) load[0] = -1; fclose(f); }
        printf("{\"transport\": \"%s\", \"reps\": %d, \"block\": %d, \"batch\": %d, "
               "\"loadavg_end\": %.2f,\n \"us_per_op_median\": {", tr ? tr : "rma", reps,
               block, batch, load[0]);
        for (int k = 0; k < NK; k++)
            printf("%s\"%s\": %.3f", k ? ", " : "", kname[k], floor_median(v[k], reps));
        printf("},\n \"ratio_core_to_floor_median_of_adjacent\": {");
        const int pairs[6][2] = { {C_INSERT, F_INSERT}, {C_FIND, F_FIND}, {C_FONLY, F_FONLY},
                                  {C_INSERT, P_INSERT}, {C_FIND, P_FIND}, {C_FONLY, P_FONLY} };
        const char *pn[6] = { "insert", "find", "find_only", "insert_vs_same_footprint",
                              "find_vs_same_footprint", "find_only_vs_same_footprint" };
        for (int p = 0; p < 6; p++) {
            double rr[256];
            for (int r = 0; r < reps && r < 256; r++)
                rr[r] = v[pairs[p][0]][r] / v[pairs[p][1]][r];
            printf("%s\"%s\": %.3f", p ? ", " : "", pn[p], floor_median(rr, reps < 256 ? reps : 256));
        }
        printf("},\n \"batch_per_key_vs_floor\": {\"insert_many_vs_insert\": %.3f, "
               "\"find_only_many_vs_find_only\": %.3f}}\n",
               floor_median(v[C_IMANY], reps) / floor_median(v[F_INSERT], reps),
               floor_median(v[C_FOMANY], reps) / floor_median(v[F_FONLY], reps));
    }
    MPI_Win_unlock_all(fwin);
    MPI_Win_free(&fwin);
    MPI_Comm_free(&comm);
    die(bcl_finalize(0.0), "bcl_finalize");
    MPI_Finalize();
    return 0;
}
