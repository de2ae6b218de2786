/*
 * queue_floor.c -- the raw MPI-3 RMA floor of pybcl's queue operations.
 *
 * Each measured sequence is exactly the one pybcl's rma transport issues for
 * the operation (csrc/containers/bcl_queue.c), with no container logic around it:
 *
 *   fast_push       MPI_Fetch_and_op(SUM) + flush; MPI_Put 8 B + flush_local
 *   fast_pop        MPI_Fetch_and_op(SUM) + flush; MPI_Get 8 B + flush_local
 *   circular_push   CAS + flush (claim); Put 8 B + flush; CAS + flush
 *   circular_pop    CAS + flush (claim); Get 8 B + flush_local; CAS + flush
 *   fast_push_many  Fetch_and_op(SUM) + flush; Put 8 KiB + flush_local
 *   circular_push_many  CAS + flush (claim); Put 8 KiB + flush; CAS + flush
 *
 * Set-up mirrors pybcl: MPI_THREAD_MULTIPLE (what mpi4py asks for),
 * MPI_Win_allocate on a dup of COMM_WORLD, MPI_Win_lock_all(NOCHECK) once.
 * Rank 0 issues, rank 1 hosts the queue and waits in MPI_Barrier.  Prints
 * one JSON object (rank 0): median microseconds per operation over --reps.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floor_util.h"

#define CHUNK 1024                  /* elements per push_many, int64 */
#define NSLOTS 65536                /* ring slots (int64) */
#define DATA_OFF 4096               /* data after the counters */

enum { FAST_PUSH, FAST_POP, CIRC_PUSH, CIRC_POP, FAST_PUSH_MANY, CIRC_PUSH_MANY, NOPS };
static const char *names[NOPS] = { "fast_push", "fast_pop", "circular_push",
                                   "circular_pop", "fast_push_many", "circular_push_many" };

static MPI_Win win;
static int64_t buf[CHUNK];
static uint64_t ready_expect;       /* the CAS must succeed, as in the queue */

static MPI_Aint slot(uint64_t i) { return DATA_OFF + (MPI_Aint)(i % NSLOTS) * 8; }

static uint64_t claim(MPI_Aint counter, int64_t n)
{
    int64_t old;
    MPI_Fetch_and_op(&n, &old, MPI_INT64_T, 1, counter, MPI_SUM, win);
    MPI_Win_flush(1, win);
    return (uint64_t)old;
}

/* CircularQueue claims by CAS from the last value seen, retried from the
 * value a failed CAS returns (bcl_queue.h).  With one origin only the first
 * CAS after the fast_* runs (which moved the counters) fails. */
static uint64_t claim_expect[2];    /* [0]: head (offset 0), [1]: tail (64) */

static uint64_t claim_cas(MPI_Aint counter, uint64_t n)
{
    uint64_t *expect = &claim_expect[counter ? 1 : 0];
    for (;;) {
        uint64_t desired = *expect + n, old;
        MPI_Compare_and_swap(&desired, expect, &old, MPI_UINT64_T, 1, counter, win);
        MPI_Win_flush(1, win);
        if (old == *expect) {
            *expect = desired;
            return old;
        }
        *expect = old;
    }
}

static void publish(MPI_Aint ready, uint64_t n)
{
    uint64_t desired = ready_expect + n, old;
    MPI_Compare_and_swap(&desired, &ready_expect, &old, MPI_UINT64_T, 1, ready, win);
    MPI_Win_flush(1, win);
    ready_expect = desired;
}

/* Each operation is one claim, one data transfer and, for CircularQueue, one
 * publish: a row of this table says which (one op(), so every queue operation
 * is timed through the same code and differs only in what the row says). */
struct queue_step {
    int by_cas;                 /* CircularQueue claims by CAS, FastQueue by FAO */
    MPI_Aint counter;           /* 0: head, 64: tail */
    int count;                  /* elements moved */
    int is_put;                 /* push: Put; pop: Get */
    int remote_flush;           /* CircularQueue pushes must land before publishing */
    MPI_Aint publish;           /* the ready counter to advance, 0: none */
};

static const struct queue_step steps[NOPS] = {
    [FAST_PUSH]      = { 0, 64, 1, 1, 0, 0 },
    [FAST_POP]       = { 0, 0, 1, 0, 0, 0 },
    [CIRC_PUSH]      = { 1, 64, 1, 1, 1, 192 },
    [CIRC_POP]       = { 1, 0, 1, 0, 0, 128 },
    [FAST_PUSH_MANY] = { 0, 64, CHUNK, 1, 0, 0 },
    [CIRC_PUSH_MANY] = { 1, 64, CHUNK, 1, 1, 192 },
};

static void op(int k)
{
    const struct queue_step *s = &steps[k];
    uint64_t i = s->by_cas ? claim_cas(s->counter, (uint64_t)s->count)
                           : claim(s->counter, s->count);
    MPI_Aint at = slot(i - i % (uint64_t)s->count);
    if (s->is_put)
        MPI_Put(buf, s->count * 8, MPI_BYTE, 1, at, s->count * 8, MPI_BYTE, win);
    else
        MPI_Get(buf, s->count * 8, MPI_BYTE, 1, at, s->count * 8, MPI_BYTE, win);
    if (s->remote_flush)
        MPI_Win_flush(1, win);
    else
        MPI_Win_flush_local(1, win);
    if (s->publish)
        publish(s->publish, (uint64_t)s->count);
}

int main(int argc, char **argv)
{
    int rank, reps = 5, iters = 20000;
    for (int a = 1; a + 1 < argc; a++) {
        if (!strcmp(argv[a], "--reps")) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--iters")) iters = atoi(argv[++a]);
    }
    if (reps < 1 || reps > 64) reps = 5;
    MPI_Comm comm;
    floor_init_pair(&argc, &argv, "queue_floor", &comm, &rank);
    char *seg;
    MPI_Win_allocate(DATA_OFF + NSLOTS * 8, 1, MPI_INFO_NULL, comm, &seg, &win);
    memset(seg, 0, DATA_OFF + NSLOTS * 8);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(comm);
    double med[NOPS];
    for (int k = 0; k < NOPS; k++) {
        double t[64];
        int n = k >= FAST_PUSH_MANY ? iters / 10 : iters;
        for (int r = -1; r < reps; r++) {          /* r = -1: warm-up */
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            if (rank == 0)
                for (int j = 0; j < n; j++) op(k);
            double t1 = MPI_Wtime();
            MPI_Barrier(comm);
            if (r >= 0) t[r] = (t1 - t0) * 1e6 / n;
        }
        med[k] = floor_median(t, reps);
    }
    MPI_Win_unlock_all(win);
    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        for (char *p = ver; *p; p++) if (*p == '\n' || *p == '\t' || *p == '"') *p = ' ';
        printf("{\"benchmark\": \"queue_floor\", \"mpi\": \"%.60s\", \"reps\": %d, "
               "\"iters\": %d, \"chunk\": %d, \"us_per_op\": {", ver, reps, iters, CHUNK);
        for (int k = 0; k < NOPS; k++)
            printf("\"%s\": %.3f%s", names[k], med[k], k + 1 < NOPS ? ", " : "");
        printf("}}\n");
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
