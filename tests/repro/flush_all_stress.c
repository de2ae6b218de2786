/*
 * flush_all_stress.c -- does MPI_Win_flush_all complete puts at their targets?
 *
 * MPICH 4.0.2 (ch4:ucx) was seen to return from MPI_Win_flush_all before
 * puts had landed (docs/progress.md).  Every round, each rank puts a block
 * stamped with the round number to its slot at EVERY target (puts to many
 * targets are what flush_all has to track), calls MPI_Win_flush_all (or, as
 * the control, MPI_Win_flush on each rank), then a barrier.  MPI-3 11.5.4:
 * after the flush the puts are complete at their targets, so after the
 * barrier (and MPI_Win_sync) every target must see every origin's block of
 * this round.  A target that sees an older stamp counts a miss.
 *
 * Second pattern (the hash map's, where the bug was seen): after the flush
 * each origin publishes the round with MPI_Accumulate(REPLACE) on a flag
 * word at every target; each target polls its flags with atomic reads and,
 * as soon as origin o's flag says this round, reads o's block through the
 * window (MPI_Get to itself): it must carry this round's stamp.  No barrier
 * hides a late put here.
 *
 * usage: flush_all_stress [all|each] [rounds] [words]
 * prints one JSON line from rank 0: {"mode":..., "rounds":..., "misses":...,
 * "ranks":..., "library":...}; exit 0 whatever the count (the caller judges).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "finalize_guard.h"

#define CHECK(call)                                                          \
    do {                                                                     \
        int rc_ = (call);                                                    \
        if (rc_ != MPI_SUCCESS) {                                            \
            fprintf(stderr, "%s failed: %d\n", #call, rc_);                  \
            MPI_Abort(MPI_COMM_WORLD, 2);                                    \
        }                                                                    \
    } while (0)

/* Round r: this rank's block (words stamped r) put to every rank, then
 * flushed with MPI_Win_flush_all (use_all) or one MPI_Win_flush per rank. */
static void put_round(uint64_t *src, long words, long r, int me, int p, MPI_Win win,
                      int use_all)
{
    for (long w = 0; w < words; w++)
        src[w] = ((uint64_t)r << 20) | (uint64_t)w;
    for (int k = 0; k < p; k++) {
        int t = (me + k) % p;
        CHECK(MPI_Put(src, (int)words, MPI_UINT64_T, t, (MPI_Aint)me * words,
                      (int)words, MPI_UINT64_T, win));
    }
    if (use_all) {
        CHECK(MPI_Win_flush_all(win));
    } else {
        for (int t = 0; t < p; t++)
            CHECK(MPI_Win_flush(t, win));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int use_all = argc < 2 || strcmp(argv[1], "each") != 0;
    long rounds = argc > 2 ? atol(argv[2]) : 200;
    long words = argc > 3 ? atol(argv[3]) : 64;   /* per (origin, target) block */
    if (rounds < 1 || words < 1 || words > (1L << 20)) {
        if (me == 0)
            fprintf(stderr, "bad arguments\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t *base, *src = malloc((size_t)words * sizeof *src);
    MPI_Win win;
    size_t flags = (size_t)p * (size_t)words;   /* word index of the flags */
    uint64_t *got = malloc((size_t)words * sizeof *got);
    CHECK(MPI_Win_allocate((MPI_Aint)((flags + (size_t)p) * 8u), 8, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &base, &win));
    memset(base, 0, (flags + (size_t)p) * 8u);
    CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    long misses = 0;
    for (long r = 1; r <= rounds; r++) {
        put_round(src, words, r, me, p, win, use_all);
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(MPI_Win_sync(win));
        for (int o = 0; o < p; o++)
            for (long w = 0; w < words; w++) {
                uint64_t v = __atomic_load_n(&base[(size_t)o * words + w], __ATOMIC_ACQUIRE);
                if (v != (((uint64_t)r << 20) | (uint64_t)w))
                    misses++;
            }
        /* nobody overwrites a block before every target has checked it */
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    long late = 0;      /* publish pattern */
    for (long r = 1; r <= rounds; r++) {
        uint64_t stamp = (uint64_t)r << 20;
        put_round(src, words, r, me, p, win, use_all);
        uint64_t flag = (uint64_t)r;
        for (int k = 0; k < p; k++)
            CHECK(MPI_Accumulate(&flag, 1, MPI_UINT64_T, (me + k) % p,
                                 (MPI_Aint)(flags + (size_t)me), 1, MPI_UINT64_T,
                                 MPI_REPLACE, win));
        for (int t = 0; t < p; t++)
            CHECK(MPI_Win_flush(t, win));
        for (int o = 0; o < p; o++) {
            uint64_t seen = 0, none = 0;
            do {
                CHECK(MPI_Fetch_and_op(&none, &seen, MPI_UINT64_T, me,
                                       (MPI_Aint)(flags + (size_t)o), MPI_NO_OP, win));
                CHECK(MPI_Win_flush(me, win));
            } while (seen < (uint64_t)r);
            CHECK(MPI_Get(got, (int)words, MPI_UINT64_T, me, (MPI_Aint)o * words,
                          (int)words, MPI_UINT64_T, win));
            CHECK(MPI_Win_flush(me, win));
            for (long w = 0; w < words; w++)
                if (got[w] != (stamp | (uint64_t)w))
                    late++;
        }
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    misses += late;
    long total = 0;
    CHECK(MPI_Reduce(&misses, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (me == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(ver, &len);
        char *nl = strchr(ver, '\n');
        if (nl)
            *nl = 0;
        for (char *c = ver; *c; c++)
            if (*c == '"' || *c == '\\' || *c == '\t')
                *c = ' ';
        printf("{\"mode\": \"%s\", \"ranks\": %d, \"rounds\": %ld, \"words\": %ld, "
               "\"misses\": %ld, \"library\": \"%s\"}\n", use_all ? "flush_all" : "each",
               p, rounds, words, total, ver);
    }
    arm_finalize_guard("flush_all_stress", 0);  /* the report is out; teardown may hang */
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Win_free(&win));
    free(src);
    free(got);
    MPI_Finalize();
    return 0;
}
