/*
 * oversub.c -- RMA progress under oversubscription (e.g. -n 4 on 2 cores).
 *
 * Window as in pybcl (MPI_Win_allocate on dup(COMM_WORLD), lock_all NOCHECK).
 * Prints one JSON line on rank 0.
 *
 *   --test ops     active ranks do random remote MPI_Fetch_and_op(SUM) to random
 *                  targets (!= self) for --secs seconds; idle ranks wait.
 *   --op fao|put   ops test: MPI_Fetch_and_op(SUM) (default) or put 8 B + MPI_Win_flush
 *                  (with --wait req: MPI_Rput polled as below, then MPI_Win_flush)
 *   --test spin    token ring on one counter at rank 0: rank r spins (atomic
 *                  load) until counter % n == r, then increments it (--hops).
 *   --test barrier --iters barriers, µs each (using the --idle strategy).
 *
 *   --wait flush        op + MPI_Win_flush (blocking)
 *   --wait flush_yield  op + MPI_Win_flush + sched_yield() after every op/poll
 *   --wait req          MPI_Rget_accumulate + MPI_Test loop; sched_yield()
 *                       after every K failed tests (--K, -1 = never yield)
 *   --wait iprobe       like req, but also MPI_Iprobe each failed poll
 *   --relax yield|sleep  what "yield" means above: sched_yield() (default) or
 *                  nanosleep(--sleep-ns, default 1000), or hybrid: in request polls
 *                  spin K, then sched_yield() up to K+Y (--Y, 64) polls, then nanosleep
 *   --op put2      put as MPI_Raccumulate(REPLACE) + MPI_Rget_accumulate(NO_OP) on the
 *                  same location (ordered by default accumulate_ordering), both polled
 *   --active all|half|one   which ranks issue ops (test ops)
 *   --idle barrier|ibarrier_yield|ibarrier_spin   how non-active ranks wait
 *                  (MPI_Barrier / MPI_Ibarrier+MPI_Test+sched_yield / +MPI_Test only)
 *                  compute: idle ranks compute outside MPI for secs+50ms, then MPI_Barrier
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static MPI_Win win;
static MPI_Comm comm;
static int rank, n;
static int64_t *seg;
static int K = 0;
enum { W_FLUSH, W_FLUSH_YIELD, W_REQ, W_IPROBE };
static int wmode = W_FLUSH;
static const char *wname[] = {"flush", "flush_yield", "req", "iprobe"};
static long yields;
static int use_sleep; /* --relax sleep: nanosleep(sleep_ns) instead of sched_yield() */
static long sleep_ns = 1000;
static int Y = 64; /* --relax hybrid: sched_yield for Y relax steps, then nanosleep */
static void relax(void) {
    if (use_sleep) { /* sleep, and hybrid outside req_wait */ struct timespec ts = {0, sleep_ns}; nanosleep(&ts, NULL); }
    else sched_yield();
}

/* wait for request with the chosen polling policy */
static void req_wait(MPI_Request *rq) {
    int done = 0, fails = 0;
    for (;;) {
        MPI_Test(rq, &done, MPI_STATUS_IGNORE);
        if (done) return;
        if (wmode == W_IPROBE) {
            int fl;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &fl, MPI_STATUS_IGNORE);
        }
        if (use_sleep == 2) { /* hybrid: spin K, then sched_yield, after K+Y polls nanosleep */
            ++fails;
            if (fails > K + Y) { struct timespec ts = {0, sleep_ns}; nanosleep(&ts, NULL); }
            else if (fails > K) sched_yield();
            continue;
        }
        if (K >= 0 && ++fails > K) { relax(); yields++; fails = 0; }
    }
}

/* atomic fetch-op of one int64 at (t, disp), completed */
static int64_t fop(int64_t *val, int t, MPI_Aint disp, MPI_Op op) {
    int64_t res;
    if (wmode == W_FLUSH || wmode == W_FLUSH_YIELD) {
        MPI_Fetch_and_op(val, &res, MPI_INT64_T, t, disp, op, win);
        MPI_Win_flush(t, win);
        if (wmode == W_FLUSH_YIELD) { relax(); yields++; }
    } else {
        MPI_Request rq;
        int64_t dummy = 0;
        MPI_Rget_accumulate(val ? val : &dummy, 1, MPI_INT64_T, &res, 1, MPI_INT64_T, t,
                            disp, 1, MPI_INT64_T, op, win, &rq);
        req_wait(&rq);
    }
    return res;
}

static double g_secs = 1.0;
static void idle_wait(const char *how) {
    if (!strcmp(how, "compute")) { /* busy outside MPI for the whole test, then barrier */
        volatile double x = 1.0;
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < g_secs + 0.05) for (int j = 0; j < 1000; j++) x = x * 1.0000001 + 1e-9;
        MPI_Barrier(comm);
        return;
    }
    if (!strcmp(how, "barrier")) { MPI_Barrier(comm); return; }
    MPI_Request rq;
    int done = 0;
    MPI_Ibarrier(comm, &rq);
    while (!done) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (!done && !strcmp(how, "ibarrier_yield")) relax();
    }
}

int main(int argc, char **argv) {
    const char *test = "ops", *active = "all", *idle = "barrier";
    double secs = 1.0;
    long hops = 2000, iters = 1000;
    int single = 0, put_op = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--test")) test = argv[++a];
        else if (!strcmp(argv[a], "--wait")) {
            const char *w = argv[++a];
            for (int i = 0; i < 4; i++) if (!strcmp(w, wname[i])) wmode = i;
        } else if (!strcmp(argv[a], "--K")) K = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--active")) active = argv[++a];
        else if (!strcmp(argv[a], "--idle")) idle = argv[++a];
        else if (!strcmp(argv[a], "--secs")) secs = atof(argv[++a]);
        else if (!strcmp(argv[a], "--hops")) hops = atol(argv[++a]);
        else if (!strcmp(argv[a], "--iters")) iters = atol(argv[++a]);
        else if (!strcmp(argv[a], "--single")) single = 1;
        else if (!strcmp(argv[a], "--relax")) { a++; use_sleep = !strcmp(argv[a], "sleep") ? 1 : !strcmp(argv[a], "hybrid") ? 2 : 0; }
        else if (!strcmp(argv[a], "--Y")) Y = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--sleep-ns")) sleep_ns = atol(argv[++a]);
        else if (!strcmp(argv[a], "--op")) { a++; put_op = !strcmp(argv[a], "put2") ? 2 : !strcmp(argv[a], "put"); }
    }
    g_secs = secs;
    int prov;
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &prov);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Win_allocate(64 << 20, 8, MPI_INFO_NULL, comm, &seg, &win);
    memset(seg, 0, 4096);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Win_sync(win);
    MPI_Barrier(comm);
    srand(1234 + rank);

    double us = 0, mx = 0;
    long cnt = 0;
    if (!strcmp(test, "ops")) {
        int is_active = !strcmp(active, "all") ? 1 : !strcmp(active, "one") ? rank == 0 : rank < n / 2;
        MPI_Barrier(comm);
        if (is_active) {
            int64_t one = 1;
            double t0 = MPI_Wtime(), t;
            do {
                int tgt = rand() % (n - 1);
                if (tgt >= rank) tgt++;
                if (put_op == 2) {
                    MPI_Aint d = 8 * (rand() % 64);
                    MPI_Request rq[2];
                    int64_t r2;
                    MPI_Raccumulate(&one, 1, MPI_INT64_T, tgt, d, 1, MPI_INT64_T, MPI_REPLACE, win, &rq[0]);
                    MPI_Rget_accumulate(NULL, 0, MPI_INT64_T, &r2, 1, MPI_INT64_T, tgt, d, 1, MPI_INT64_T,
                                        MPI_NO_OP, win, &rq[1]);
                    req_wait(&rq[1]);
                    req_wait(&rq[0]);
                } else if (put_op) { /* put 8 B, remotely completed */
                    MPI_Aint d = 8 * (rand() % 64);
                    if (wmode == W_REQ || wmode == W_IPROBE) {
                        MPI_Request rq;
                        MPI_Rput(&one, 1, MPI_INT64_T, tgt, d, 1, MPI_INT64_T, win, &rq);
                        req_wait(&rq);
                    } else
                        MPI_Put(&one, 1, MPI_INT64_T, tgt, d, 1, MPI_INT64_T, win);
                    MPI_Win_flush(tgt, win);
                    if (wmode == W_FLUSH_YIELD) relax();
                } else
                    fop(&one, tgt, 8 * (rand() % 64), MPI_SUM);
                cnt++;
                t = MPI_Wtime();
            } while (t - t0 < secs);
            us = (t - t0) * 1e6 / cnt;
        }
        idle_wait(idle); /* active ranks join when done; idle ranks wait here */
        double sum = 0; long tot = 0; int na = 0, ia = is_active;
        MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        MPI_Reduce(&us, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&cnt, &tot, 1, MPI_LONG, MPI_SUM, 0, comm);
        MPI_Reduce(&ia, &na, 1, MPI_INT, MPI_SUM, 0, comm);
        if (rank == 0)
            printf("{\"test\":\"ops\",\"relax\":\"%s\",\"op\":\"%s\",\"n\":%d,\"wait\":\"%s\",\"K\":%d,\"active\":\"%s\",\"idle\":\"%s\","
                   "\"n_active\":%d,\"us_per_op_mean_over_active\":%.2f,\"us_per_op_worst_rank\":%.2f,"
                   "\"total_ops\":%ld,\"secs\":%.2f}\n",
                   use_sleep == 2 ? "hybrid" : use_sleep ? "nanosleep" : "sched_yield", put_op == 2 ? "put8_as_racc_replace+rgetacc_noop" : put_op ? "put8+flush" : "fetch_and_op_sum", n, wname[wmode], K, active, idle, na, sum / na, mx, tot, secs);
    } else if (!strcmp(test, "spin")) {
        int64_t one = 1;
        long polls = 0;
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (long h = rank; h < hops; h += n) {
            for (;;) {
                int64_t v = fop(NULL, 0, 0, MPI_NO_OP);
                polls++;
                if (v == h) break;
            }
            fop(&one, 0, 0, MPI_SUM);
        }
        double el = MPI_Wtime() - t0;
        idle_wait(idle);
        double elmax; long ptot;
        MPI_Reduce(&el, &elmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        MPI_Reduce(&polls, &ptot, 1, MPI_LONG, MPI_SUM, 0, comm);
        if (rank == 0)
            printf("{\"test\":\"spin\",\"relax\":\"%s\",\"n\":%d,\"wait\":\"%s\",\"K\":%d,\"hops\":%ld,"
                   "\"us_per_hop\":%.2f,\"polls_per_hop\":%.1f,\"secs\":%.3f}\n",
                   use_sleep == 2 ? "hybrid" : use_sleep ? "nanosleep" : "sched_yield", n, wname[wmode], K, hops, elmax * 1e6 / hops, (double)ptot / hops, elmax);
    } else if (!strcmp(test, "barrier")) {
        for (int i = 0; i < 10; i++) idle_wait(idle);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++) idle_wait(idle);
        double el = MPI_Wtime() - t0, elmax;
        MPI_Reduce(&el, &elmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (rank == 0)
            printf("{\"test\":\"barrier\",\"relax\":\"%s\",\"n\":%d,\"idle\":\"%s\",\"us_per_barrier\":%.2f}\n",
                   use_sleep == 2 ? "hybrid" : use_sleep ? "nanosleep" : "sched_yield", n, idle, elmax * 1e6 / iters);
    }
    fflush(stdout);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
