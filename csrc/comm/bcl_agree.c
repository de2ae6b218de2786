/* bcl_agree.c -- argument agreement of collective calls (bcl_agree.h). */
#include "comm/bcl_agree.h"

#include <stdio.h>
#include <string.h>

#include "comm/bcl_agree_node.h"
#include "comm/bcl_comm.h"
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

_Static_assert(BCL_LIFE_WINDOW <= 64, "the node record carries the window as bits");

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

/* ---- the exchange through node shared memory (bcl_agree_node.h) --------
 * A record holds what one rank's words say, compactly; each rank expands
 * every record back into words and takes the minimum, so the outcome is the
 * allreduce's, word for word. */
static void pack(const int64_t *buf, int failed, const int64_t *vals, int n,
                 bcl_agree_rec *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->failed = failed;
    rec->tag = buf[TAG];
    rec->nargs = failed ? 0 : n;
    for (int i = 0; i < rec->nargs; i++)
        rec->vals[i] = vals[i];
    const int64_t *w = buf + LIFE;
    rec->life_n = w[0];
    rec->life_first = w[2];
    for (int k = 0; k < BCL_LIFE_WINDOW; k++)
        if (w[BCL_LIFE_HEADER + k])
            rec->life_bits |= (uint64_t)1 << k;
}

static void expand(const bcl_agree_rec *rec, int rank, int64_t *buf)
{
    fill_words(buf, rank, rec->failed != 0, rec->tag, rec->vals, (int)rec->nargs);
    int64_t *w = buf + LIFE;
    w[0] = rec->life_n;
    w[1] = neg(rec->life_n);
    w[2] = rec->life_first;
    w[3] = neg(rec->life_first);
    for (int k = 0; k < BCL_LIFE_WINDOW; k++)
        w[BCL_LIFE_HEADER + k] = (int64_t)(rec->life_bits >> k & 1u);
}

static void min_into(const bcl_agree_rec *rec, int rank, void *ctx)
{
    int64_t *acc = ctx, words[LEN];
    expand(rec, rank, words);
    for (int i = 0; i < LEN; i++)
        if (words[i] < acc[i])
            acc[i] = words[i];
}

/* The MIN-reduction of every rank's words into buf, through node memory. */
static bcl_status exchange_node(const char *what, int64_t *buf, int failed,
                                const int64_t *vals, int n)
{
    bcl_agree_rec mine;
    pack(buf, failed, vals, n, &mine);
    for (int i = 0; i < LEN; i++)
        buf[i] = INT64_MAX;
    return bcl_agree_node_round(&mine, what, min_into, buf);
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
    int64_t buf[LEN];
    int failed = local != BCL_OK;
    fill_words(buf, bcl_rt.rank, failed, bcl_agree_digest(what), vals, n);
    bcl_life_fill(buf + LIFE);
    char saved[512];
    if (failed)
        snprintf(saved, sizeof saved, "%s", bcl_last_error());
    /* On one node through shared memory; elsewhere one MPI allreduce.  The
     * choice is the transport's, the same on every rank, so every rank's
     * collective meets its peers' in the same exchange. */
    bcl_status st = bcl_agree_node_active()
                        ? exchange_node(what, buf, failed, vals, n)
                        : bcl_allreduce_named(what, buf, LEN, BCL_I64, BCL_MIN);
    if (st != BCL_OK)
        return st;
    int same_call = buf[TAG] == -buf[NTAG];
    if (same_call)       /* garbage from a mismatched peer must not free anything */
        bcl_life_apply(buf + LIFE);
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
