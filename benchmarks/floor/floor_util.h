/*
 * floor_util.h -- what the raw-MPI floor programs share: the hash-table bucket
 * sequences (so every floor times exactly the same MPI calls the rma transport
 * issues, csrc/containers/hashmap/bcl_hashmap.c) and the median of repetitions.
 * Header-only: each floor is built from one .c file by the benchmark scripts.
 */
#ifndef FLOOR_UTIL_H
#define FLOOR_UTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI at MPI_THREAD_MULTIPLE (pybcl's level) on a private communicator of
 * exactly the two ranks a two-rank floor times (`name` says so otherwise);
 * returns the thread level provided. */
static inline int floor_init_pair(int *argc, char ***argv, const char *name, MPI_Comm *comm,
                                  int *rank)
{
    int provided, n;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, comm);
    MPI_Comm_rank(*comm, rank);
    MPI_Comm_size(*comm, &n);
    if (n != 2) {
        if (*rank == 0)
            fprintf(stderr, "%s: run with exactly 2 ranks\n", name);
        MPI_Abort(*comm, 1);
    }
    return provided;
}

/* Insert: reserve the bucket (CAS), write key+value, flush, publish (BXOR), flush. */
static inline void floor_hm_insert(MPI_Win win, int target, MPI_Aint slot, void *kv)
{
    int64_t one = 1, zero = 0, res;
    uint64_t mark = 0x5a5a, old;
    MPI_Compare_and_swap(&one, &zero, &res, MPI_INT64_T, target, slot, win);
    MPI_Put(kv, 16, MPI_BYTE, target, slot + 8, 16, MPI_BYTE, win);
    MPI_Win_flush(target, win);
    MPI_Fetch_and_op(&mark, &old, MPI_UINT64_T, target, slot, MPI_BXOR, win);
    MPI_Win_flush(target, win);
}

/* Find: acquire a read (BOR), read key+value, release (BAND). */
static inline void floor_hm_find(MPI_Win win, int target, MPI_Aint slot, void *kv)
{
    uint64_t mark = 0x5a5a, old;
    MPI_Fetch_and_op(&mark, &old, MPI_UINT64_T, target, slot, MPI_BOR, win);
    MPI_Win_flush(target, win);
    MPI_Get(kv, 16, MPI_BYTE, target, slot + 8, 16, MPI_BYTE, win);
    MPI_Win_flush(target, win);
    mark = ~(uint64_t)0x5a5a;
    MPI_Fetch_and_op(&mark, &old, MPI_UINT64_T, target, slot, MPI_BAND, win);
    MPI_Win_flush(target, win);
}

/* Find under the find-only promise: one read of state+key+value. */
static inline void floor_hm_find_only(MPI_Win win, int target, MPI_Aint slot, void *skv)
{
    MPI_Get(skv, 24, MPI_BYTE, target, slot, 24, MPI_BYTE, win);
    MPI_Win_flush(target, win);
}

static inline int floor_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) without reordering v (callers pair repetitions by index). */
static inline double floor_median(const double *v, int n)
{
    double *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return v[0];
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, floor_cmp_double);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

/* Smallest of v[0..n). */
static inline double floor_min(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

#endif
