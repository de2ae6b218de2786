/* bcl_flush.c -- completion of this rank's RMA: the dirty-target set, posted
 * atomics, the staging arena of detached puts (bcl_flush.h). */
#include "comm/bcl_flush.h"

#include <stdlib.h>
#include <string.h>

#include "comm/bcl_quiet.h"
#include "comm/bcl_rankset.h"
#include "comm/bcl_wait.h"
#include "runtime/bcl_interrupt.h"

/* Wait, yielding, until the target has executed everything we sent it: an
 * atomic read of its (never written) word 0 is ordered after our earlier
 * accumulates, and by the time it returns the target has been progressing,
 * so the MPI_Win_flush that makes puts/gets complete no longer stalls. */
static bcl_status patient_probe(int rank, MPI_Request *rq, uint64_t *sink)
{
    BCL_MPI_CHECK("MPI_Rget_accumulate",
                  MPI_Rget_accumulate(NULL, 0, MPI_UINT64_T, sink, 1, MPI_UINT64_T, rank,
                                      0, 1, MPI_UINT64_T, MPI_NO_OP, bcl_rt.win, rq));
    return BCL_OK;
}

/* ---- the dirty-target set ----------------------------------------------
 * Every rma operation this rank issues adds its target to `dirty`; a flush
 * of a target removes it.  So bcl_flush() costs what it touches: nothing
 * when idle, k target flushes (patient: k probes, then k flushes) after
 * touching k targets, never a loop over all P ranks.  `posted` is the subset
 * of dirty targets with posted atomics (their operands sit in post.operand).
 * The sets belong to one window: a new runtime (another window) starts them
 * afresh.  If their memory cannot be had, `dirty_all` makes a flush cover
 * every rank (the old, O(P) behaviour) rather than lose an operation. */
static bcl_rankset dirty, posted;
static MPI_Win sets_win = MPI_WIN_NULL;
static int dirty_all;
static bcl_flush_stats stats;

static void sets_sync(void)
{
    if (sets_win == bcl_rt.win && dirty.cap == bcl_rt.nprocs &&
        posted.cap == bcl_rt.nprocs)
        return;
    /* Here either the window is new (what the sets held belonged to the old
     * one) or an earlier reservation failed (dirty_all is set: the sets held
     * nothing).  Only a completed flush of every rank clears dirty_all. */
    int fresh = sets_win != bcl_rt.win;
    bcl_rankset_clear(&dirty);
    bcl_rankset_clear(&posted);
    int failed = bcl_rankset_reserve(&dirty, bcl_rt.nprocs) != BCL_OK;
    if (bcl_rankset_reserve(&posted, bcl_rt.nprocs) != BCL_OK)
        failed = 1;          /* posted ops then complete at once (atomic_post) */
    dirty_all = (fresh ? 0 : dirty_all) | failed;
    sets_win = bcl_rt.win;
}

void bcl_comm_issued(int rank)
{
    bcl_quiet_target(rank);
    sets_sync();
    if (dirty_all)
        return;
    bcl_rankset_add(&dirty, rank);
}

/* MPI_Win_flush_all of MPICH 4.0.2 (ch4:ucx, shared-memory UCX transports)
 * was seen to return before puts were complete at their target: pipelined
 * hash map inserts then saw READY buckets whose key had not landed yet
 * (duplicates in 10 of 30 runs); MPI_Win_flush per rank never showed it.
 * tests/repro/flush_all_stress.c is the stress that catches it (puts to many
 * targets, flush_all, barrier, each target checks its memory).  With the
 * dirty set a flush of k targets is k MPI_Win_flush calls anyway; flush_all
 * is only worth it when most ranks are dirty, and only where it is trusted:
 * not on MPICH 4.0.x.  PYBCL_FLUSH_ALL=trust|avoid overrides the guess. */
static int flush_all_trusted(void)
{
    static int known = -1;
    if (known >= 0)
        return known;
    const char *env = getenv("PYBCL_FLUSH_ALL");
    if (env && !strcmp(env, "trust"))
        return known = 1;
    if (env && !strcmp(env, "avoid"))
        return known = 0;
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    known = 1;
    if (MPI_Get_library_version(ver, &len) != MPI_SUCCESS)
        known = 0;            /* unknown library: the safe per-rank loop */
    else if (strstr(ver, "MPICH") && strstr(ver, "Version:") &&
             strstr(ver, "4.0."))
        known = 0;
    return known;
}

static bcl_status flush_one(int rank)
{
    BCL_MPI_CHECK("MPI_Win_flush", MPI_Win_flush(rank, bcl_rt.win));
    stats.targets_flushed++;
    return BCL_OK;
}

/* Probe buffers of the patient flush, grown to the largest dirty set seen. */
static struct { MPI_Request *rq; uint64_t *sink; int cap; } probes;

static bcl_status probes_reserve(int n)
{
    if (n <= probes.cap)
        return BCL_OK;
    MPI_Request *rq = realloc(probes.rq, (size_t)n * sizeof *rq);
    if (rq)
        probes.rq = rq;
    uint64_t *sink = rq ? realloc(probes.sink, (size_t)n * sizeof *sink) : NULL;
    if (!sink)
        return bcl_set_error(BCL_ERR_NOMEM, "flush: out of memory for %d probes", n);
    probes.sink = sink;
    probes.cap = n;
    return BCL_OK;
}

/* Complete everything issued so far: flush the dirty targets (all ranks if
 * the set was lost), after probing them in patient mode. */
static bcl_status flush_targets(void)
{
    sets_sync();
    stats.flushes++;
    int all = dirty_all, k = all ? bcl_rt.nprocs : dirty.n;
    if (k == 0)
        return BCL_OK;
    const int *who = all ? NULL : dirty.list;
    bcl_status st = BCL_OK;
    if (bcl_patient()) {
        if ((st = probes_reserve(k)) != BCL_OK)
            return st;
        int issued = 0;
        for (; st == BCL_OK && issued < k; issued++)
            st = patient_probe(who ? who[issued] : issued, &probes.rq[issued],
                               &probes.sink[issued]);
        bcl_status wst = bcl_wait(issued, probes.rq);   /* never leave one behind */
        if (st != BCL_OK || wst != BCL_OK)
            return st != BCL_OK ? st : wst;
    }
    if (bcl_rt.nprocs > 1 && 2 * k >= bcl_rt.nprocs && flush_all_trusted()) {
        BCL_MPI_CHECK("MPI_Win_flush_all", MPI_Win_flush_all(bcl_rt.win));
        stats.flush_all_calls++;
        stats.targets_flushed += (uint64_t)k;
    } else {
        for (int i = 0; st == BCL_OK && i < k; i++)
            st = flush_one(who ? who[i] : i);
    }
    if (st != BCL_OK)
        return st;
    bcl_rankset_clear(&dirty);
    dirty_all = 0;
    sets_sync();
    return BCL_OK;
}

static bcl_status patient_flush_rank(int rank)
{
    MPI_Request rq;
    uint64_t sink;
    bcl_status st = patient_probe(rank, &rq, &sink);
    if (st == BCL_OK)
        st = bcl_wait(1, &rq);
    if (st != BCL_OK)
        return st;
    return flush_one(rank);
}

int bcl_flush_pending(int rank) { return bcl_rankset_has(&dirty, rank); }

void bcl_flush_forget(int rank) { bcl_rankset_remove(&dirty, rank); }

/* ---- posted atomics ---------------------------------------------------
 * bcl_atomic_post issues an atomic whose result nobody needs (publishing a
 * bucket, dropping a reader count) without waiting for it: it completes
 * with the next flush of its target, so a scalar operation ends with its
 * last round trip still in flight and the next operation's flush absorbs
 * it.  The origin buffer of an MPI_Accumulate must stay untouched until
 * completion: operands live in this ring, reset once every posted op is
 * complete.  Spin loops (bcl_relax) complete our own posted ops first, so a
 * rank never waits for a peer that waits for one of our publications. */
#define POST_SLOTS 4096u
static struct {
    uint64_t operand[POST_SLOTS];
    unsigned next;
} post;

static void stage_reset(void);

/* Target `rank` has just been flushed: forget it; recycle the staging arena
 * and the operand ring once nothing at all is outstanding. */
static void flushed(int rank)
{
    if (dirty_all)
        return;
    bcl_rankset_remove(&dirty, rank);
    bcl_rankset_remove(&posted, rank);
    if (posted.n == 0)
        post.next = 0;
    if (dirty.n == 0)
        stage_reset();
}

/* Complete the targets with posted atomics (only those: O(posted)). */
static bcl_status flush_posted(void)
{
    while (posted.n) {
        bcl_status st = bcl_flush_rank(posted.list[posted.n - 1]);   /* removes it */
        if (st != BCL_OK)
            return st;
    }
    post.next = 0;
    return BCL_OK;
}

bcl_status bcl_flush_patiently(int rank)
{
    bcl_status st = patient_flush_rank(rank);
    if (st == BCL_OK)
        flushed(rank);
    return st;
}

bcl_status bcl_flush_post_slot(int rank, uint64_t **slot)
{
    *slot = NULL;
    sets_sync();
    if (dirty_all)   /* no bookkeeping: the caller completes its op now */
        return BCL_OK;
    bcl_status st;
    if (post.next == POST_SLOTS && (st = flush_posted()) != BCL_OK)
        return st;
    *slot = &post.operand[post.next++];
    bcl_rankset_add(&dirty, rank);
    bcl_rankset_add(&posted, rank);
    return BCL_OK;
}

/* Small detached puts are copied into a staging arena and issued without
 * any wait, so a loop of them pipelines like raw MPI_Put + one flush.  The
 * arena is recycled by the next full flush (bcl_flush / bcl_barrier), which
 * completes every put reading from it; when it fills up we flush early. */
#define STAGE_BYTES (1u << 20)

static struct { unsigned char *buf; size_t used; } stage;

static void stage_reset(void) { stage.used = 0; }

void *bcl_flush_stage(const void *src, size_t n)
{
    if (!stage.buf && !(stage.buf = malloc(STAGE_BYTES)))
        return NULL;
    size_t need = (n + 15) & ~(size_t)15;
    if (stage.used + need > STAGE_BYTES) {
        if (bcl_flush() != BCL_OK)     /* completes and recycles the arena */
            return NULL;
    }
    void *p = stage.buf + stage.used;
    stage.used += need;
    memcpy(p, src, n);
    return p;
}

/* ---- completion and synchronisation ------------------------------------ */

bcl_status bcl_flush(void)
{
    BCL_REQUIRE_INIT();
    if (bcl_comm_direct()) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return BCL_OK;
    }
    bcl_status st = flush_targets();
    if (st == BCL_OK) {      /* everything issued so far is complete */
        stage_reset();
        bcl_rankset_clear(&posted);
        post.next = 0;
    }
    return st;
}

bcl_status bcl_flush_rank(int rank)
{
    BCL_REQUIRE_INIT();
    if (bcl_comm_direct()) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return BCL_OK;
    }
    if (rank < 0 || rank >= bcl_rt.nprocs)
        return bcl_set_error(BCL_ERR_BOUNDS, "rank %d is not in [0, %d)", rank,
                             bcl_rt.nprocs);
    sets_sync();
    stats.flushes++;
    if (!dirty_all && !bcl_rankset_has(&dirty, rank))
        return BCL_OK;       /* nothing issued to it since its last flush */
    bcl_status st = bcl_patient() ? patient_flush_rank(rank) : flush_one(rank);
    if (st == BCL_OK)
        flushed(rank);
    return st;
}

void bcl_flush_stats_get(bcl_flush_stats *out)
{
    *out = stats;
    out->dirty = -1;
    if (bcl_rt.initialized && !bcl_comm_direct()) {
        sets_sync();
        out->dirty = dirty_all ? -1 : dirty.n;
    }
    out->flush_all_trusted = flush_all_trusted();
}

bcl_status bcl_relax(unsigned *spins)
{
    if (!bcl_comm_direct()) {
        if (posted.n)
            flush_posted();
        bcl_progress();
    }
    bcl_relax_pause(++*spins);
    return bcl_interrupt_poll();
}
