/*
 * hm_apply_vs_floor.c -- HashMapBuffer's owner-side kernel (the core's bulk
 * apply, bcl_hm_apply_many_local) against a plain open-addressing table of
 * the same bucket layout: the floor of what applying a counter's entries
 * to one rank's block can cost.
 *
 *   sh benchmarks/floor/run_apply_floor.sh [ARGS] > apply_floor.json
 *   (builds this file with the core's runtime, comm, serial and containers
 *   sources, then runs it on one rank with ARGS)
 * ARGS: [--keys FILE | --distinct D --total N] [--buckets B] [--reps R]
 *
 * The entries are a counter's: N keys, each with delta 1, drawn from D
 * distinct 64-bit keys (or the raw uint64 keys of FILE, e.g. k-mer codes in
 * file order).  Both sides apply them to B buckets (default 2.1 x the
 * distinct keys, the half load HashMapBuffer(grow=True) keeps) of 24 bytes
 * (status word, key, value), with the same hash, home bucket and quadratic
 * probe sequence, home buckets prefetched 32 entries ahead.  The floor is a
 * malloc'ed array with no protocol at all (a bucket is free or holds a
 * key); the core is a bcl_hashmap in the shared segment.  Each repetition
 * zeroes both tables (already faulted in) and times floor then core; the
 * medians are reported.  One rank: the apply is local work.  Output: one
 * JSON object.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "containers/hashmap/bcl_hashmap_internal.h"
#include "floor_util.h"

#define AHEAD 32

typedef struct bucket { uint64_t status, key; int64_t val; } bucket;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(bcl_status st, const char *what)
{
    if (st != BCL_OK) {
        fprintf(stderr, "%s: %s\n", what, bcl_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* splitmix64: the next of a seeded stream of 64-bit keys */
static uint64_t splitmix(uint64_t *s)
{
    return bcl_mix64(*s += 0x9E3779B97F4A7C15ull);
}

static uint64_t *read_keys(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        perror(path);
        exit(1);
    }
    *n = (size_t)ftell(f) / 8;
    rewind(f);
    uint64_t *k = malloc(*n * 8 + 8);
    if (!k || fread(k, 8, *n, f) != *n) {
        fprintf(stderr, "%s: cannot read %zu keys\n", path, *n);
        exit(1);
    }
    fclose(f);
    return k;
}

static uint64_t *draw_keys(size_t distinct, size_t total)
{
    uint64_t *pool = malloc(distinct * 8), *k = malloc(total * 8 + 8), s = 42;
    if (!pool || !k) {
        fprintf(stderr, "no memory for %zu keys\n", total);
        exit(1);
    }
    for (size_t i = 0; i < distinct; i++)
        pool[i] = splitmix(&s);
    for (size_t i = 0; i < total; i++)
        k[i] = pool[splitmix(&s) % distinct];
    free(pool);
    return k;
}

static inline uint64_t home(uint64_t h, uint64_t nb)
{
    return (uint64_t)(((unsigned __int128)h * nb) >> 64);
}

/* The floor: no status protocol, no block bounds, no overflow check. */
static void floor_apply(bucket *t, uint64_t nb, uint64_t pmask, const uint64_t *k, size_t n)
{
    uint64_t ring[AHEAD];
    for (size_t i = 0; i < n && i < AHEAD; i++)
        ring[i] = bcl_hm_hash(&k[i], 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = ring[i % AHEAD];
        if (i + AHEAD < n) {
            uint64_t a = bcl_hm_hash(&k[i + AHEAD], 8);
            ring[i % AHEAD] = a;
            __builtin_prefetch(&t[home(a, nb)], 1);
        }
        for (uint64_t j = 0;; j++) {
            uint64_t p = (home(h, nb) + j * (j + 1) / 2) & pmask;
            if (p >= nb)
                continue;
            bucket *b = &t[p];
            if (!b->status) {
                b->status = BCL_HM_READY;
                b->key = k[i];
                b->val = 1;
                break;
            }
            if (b->key == k[i]) {
                b->val++;
                break;
            }
        }
    }
}

static bcl_status count_spill(void *ctx, const void *key, const void *val, int acc,
                              bcl_status st, int spilled)
{
    (void)key, (void)val, (void)acc, (void)spilled;
    ++*(size_t *)ctx;
    return st == BCL_ERR_FULL ? BCL_OK : st;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    size_t distinct = 9100000, total = 17300000, buckets = 0;
    int reps = 5;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--keys") && a + 1 < argc) path = argv[++a];
        else if (!strcmp(argv[a], "--distinct") && a + 1 < argc) distinct = strtoull(argv[++a], 0, 10);
        else if (!strcmp(argv[a], "--total") && a + 1 < argc) total = strtoull(argv[++a], 0, 10);
        else if (!strcmp(argv[a], "--buckets") && a + 1 < argc) buckets = strtoull(argv[++a], 0, 10);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: %s [--keys FILE | --distinct D --total N] [--buckets B] "
                    "[--reps R]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > 99 || !distinct || !total) {
        fprintf(stderr, "--reps 1..99, --distinct and --total > 0\n");
        return 2;
    }
    uint64_t *keys = path ? read_keys(path, &total) : draw_keys(distinct, total);
    if (path)
        distinct = 0;           /* unknown: the table is sized from the entries below */
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs != 1) {
        fprintf(stderr, "hm_apply_vs_floor: run with one rank (the apply is local)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!buckets)
        buckets = (size_t)(2.1 * (double)(distinct ? distinct : total / 2 + 1));
    size_t seg = buckets * sizeof(bucket) + ((size_t)64 << 20);
    die(bcl_init(MPI_COMM_WORLD, seg, BCL_TRANSPORT_SHM, 0), "bcl_init");

    bcl_hashmap m;
    die(bcl_hm_create(&m, buckets, 8, 8, BCL_HM_NUM_INT), "create");
    bucket *t = malloc(m.n * sizeof *t);
    if (!t) {
        fprintf(stderr, "no memory for the floor's table\n");
        return 1;
    }
    memset(t, 0, m.n * sizeof *t);          /* fault both tables in before timing */
    double tf[99], tc[99];
    size_t spilled = 0;
    int64_t one = 1;
    for (int r = 0; r < reps; r++) {
        memset(t, 0, m.n * sizeof *t);
        double t0 = now();
        floor_apply(t, m.n, m.pmask, keys, total);
        tf[r] = now() - t0;
        memset(bcl_hm_local_bucket(&m, 0), 0, m.n * m.bsize);
        int refusing = 0;
        bcl_hm_run run = { (const unsigned char *)keys, (const unsigned char *)&one, 8, 0,
                           total, 1 };
        spilled = 0;
        t0 = now();
        die(bcl_hm_apply_many_local(&m, &run, 0, &refusing, count_spill, &spilled), "apply");
        tc[r] = now() - t0;
    }
    uint64_t used = bcl_hm_local_used(&m);
    double f = floor_median(tf, reps), c = floor_median(tc, reps);
    printf("{\"benchmark\": \"hm_apply_vs_floor\", \"keys\": \"%s\", \"entries\": %zu, "
           "\"distinct\": %llu, \"buckets\": %llu, \"bucket_bytes\": %zu, \"reps\": %d, "
           "\"not_applied\": %zu, \"floor_s\": %.4f, \"core_s\": %.4f, "
           "\"floor_ns_per_entry\": %.1f, \"core_ns_per_entry\": %.1f, "
           "\"core_over_floor\": %.3f}\n",
           path ? path : "drawn", total, (unsigned long long)used,
           (unsigned long long)m.n, m.bsize, reps, spilled, f, c, 1e9 * f / (double)total,
           1e9 * c / (double)total, c / f);
    free(t);
    free(keys);
    bcl_hm_destroy(&m);
    die(bcl_finalize(0.0), "bcl_finalize");
    return 0;
}
