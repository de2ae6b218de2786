/*
 * rma_floor.c -- raw MPI-3 passive-target RMA floor for pybcl's `rma` transport.
 *
 * Window set-up mirrors pybcl: MPI_Win_allocate(segment) on a dup of
 * COMM_WORLD, MPI_Win_lock_all(MPI_MODE_NOCHECK) once.  Rank 0 is the origin,
 * rank 1 the target.  Output: ONE JSON object on stdout (rank 0).
 *
 * Flags:
 *   --single            MPI_Init_thread(MPI_THREAD_SINGLE)   (default: MULTIPLE,
 *                       which is what mpi4py requests)
 *   --acc-none          window info accumulate_ordering=none
 *   --no-busy           skip the "target busy outside MPI" section
 *   --reps N            repetitions (median reported), default 5
 *   --seg-mib N         segment size, default 64
 *   --contention-iters N  iterations per rank of the atomicity test (100000)
 *
 * Target "idle": rank 1 sits in MPI_Barrier while rank 0 measures.
 * Target "busy": rank 1 spins in a pure compute loop (no MPI calls) for
 *   BUSY_MS; rank 0 issues ops only during the first half of that window and
 *   reports elapsed/ops, the number of ops completed and the worst single op.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floor_util.h"

#define BATCH 1024
#define BUSY_MS 40.0

static MPI_Win win;
static MPI_Comm comm;
static int rank, nranks;
static char *seg;           /* local base */
static char *lbuf;          /* local origin buffer */
static size_t seg_bytes;
static int reps = 5;

enum op {
    GET8_FLUSH, GET8_FLUSH_LOCAL, PUT8_FLUSH, PUT8_FLUSH_LOCAL,
    FAO_SUM, CAS, ALOAD, ASTORE,
    PIPE_PUT, PIPE_GET, PIPE_FAO,
    HM_INSERT, HM_FIND, HM_FIND_ONLY, Q_PUSH,
    GET1K, PUT1K, GET64K, PUT64K, NOPS
};
static const char *op_name[NOPS] = {
    "get8_flush", "get8_flush_local", "put8_flush", "put8_flush_local",
    "fetch_and_op_sum_flush", "compare_and_swap_flush",
    "atomic_load_fao_noop_flush", "atomic_store_acc_replace_flush",
    "pipelined_put8_per_op", "pipelined_get8_per_op", "pipelined_fao_sum_per_op",
    "hashmap_insert_cas_put16_flush_fao_bxor_flush",
    "hashmap_find_fao_bor_flush_get16_flush_fao_band_flush",
    "hashmap_find_only_get24_flush",
    "queue_push_fao_sum_flush_put8_flush",
    "get_1KiB_flush", "put_1KiB_flush", "get_64KiB_flush", "put_64KiB_flush"};
static const size_t op_bytes[NOPS] = {8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 24, 24, 24, 16,
                                      1024, 1024, 65536, 65536};
static const int op_iters[NOPS] = {4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000,
                                   20, 20, 20, 2000, 2000, 4000, 2000,
                                   2000, 2000, 300, 300};
static int op_unit(int k) { return (k == PIPE_PUT || k == PIPE_GET || k == PIPE_FAO) ? BATCH : 1; }

static double now(void) { return MPI_Wtime(); }

/* one "unit" of operation k, iteration i; target rank 1 */
static void do_op(int k, long i) {
    const int t = 1;
    int64_t one = 1, res, cmp;
    MPI_Aint slot = (MPI_Aint)((i % 4096) * 64); /* 64-B "buckets" */
    switch (k) {
    case GET8_FLUSH:
        MPI_Get(lbuf, 8, MPI_BYTE, t, slot, 8, MPI_BYTE, win); MPI_Win_flush(t, win); break;
    case GET8_FLUSH_LOCAL:
        MPI_Get(lbuf, 8, MPI_BYTE, t, slot, 8, MPI_BYTE, win); MPI_Win_flush_local(t, win); break;
    case PUT8_FLUSH:
        MPI_Put(lbuf, 8, MPI_BYTE, t, slot, 8, MPI_BYTE, win); MPI_Win_flush(t, win); break;
    case PUT8_FLUSH_LOCAL:
        MPI_Put(lbuf, 8, MPI_BYTE, t, slot, 8, MPI_BYTE, win); MPI_Win_flush_local(t, win); break;
    case FAO_SUM:
        MPI_Fetch_and_op(&one, &res, MPI_INT64_T, t, slot, MPI_SUM, win); MPI_Win_flush(t, win); break;
    case CAS:
        cmp = (int64_t)i;
        MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT64_T, t, slot, win); MPI_Win_flush(t, win); break;
    case ALOAD:
        MPI_Fetch_and_op(NULL, &res, MPI_INT64_T, t, slot, MPI_NO_OP, win); MPI_Win_flush(t, win); break;
    case ASTORE:
        MPI_Accumulate(&one, 1, MPI_INT64_T, t, slot, 1, MPI_INT64_T, MPI_REPLACE, win);
        MPI_Win_flush(t, win); break;
    case PIPE_PUT:
        for (int j = 0; j < BATCH; j++)
            MPI_Put(lbuf + 8 * j, 8, MPI_BYTE, t, (MPI_Aint)j * 64, 8, MPI_BYTE, win);
        MPI_Win_flush(t, win); break;
    case PIPE_GET:
        for (int j = 0; j < BATCH; j++)
            MPI_Get(lbuf + 8 * j, 8, MPI_BYTE, t, (MPI_Aint)j * 64, 8, MPI_BYTE, win);
        MPI_Win_flush(t, win); break;
    case PIPE_FAO:
        for (int j = 0; j < BATCH; j++)
            MPI_Fetch_and_op(&one, (int64_t *)lbuf + j, MPI_INT64_T, t, (MPI_Aint)j * 64, MPI_SUM, win);
        MPI_Win_flush(t, win); break;
    case HM_INSERT:
        floor_hm_insert(win, t, slot, lbuf); break;
    case HM_FIND:
        floor_hm_find(win, t, slot, lbuf); break;
    case HM_FIND_ONLY:
        floor_hm_find_only(win, t, slot, lbuf); break;
    case Q_PUSH:
        MPI_Fetch_and_op(&one, &res, MPI_INT64_T, t, 1 << 20, MPI_SUM, win);
        MPI_Win_flush(t, win);
        MPI_Put(lbuf, 8, MPI_BYTE, t, (MPI_Aint)(2 << 20) + (i % 4096) * 8, 8, MPI_BYTE, win);
        MPI_Win_flush(t, win); break;
    case GET1K: case GET64K:
        MPI_Get(lbuf, (int)op_bytes[k], MPI_BYTE, t, 4 << 20, (int)op_bytes[k], MPI_BYTE, win);
        MPI_Win_flush(t, win); break;
    case PUT1K: case PUT64K:
        MPI_Put(lbuf, (int)op_bytes[k], MPI_BYTE, t, 4 << 20, (int)op_bytes[k], MPI_BYTE, win);
        MPI_Win_flush(t, win); break;
    }
    (void)res;
}

static void busy_spin(double ms) {
    struct timespec a, b;
    volatile double x = 1.0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (;;) {
        for (int j = 0; j < 1000; j++) x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &b);
        if ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6 >= ms) break;
    }
}

/* target idle in MPI_Barrier */
static void bench_idle(int k, double *us_med, double *us_min) {
    double v[64];
    int n = op_iters[k];
    for (int r = -1; r < reps; r++) { /* r = -1 warm-up */
        MPI_Barrier(comm);
        double t0 = now();
        if (rank == 0)
            for (long i = 0; i < n; i++) do_op(k, i);
        double t1 = now();
        MPI_Barrier(comm);
        if (r >= 0) v[r] = (t1 - t0) * 1e6 / ((double)n * op_unit(k));
    }
    if (rank == 0) { *us_med = floor_median(v, reps); *us_min = floor_min(v, reps); }
}

/* target busy outside MPI for BUSY_MS; origin issues for BUSY_MS/2 */
static void bench_busy(int k, double *us_med, double *ops_med, double *worst_ms_med) {
    double v[64], c[64], w[64];
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(comm);
        if (rank == 1) {
            busy_spin(BUSY_MS);
        } else if (rank == 0) {
            double t0 = now(), worst = 0, t;
            long i = 0;
            do {
                double a = now();
                do_op(k, i++);
                t = now();
                if (t - a > worst) worst = t - a;
            } while (t - t0 < BUSY_MS * 0.5e-3);
            v[r] = (t - t0) * 1e6 / ((double)i * op_unit(k));
            c[r] = (double)i * op_unit(k);
            w[r] = worst * 1e3;
        }
        MPI_Barrier(comm);
    }
    if (rank == 0) { *us_med = floor_median(v, reps); *ops_med = floor_median(c, reps); *worst_ms_med = floor_median(w, reps); }
}

/* atomicity of FAO(SUM) vs CAS-increment on one counter (at rank 0) */
static void contention(long iters, int64_t *final_mixed, int64_t *expect_mixed,
                       int64_t *final_split, int64_t *expect_split, long *cas_retries) {
    int64_t *ctr = (int64_t *)seg; /* offset 0 of every rank; use rank 0's */
    int64_t one = 1, res, old, nw;
    long retries = 0;
    for (int phase = 0; phase < 2; phase++) {
        *ctr = 0;
        MPI_Win_sync(win);
        MPI_Barrier(comm);
        for (long i = 0; i < iters; i++) {
            int use_fao = phase == 0 ? (i & 1) == 0 : rank == 0;
            if (use_fao) {
                MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 0, 0, MPI_SUM, win);
                MPI_Win_flush(0, win);
            } else {
                MPI_Fetch_and_op(NULL, &old, MPI_INT64_T, 0, 0, MPI_NO_OP, win);
                MPI_Win_flush(0, win);
                for (;;) {
                    nw = old + 1;
                    MPI_Compare_and_swap(&nw, &old, &res, MPI_INT64_T, 0, 0, win);
                    MPI_Win_flush(0, win);
                    if (res == old) break;
                    old = res;
                    retries++;
                }
            }
        }
        MPI_Barrier(comm);
        int64_t f;
        MPI_Fetch_and_op(NULL, &f, MPI_INT64_T, 0, 0, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        if (phase == 0) { *final_mixed = f; *expect_mixed = (int64_t)iters * nranks; }
        else { *final_split = f; *expect_split = (int64_t)iters * nranks; }
        MPI_Barrier(comm);
    }
    long tot = 0;
    MPI_Reduce(&retries, &tot, 1, MPI_LONG, MPI_SUM, 0, comm);
    *cas_retries = tot;
}

static void iso_now(char *buf, size_t n) {
    time_t t = time(NULL);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

int main(int argc, char **argv) {
    int want = MPI_THREAD_MULTIPLE, provided, acc_none = 0, do_busy = 1;
    long cont_iters = 100000;
    size_t seg_mib = 64;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--single")) want = MPI_THREAD_SINGLE;
        else if (!strcmp(argv[a], "--multiple")) want = MPI_THREAD_MULTIPLE;
        else if (!strcmp(argv[a], "--acc-none")) acc_none = 1;
        else if (!strcmp(argv[a], "--no-busy")) do_busy = 0;
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--seg-mib") && a + 1 < argc) seg_mib = (size_t)atol(argv[++a]);
        else if (!strcmp(argv[a], "--contention-iters") && a + 1 < argc) cont_iters = atol(argv[++a]);
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    char ts0[64], ts1[64];
    iso_now(ts0, sizeof ts0);
    MPI_Init_thread(&argc, &argv, want, &provided);
    double t_init = MPI_Wtime();
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    if (nranks < 2) { fprintf(stderr, "need >= 2 ranks\n"); MPI_Abort(MPI_COMM_WORLD, 1); }

    seg_bytes = seg_mib << 20;
    MPI_Info info = MPI_INFO_NULL;
    if (acc_none) { MPI_Info_create(&info); MPI_Info_set(info, "accumulate_ordering", "none"); }
    MPI_Win_allocate((MPI_Aint)seg_bytes, 1, info, comm, &seg, &win);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    memset(seg, 0, seg_bytes);
    lbuf = malloc(1 << 20);
    memset(lbuf, 1, 1 << 20);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(comm);

    int *model, flag;
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    const char *model_s = !flag ? "unknown" : (*model == MPI_WIN_UNIFIED ? "unified" : "separate");
    MPI_Info used;
    char acc_ord[128] = "?", acc_ops[128] = "?";
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "accumulate_ordering", 127, acc_ord, &flag);
    if (!flag) strcpy(acc_ord, "(not reported)");
    MPI_Info_get(used, "accumulate_ops", 127, acc_ops, &flag);
    if (!flag) strcpy(acc_ops, "(not reported)");
    MPI_Info_free(&used);
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen;
    MPI_Get_library_version(ver, &vlen);
    for (char *p = ver; *p; p++) if (*p == '\n' || *p == '\t' || *p == '"') *p = ' ';
    while (vlen > 0 && ver[vlen - 1] == ' ') ver[--vlen] = 0;

    double idle_med[NOPS], idle_min[NOPS], busy_us[NOPS], busy_ops[NOPS], busy_worst[NOPS];
    for (int k = 0; k < NOPS; k++) bench_idle(k, &idle_med[k], &idle_min[k]);
    if (do_busy)
        for (int k = 0; k < NOPS; k++) bench_busy(k, &busy_us[k], &busy_ops[k], &busy_worst[k]);
    int64_t fm = 0, em = 0, fs = 0, es = 0;
    long retries = 0;
    double tc0 = now();
    contention(cont_iters, &fm, &em, &fs, &es, &retries);
    double tc = now() - tc0;

    MPI_Win_unlock_all(win);
    iso_now(ts1, sizeof ts1);
    if (rank == 0) {
        const char *asy = getenv("MPIR_CVAR_ASYNC_PROGRESS");
        printf("{\n \"benchmark\": \"rma_floor\",\n \"timestamp_start_utc\": \"%s\",\n"
               " \"timestamp_end_utc\": \"%s\",\n \"wall_s\": %.2f,\n",
               ts0, ts1, MPI_Wtime() - t_init);
        printf(" \"mpi_library_version\": \"%s\",\n \"nranks\": %d,\n", ver, nranks);
        printf(" \"thread_level_requested\": \"%s\",\n \"thread_level_provided\": \"%s\",\n",
               want == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SINGLE",
               provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
               : provided == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
               : provided == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE");
        printf(" \"win_model\": \"%s\",\n \"info_accumulate_ordering_set\": \"%s\",\n"
               " \"win_info_accumulate_ordering\": \"%s\",\n \"win_info_accumulate_ops\": \"%s\",\n",
               model_s, acc_none ? "none" : "(default)", acc_ord, acc_ops);
        printf(" \"MPIR_CVAR_ASYNC_PROGRESS\": \"%s\",\n \"segment_MiB\": %zu,\n \"reps\": %d,\n"
               " \"pipeline_batch\": %d,\n \"busy_window_ms\": %.0f,\n",
               asy ? asy : "(unset)", seg_mib, reps, BATCH, BUSY_MS);
        printf(" \"target_idle_in_barrier\": {\n");
        for (int k = 0; k < NOPS; k++) {
            printf("  \"%s\": {\"us_per_op_median\": %.3f, \"us_per_op_min\": %.3f",
                   op_name[k], idle_med[k], idle_min[k]);
            if (op_bytes[k] >= 1024)
                printf(", \"GB_per_s\": %.3f", op_bytes[k] / (idle_med[k] * 1e3));
            printf("}%s\n", k + 1 < NOPS ? "," : "");
        }
        printf(" },\n");
        if (do_busy) {
            printf(" \"target_busy_outside_mpi\": {\n");
            for (int k = 0; k < NOPS; k++)
                printf("  \"%s\": {\"us_per_op_median\": %.3f, \"ops_completed_median\": %.0f, "
                       "\"worst_single_op_ms_median\": %.3f}%s\n",
                       op_name[k], busy_us[k], busy_ops[k], busy_worst[k], k + 1 < NOPS ? "," : "");
            printf(" },\n");
        }
        printf(" \"atomicity_fao_vs_cas_same_location\": {\"iters_per_rank\": %ld, "
               "\"accumulate_ops_info\": \"default (not set)\",\n"
               "  \"mixed_each_rank_alternates\": {\"final\": %lld, \"expected\": %lld, \"exact\": %s},\n"
               "  \"rank0_fao_rank1_cas\": {\"final\": %lld, \"expected\": %lld, \"exact\": %s},\n"
               "  \"cas_retries_total\": %ld, \"seconds\": %.2f}\n}\n",
               cont_iters, (long long)fm, (long long)em, fm == em ? "true" : "false",
               (long long)fs, (long long)es, fs == es ? "true" : "false", retries, tc);
        fflush(stdout);
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    free(lbuf);
    MPI_Finalize();
    return 0;
}
