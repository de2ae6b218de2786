/* bcl_resync.c -- notices of ranks that stopped their part of a cell
 * (bcl_resync.h). */
#include "comm/bcl_resync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm/bcl_comm.h"

#define RESYNC_TAG 2          /* on depart_comm; departure notices use 1 */
#define WHY_LEN 80

typedef struct notice {
    int64_t rounds;           /* agreement rounds the sender took part in */
    char why[WHY_LEN];        /* what it raised, NUL-terminated           */
} notice;

/* A notice of ours a peer has not received yet, with its own buffer (MPI
 * holds on to its address).  A peer idle since receives it when its next
 * cell starts, so a peer may have several waiting. */
typedef struct sent {
    MPI_Request rq;
    notice *msg;
} sent;

/* What this process knows, for one runtime (epoch): the furthest round
 * announced, per peer the rounds after which it stopped during this cell
 * (INT64_MAX: it has not), and our notices in flight. */
static struct {
    uint64_t epoch;
    int64_t target;
    int64_t *left;
    char (*left_why)[WHY_LEN];
    sent *sends;
    int nsends, cap;
} rs;

static void forget(void)
{
    for (int i = 0; i < rs.nsends; i++)
        free(rs.sends[i].msg);
    free(rs.sends);
    free(rs.left);
    free(rs.left_why);
    memset(&rs, 0, sizeof rs);
}

/* The state of the current runtime (a new one starts from nothing). */
static int ready(void)
{
    if (!bcl_rt.initialized || bcl_rt.nprocs == 1 || bcl_rt.depart_comm == MPI_COMM_NULL)
        return 0;
    if (rs.epoch == bcl_rt.epoch && rs.left)
        return 1;
    forget();
    int p = bcl_rt.nprocs;
    rs.left = malloc((size_t)p * sizeof *rs.left);
    rs.left_why = calloc((size_t)p, sizeof *rs.left_why);
    if (!rs.left || !rs.left_why) {
        forget();
        return 0;
    }
    for (int r = 0; r < p; r++)
        rs.left[r] = INT64_MAX;
    rs.epoch = bcl_rt.epoch;
    return 1;
}

/* Forget the notices of ours that have been received; 1 when none is left. */
static int sweep_sends(void)
{
    int kept = 0;
    for (int i = 0; i < rs.nsends; i++) {
        int done = 0;
        if (MPI_Test(&rs.sends[i].rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done) {
            free(rs.sends[i].msg);
            continue;
        }
        rs.sends[kept++] = rs.sends[i];
    }
    rs.nsends = kept;
    return kept == 0;
}

static bcl_status send_notice(int to, const notice *n)
{
    if (rs.nsends == rs.cap) {
        int cap = rs.cap ? 2 * rs.cap : 16;
        sent *grown = realloc(rs.sends, (size_t)cap * sizeof *grown);
        if (!grown)
            return bcl_set_error(BCL_ERR_NOMEM, "no memory for a resync notice");
        rs.sends = grown;
        rs.cap = cap;
    }
    sent *s = &rs.sends[rs.nsends];
    if (!(s->msg = malloc(sizeof *s->msg)))
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a resync notice");
    *s->msg = *n;
    /* Synchronous: complete once the peer has received it (wait_received). */
    int rc = MPI_Issend(s->msg, (int)sizeof *s->msg, MPI_BYTE, to, RESYNC_TAG,
                        bcl_rt.depart_comm, &s->rq);
    if (rc != MPI_SUCCESS) {
        free(s->msg);
        return bcl_mpi_error("MPI_Issend (resync notice)", rc);
    }
    rs.nsends++;
    return BCL_OK;
}

/* Receive every notice that has arrived; `in_cell`: they end waits. */
static bcl_status drain(int in_cell)
{
    for (;;) {
        int flag = 0;
        MPI_Status status;
        BCL_MPI_CHECK("MPI_Iprobe", MPI_Iprobe(MPI_ANY_SOURCE, RESYNC_TAG, bcl_rt.depart_comm,
                                               &flag, &status));
        if (!flag)
            return BCL_OK;
        notice in;
        memset(&in, 0, sizeof in);
        BCL_MPI_CHECK("MPI_Recv", MPI_Recv(&in, (int)sizeof in, MPI_BYTE, status.MPI_SOURCE,
                                           RESYNC_TAG, bcl_rt.depart_comm, MPI_STATUS_IGNORE));
        in.why[WHY_LEN - 1] = '\0';
        int r = status.MPI_SOURCE;
        if (in.rounds > rs.target)
            rs.target = in.rounds;
        if (in_cell && r >= 0 && r < bcl_rt.nprocs) {
            rs.left[r] = in.rounds;
            memcpy(rs.left_why[r], in.why, WHY_LEN);
        }
    }
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

/* Wait, a bounded time, until the peers have received our notices: a peer
 * waiting in a collective call reads notices all along, so it gets this one
 * while it still waits in this cell.  A peer that has finished the cell
 * reads it only when its next cell starts, where it must count as old news
 * (bcl_resync.h): sent eagerly, it could still be in flight then and end a
 * wait of that next cell. */
static void wait_received(void)
{
    struct timespec start, pause = {0, 100000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!sweep_sends() && seconds_since(&start) < BCL_RESYNC_DELIVERY_S) {
        drain(0);           /* a peer announcing at the same time waits for us */
        nanosleep(&pause, NULL);
    }
}

bcl_status bcl_resync_announce(int64_t rounds, const char *why)
{
    if (!ready())
        return BCL_OK;
    notice n;
    memset(&n, 0, sizeof n);
    n.rounds = rounds;
    snprintf(n.why, sizeof n.why, "%s", why ? why : "an exception");
    for (int r = 0; r < bcl_rt.nprocs; r++) {
        if (r == bcl_rt.rank)
            continue;
        bcl_status st = send_notice(r, &n);
        if (st != BCL_OK)
            return st;
    }
    if (rounds > rs.target)
        rs.target = rounds;
    wait_received();
    return BCL_OK;
}

void bcl_resync_cell_start(void)
{
    if (!ready())
        return;
    drain(0);
    sweep_sends();
    for (int r = 0; r < bcl_rt.nprocs; r++)
        rs.left[r] = INT64_MAX;
}

int64_t bcl_resync_target(void)
{
    return ready() ? rs.target : 0;
}

bcl_status bcl_resync_check(int64_t round, const char *what)
{
    if (!ready())
        return BCL_OK;
    bcl_status st = drain(1);
    if (st != BCL_OK || round <= 0)
        return st;
    for (int r = 0; r < bcl_rt.nprocs; r++)
        if (rs.left[r] < round)
            return bcl_set_error(BCL_ERR_STATE,
                                 "%s: rank %d stopped its part of this cell (%s) without "
                                 "joining this collective call, so it fails on every rank "
                                 "that waits here; the ranks are back in step at their "
                                 "next collective call", what, r, rs.left_why[r]);
    return BCL_OK;
}

void bcl_resync_finish(void)
{
    if (rs.left && rs.epoch == bcl_rt.epoch && bcl_rt.initialized) {
        drain(0);
        /* What a peer never received dies with the communicator: every
         * rank has departed, nobody waits for a round any more. */
        for (int i = 0; i < rs.nsends; i++)
            MPI_Request_free(&rs.sends[i].rq);
        for (int i = 0; i < rs.nsends; i++)
            free(rs.sends[i].msg);
        rs.nsends = 0;
    }
    forget();
}
