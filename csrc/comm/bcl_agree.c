/* bcl_agree.c -- argument agreement of collective calls (bcl_agree.h). */
#include "comm/bcl_agree.h"

#include <stdio.h>
#include <string.h>

#include "comm/bcl_agree_node.h"
#include "comm/bcl_comm.h"
#include "comm/bcl_resync.h"
#include "runtime/bcl_lifetime.h"

int64_t bcl_agree_digest(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (int64_t)(h >> 1);        /* non-negative: negation cannot overflow */
}

/* Layout of the MIN-allreduced buffer: [0] lowest failing rank (INT64_MAX if
 * none), [1] -(highest failing rank), [2] tag, [3] -tag, then per argument
 * its value and its negated value (min and max in one reduction), then the
 * words of the reclaim of dropped containers, which rides on this reduction
 * rather than adding a collective anywhere (runtime/bcl_lifetime.h). */
enum { FAIL_LO, FAIL_HI, TAG, NTAG, ARGS, LIFE = ARGS + 2 * BCL_AGREE_MAX,
       LEN = LIFE + BCL_LIFE_WORDS };

static int64_t neg(int64_t v) { return v == INT64_MIN ? INT64_MAX : -v; }

/* Per thread: collective calls are refused while > 0 (bcl_agree.h). */
static _Thread_local int forbidden;

void bcl_agree_forbid(int on) { forbidden += on ? 1 : -1; }

/* The words `rank` contributes to the reduction, but for the reclaim words:
 * a failed rank's arguments are neutral (INT64_MAX) so they hide no value. */
static void fill_words(int64_t *buf, int rank, int failed, int64_t tag,
                       const int64_t *vals, int n)
{
    buf[FAIL_LO] = failed ? rank : INT64_MAX;
    buf[FAIL_HI] = failed ? -(int64_t)rank : 1;
    buf[TAG] = tag;
    buf[NTAG] = -tag;
    for (int i = 0; i < BCL_AGREE_MAX; i++) {
        int64_t v = !failed && i < n ? vals[i] : 0;
        buf[ARGS + 2 * i] = failed ? INT64_MAX : v;
        buf[ARGS + 2 * i + 1] = failed ? INT64_MAX : neg(v);
    }
}

/* ---- rounds (comm/bcl_resync.h) --------------------------------------
 * Every agreement is one round, numbered 1, 2, ... per runtime alike on
 * every rank; `entered` counts the rounds this rank has taken part in.  On
 * the MPI exchange a round this rank left before it completed (a peer
 * stopped its cell, or Ctrl-C) stays pending here with its buffer: it
 * completes once the others have caught up, and the next agreement finishes
 * it first.  On shm a round is a record in shared memory, and nothing stays
 * pending. */
static struct {
    uint64_t epoch;
    int64_t entered;
    MPI_Request rq;
    int64_t buf[LEN];
} rounds;

static void rounds_sync(void)
{
    if (rounds.epoch == bcl_rt.epoch)
        return;
    rounds.epoch = bcl_rt.epoch;
    rounds.entered = 0;
    rounds.rq = MPI_REQUEST_NULL;     /* an old runtime's: its communicator is gone */
}

int64_t bcl_agree_rounds(void)
{
    if (!bcl_rt.initialized)
        return 0;
    rounds_sync();
    return rounds.entered;
}

/* Wait for the pending round; the reclaim is applied only when every rank
 * was in this same call: garbage from a mismatched peer must not free
 * anything. */
static bcl_status finish_pending(const char *what)
{
    if (rounds.rq == MPI_REQUEST_NULL)
        return BCL_OK;
    bcl_status st = bcl_wait_round(&rounds.rq, what, rounds.entered);
    if (st == BCL_OK && rounds.buf[TAG] == -rounds.buf[NTAG])
        bcl_life_apply(rounds.buf + LIFE);
    return st;
}

/* The exchange by one MPI allreduce (on a communicator of its own): the
 * words above, MIN-reduced. */
static bcl_status exchange_mpi(const char *what, int failed, int64_t tag,
                               const int64_t *vals, int n, int64_t *buf)
{
    fill_words(rounds.buf, bcl_rt.rank, failed, tag, vals, n);
    bcl_life_fill(rounds.buf + LIFE);
    BCL_MPI_CHECK("MPI_Iallreduce", MPI_Iallreduce(MPI_IN_PLACE, rounds.buf, LEN, MPI_INT64_T,
                                                   MPI_MIN, bcl_rt.agree_comm, &rounds.rq));
    rounds.entered++;
    bcl_status st = finish_pending(what);
    if (st == BCL_OK)
        memcpy(buf, rounds.buf, sizeof rounds.buf);
    return st;
}

/* ---- the exchange through node shared memory (bcl_agree_node.h) --------
 * Each rank folds every rank's record into the least and greatest value of
 * each field, then writes the words the allreduce would have given: the
 * same outcome, without touching a word per window entry per rank. */
typedef struct fold {
    int nargs;                         /* arguments this call agrees on       */
    int64_t fail_lo, fail_hi;          /* ranks that failed (lo > hi: none)    */
    int64_t tag_lo, tag_hi;
    int64_t lo[BCL_AGREE_MAX], hi[BCL_AGREE_MAX];   /* over the other ranks */
    int64_t n_lo, n_hi, first_lo, first_hi;         /* the reclaim window  */
    uint64_t bits;
} fold;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static void fold_init(fold *f, int nargs)
{
    f->nargs = nargs;
    f->fail_lo = f->tag_lo = f->n_lo = f->first_lo = INT64_MAX;
    f->fail_hi = f->tag_hi = f->n_hi = f->first_hi = INT64_MIN;
    for (int i = 0; i < BCL_AGREE_MAX; i++) {
        f->lo[i] = INT64_MAX;
        f->hi[i] = INT64_MIN;
    }
    f->bits = ~(uint64_t)0;
}

static void fold_rec(const bcl_agree_rec *rec, int rank, void *ctx)
{
    fold *f = ctx;
    if (rec->failed) {                 /* its arguments are neutral */
        f->fail_lo = min64(f->fail_lo, rank);
        f->fail_hi = max64(f->fail_hi, rank);
    } else {
        for (int i = 0; i < f->nargs; i++) {
            f->lo[i] = min64(f->lo[i], rec->vals[i]);
            f->hi[i] = max64(f->hi[i], rec->vals[i]);
        }
    }
    f->tag_lo = min64(f->tag_lo, rec->tag);
    f->tag_hi = max64(f->tag_hi, rec->tag);
    f->n_lo = min64(f->n_lo, rec->life_n);
    f->n_hi = max64(f->n_hi, rec->life_n);
    f->first_lo = min64(f->first_lo, rec->life_first);
    f->first_hi = max64(f->first_hi, rec->life_first);
    f->bits &= rec->life_bits;
}

/* The words of the MIN-allreduce, but for the reclaim window's. */
static void fold_words(const fold *f, int64_t *buf)
{
    int any_failed = f->fail_lo <= f->fail_hi;
    buf[FAIL_LO] = any_failed ? f->fail_lo : INT64_MAX;
    buf[FAIL_HI] = any_failed ? -f->fail_hi : 1;
    buf[TAG] = f->tag_lo;
    buf[NTAG] = neg(f->tag_hi);
    for (int i = 0; i < BCL_AGREE_MAX; i++) {
        buf[ARGS + 2 * i] = f->lo[i];
        buf[ARGS + 2 * i + 1] = neg(f->hi[i]);   /* none: neg(INT64_MIN), as MPI */
    }
}

static bcl_status exchange_node(const char *what, int failed, int64_t tag,
                                const int64_t *vals, int n, int64_t *buf)
{
    bcl_agree_rec mine;
    bcl_life_window win;
    bcl_life_fill_window(&win);
    memset(&mine, 0, sizeof mine);
    mine.failed = failed;
    mine.tag = tag;
    mine.nargs = failed ? 0 : n;
    for (int i = 0; i < mine.nargs; i++)
        mine.vals[i] = vals[i];
    mine.life_n = win.n;
    mine.life_first = win.first;
    mine.life_bits = win.bits;
    fold f;
    fold_init(&f, n);
    bcl_status st = bcl_agree_node_round(&mine, ++rounds.entered, what, fold_rec, &f);
    if (st != BCL_OK)
        return st;
    fold_words(&f, buf);
    if (f.tag_lo == f.tag_hi)
        bcl_life_apply_window(f.n_lo, f.n_hi, f.first_lo, f.first_hi, f.bits);
    return BCL_OK;
}

static bcl_status exchange(const char *what, int failed, int64_t tag,
                           const int64_t *vals, int n, int64_t *buf)
{
    return bcl_agree_node_active() ? exchange_node(what, failed, tag, vals, n, buf)
                                   : exchange_mpi(what, failed, tag, vals, n, buf);
}

/* Before a call's own round: finish the round this rank left pending, take
 * part in the rounds it missed while the others went on (an empty record:
 * its outcome is nobody's), and fail at once, without joining, when a peer
 * stopped its part of this cell before this round (bcl_resync.h). */
static bcl_status catch_up(const char *what)
{
    rounds_sync();
    bcl_status st = finish_pending(what);
    while (st == BCL_OK && rounds.entered < bcl_resync_target()) {
        int64_t buf[LEN];
        st = exchange(what, 1, bcl_agree_digest("(catching up)"), NULL, 0, buf);
    }
    return st == BCL_OK ? bcl_resync_check(rounds.entered + 1, what) : st;
}

bcl_status bcl_agree(const char *what, bcl_status local, const char *const *names,
                     const int64_t *vals, int n)
{
    BCL_REQUIRE_INIT();
    /* Every collective starts here, so this one check covers them all: a
     * rank holding a locked bucket must not wait for peers, who may be
     * spinning on that very bucket (a deadlock, not an error).  Refused
     * without joining: the peers are not in this call. */
    if (forbidden > 0)
        return bcl_set_error(BCL_ERR_STATE, "%s: a collective call inside a "
                             "HashMap.modify() fn: the bucket stays locked while the "
                             "other ranks wait for it, a deadlock; call it outside fn",
                             what);
    if (n < 0 || n > BCL_AGREE_MAX)
        return bcl_set_error(BCL_ERR_ARG, "%s: bcl_agree of %d arguments", what, n);
    bcl_status st = catch_up(what);
    if (st != BCL_OK)
        return st;
    int64_t buf[LEN];
    int failed = local != BCL_OK;
    int64_t tag = bcl_agree_digest(what);
    char saved[512];
    if (failed)
        snprintf(saved, sizeof saved, "%s", bcl_last_error());
    /* On one node through shared memory; elsewhere one MPI allreduce.  The
     * choice is the transport's, the same on every rank, so every rank's
     * collective meets its peers' in the same exchange. */
    st = exchange(what, failed, tag, vals, n, buf);
    if (st != BCL_OK)
        return st;
    if (failed)
        return bcl_set_error(local, "%s", saved);
    /* A peer in a different collective whose MPI call matched this allreduce
     * (MPICH matches an Ibarrier with it) leaves garbage: failing ranks that
     * are no ranks.  Say what happened instead of naming ranks 1505311347..0. */
    int64_t fail_hi = buf[FAIL_HI] == 1 ? -1 : -buf[FAIL_HI];
    if ((buf[FAIL_LO] != INT64_MAX &&
         (buf[FAIL_LO] < 0 || buf[FAIL_LO] >= bcl_rt.nprocs || fail_hi < buf[FAIL_LO] ||
          fail_hi >= bcl_rt.nprocs)) ||
        (buf[FAIL_LO] == INT64_MAX && buf[FAIL_HI] != 1))
        return bcl_set_error(BCL_ERR_STATE, "%s: the ranks are not all in the same "
                             "collective call (another rank called a different one)",
                             what);
    if (buf[FAIL_LO] != INT64_MAX) {
        int lo = (int)buf[FAIL_LO], hi = (int)-buf[FAIL_HI];
        if (lo == hi)
            return bcl_set_error(BCL_ERR_ARG, "%s: the arguments were invalid on rank %d "
                                 "(its own exception says why); a collective call "
                                 "fails on every rank", what, lo);
        return bcl_set_error(BCL_ERR_ARG, "%s: the arguments were invalid on ranks %d..%d "
                             "(their own exceptions say why); a collective call fails "
                             "on every rank", what, lo, hi);
    }
    if (buf[TAG] != -buf[NTAG])
        return bcl_set_error(BCL_ERR_STATE, "%s: the ranks are not all in the same "
                             "collective call (another rank called a different one)",
                             what);
    for (int i = 0; i < n; i++) {
        int64_t lo = buf[ARGS + 2 * i], hi = neg(buf[ARGS + 2 * i + 1]);
        if (lo == hi)
            continue;
        if (names[i][0] == '#')          /* a digest: its numbers mean nothing */
            return bcl_set_error(BCL_ERR_ARG, "%s: ranks passed different %s; "
                                 "collective calls need the same arguments on every "
                                 "rank", what, names[i] + 1);
        return bcl_set_error(BCL_ERR_ARG, "%s: ranks passed different %s (from %lld "
                             "to %lld; here %lld); collective calls need the same "
                             "arguments on every rank", what, names[i],
                             (long long)lo, (long long)hi, (long long)vals[i]);
    }
    return BCL_OK;
}
