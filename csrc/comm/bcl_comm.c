/* bcl_comm.c -- get/put, atomics, flush, barrier, collectives on both transports. */
#include "comm/bcl_comm.h"

#include "comm/bcl_rankset.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm/bcl_agree.h"
#include "comm/bcl_depart.h"
#include "comm/bcl_quiet.h"
#include "runtime/bcl_interrupt.h"

/* MPI counts are ints: move larger blocks in pieces of this many bytes. */
#define MAX_CHUNK ((size_t)1 << 30)

static int is_shm(void) { return bcl_rt.transport == BCL_TRANSPORT_SHM; }

/* rma-node (docs/transports.md, "Node-aware rma", design A): the address of
 * a node peer's (or our own) segment byte, or NULL when p must go through
 * MPI.  Only data-word get/put use it; atomics never do, so no word ever
 * meets both CPU atomics and MPI atomics. */
static unsigned char *node_addr(bcl_gptr p)
{
    if (bcl_rt.transport != BCL_TRANSPORT_RMA_NODE || !bcl_rt.bases[p.rank])
        return NULL;
    return bcl_rt.bases[p.rank] + p.offset;
}

/* Orders this rank's loads/stores of node segments with the MPI operations
 * on bcl_rt.win (MPI-3.1 11.7, unified model): a writer syncs after its
 * stores and before the MPI atomic that publishes them; a reader syncs
 * after the MPI atomic that saw the publication completed, before its
 * loads.  In MPICH it is a memory barrier, not a round trip. */
static bcl_status node_sync(void)
{
    BCL_MPI_CHECK("MPI_Win_sync", MPI_Win_sync(bcl_rt.win));
    return BCL_OK;
}

/* Both make no call that runs MPI's progress engine (bcl_quiet.h). */
static bcl_status node_get(void *dst, const unsigned char *src, size_t n)
{
    bcl_quiet_op();
    bcl_status st = node_sync();
    if (st == BCL_OK)
        memcpy(dst, src, n);
    return st;
}

static bcl_status node_put(unsigned char *dst, const void *src, size_t n)
{
    bcl_quiet_op();
    memcpy(dst, src, n);
    return node_sync();
}

/* ---- waiting without starving the target ------------------------------
 * MPI's blocking calls busy-poll.  When ranks outnumber cores, a rank
 * spinning in MPI_Win_flush or MPI_Barrier holds the core the target needs
 * to make progress, and every op costs a scheduler time slice (~10 ms,
 * docs/progress.md).  In that case ("patient" mode) we wait in our own loop:
 * poll, then sched_yield(), then sleep 1 us between polls.  The constants
 * are the measured optimum of benchmarks/floor/oversub.c. */
#define WAIT_SPIN_POLLS 32u
#define WAIT_YIELD_POLLS 64u
#define RELAX_SPIN_POLLS 4u
#define RELAX_YIELD_POLLS 16u

static int patient(void) { return bcl_rt.oversubscribed; }

static void back_off(unsigned fails, unsigned spin, unsigned yield)
{
    if (fails <= spin)
        return;
    if (fails <= spin + yield) {
        sched_yield();
        return;
    }
    struct timespec ts = { 0, 1000 };
    nanosleep(&ts, NULL);
}

static bcl_status wait_all(int n, MPI_Request *rq)
{
    int next = 0;   /* requests before `next` are complete */
    for (unsigned fails = 1;; fails++) {
        while (next < n) {
            int done = 0;
            BCL_MPI_CHECK("MPI_Test", MPI_Test(&rq[next], &done, MPI_STATUS_IGNORE));
            if (!done)
                break;
            next++;
        }
        if (next == n)
            return BCL_OK;
        bcl_status st = bcl_interrupt_poll();
        if (st != BCL_OK)
            return st;      /* the requests die with the job (MPI_Abort) */
        if (patient())
            back_off(fails, WAIT_SPIN_POLLS, WAIT_YIELD_POLLS);
        else if (fails % 64u == 0)
            sched_yield();
    }
}

bcl_status bcl_wait(int n, MPI_Request *rq) { return wait_all(n, rq); }

void bcl_wait_pause(unsigned fails)
{
    if (patient())
        back_off(fails, WAIT_SPIN_POLLS, WAIT_YIELD_POLLS);
    else if (fails % 64u == 0)
        sched_yield();
}

/* Wait for one collective of the runtime communicator.  Like wait_all, and
 * it watches for departed peers (bcl_depart.h): a peer that finalized will
 * never join this collective, so after the grace period the wait ends with
 * an error instead of never.  The request is then left behind: the error
 * ends the job unless the program catches it. */
bcl_status bcl_wait_collective(MPI_Request *rq, const char *what)
{
    return bcl_wait_round(rq, what, 0);
}

bcl_status bcl_wait_round(MPI_Request *rq, const char *what, int64_t round)
{
    bcl_depart_watch watch = BCL_DEPART_WATCH_INIT;
    watch.round = round;
    for (unsigned fails = 1;; fails++) {
        int done = 0;
        BCL_MPI_CHECK("MPI_Test", MPI_Test(rq, &done, MPI_STATUS_IGNORE));
        if (done)
            return BCL_OK;
        bcl_status st = bcl_interrupt_poll();
        if (st == BCL_OK && fails % 256u == 0)
            st = bcl_depart_watch_poll(&watch, what);
        if (st != BCL_OK)
            return st;
        bcl_wait_pause(fails);
    }
}

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
    if (patient()) {
        if ((st = probes_reserve(k)) != BCL_OK)
            return st;
        int issued = 0;
        for (; st == BCL_OK && issued < k; issued++)
            st = patient_probe(who ? who[issued] : issued, &probes.rq[issued],
                               &probes.sink[issued]);
        bcl_status wst = wait_all(issued, probes.rq);   /* never leave one behind */
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
        st = wait_all(1, &rq);
    if (st != BCL_OK)
        return st;
    return flush_one(rank);
}

bcl_status bcl_check_range(bcl_gptr p, size_t nbytes)
{
    BCL_REQUIRE_INIT();
    if (p.rank < 0 || p.rank >= bcl_rt.nprocs)
        return bcl_set_error(BCL_ERR_BOUNDS, "rank %d is not in [0, %d)",
                             (int)p.rank, bcl_rt.nprocs);
    if (p.offset < BCL_SEGMENT_RESERVED)
        return bcl_set_error(BCL_ERR_BOUNDS,
                             "offset %llu is the null pointer or the runtime's "
                             "reserved header", (unsigned long long)p.offset);
    if (p.offset > bcl_rt.segment_size || nbytes > bcl_rt.segment_size - p.offset)
        return bcl_set_error(BCL_ERR_BOUNDS,
                             "offset %llu + %zu bytes is past the end of rank %d's "
                             "%zu-byte segment", (unsigned long long)p.offset, nbytes,
                             (int)p.rank, bcl_rt.segment_size);
    return BCL_OK;
}

static bcl_status check_atomic(bcl_gptr p, int width)
{
    if (width != 4 && width != 8)
        return bcl_set_error(BCL_ERR_TYPE, "atomics work on 4- or 8-byte integers, "
                             "not %d-byte ones", width);
    bcl_status st = bcl_check_range(p, (size_t)width);
    if (st != BCL_OK)
        return st;
    if (p.offset % (uint64_t)width)
        return bcl_set_error(BCL_ERR_ARG, "offset %llu is not %d-byte aligned, as "
                             "atomics need", (unsigned long long)p.offset, width);
    return BCL_OK;
}

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

/* ---- data movement ---------------------------------------------------- */

/* A get (put = 0) or put of n bytes between local and remote, in pieces
 * that fit MPI's int counts. */
static bcl_status rma_move(int put, unsigned char *local, bcl_gptr remote, size_t n)
{
    bcl_comm_issued(remote.rank);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < MAX_CHUNK ? n - done : MAX_CHUNK;
        MPI_Aint at = (MPI_Aint)(remote.offset + done);
        int rc = put ? MPI_Put(local + done, (int)k, MPI_BYTE, remote.rank, at, (int)k,
                               MPI_BYTE, bcl_rt.win)
                     : MPI_Get(local + done, (int)k, MPI_BYTE, remote.rank, at, (int)k,
                               MPI_BYTE, bcl_rt.win);
        BCL_MPI_CHECK(put ? "MPI_Put" : "MPI_Get", rc);
        done += k;
    }
    return BCL_OK;
}

static bcl_status rma_get(void *dst, bcl_gptr src, size_t n)
{
    return rma_move(0, dst, src, n);
}

static bcl_status rma_put(bcl_gptr dst, const void *src, size_t n)
{
    return rma_move(1, (unsigned char *)src, dst, n);    /* MPI_Put only reads it */
}

bcl_status bcl_get_nb(void *dst, bcl_gptr src, size_t nbytes)
{
    bcl_status st = bcl_check_range(src, nbytes);
    if (st != BCL_OK)
        return st;
    if (is_shm()) {
        memcpy(dst, bcl_local_addr(src), nbytes);
        return BCL_OK;
    }
    unsigned char *near = node_addr(src);
    if (near)                 /* complete on return: never dirty */
        return node_get(dst, near, nbytes);
    /* Our own segment too goes through MPI on rma: a load racing with a
     * peer's accumulate is undefined, and MPI to self is a local copy.
     * (rma-node loads data words only, which the containers' protocols
     * keep from racing with anything.) */
    return rma_get(dst, src, nbytes);
}

bcl_status bcl_put_nb(bcl_gptr dst, const void *src, size_t nbytes)
{
    bcl_status st = bcl_check_range(dst, nbytes);
    if (st != BCL_OK)
        return st;
    if (is_shm()) {
        memcpy(bcl_local_addr(dst), src, nbytes);
        return BCL_OK;
    }
    unsigned char *near = node_addr(dst);
    if (near)                 /* complete on return: never dirty */
        return node_put(near, src, nbytes);
    return rma_put(dst, src, nbytes);
}

bcl_status bcl_get(void *dst, bcl_gptr src, size_t nbytes)
{
    int was_dirty = !is_shm() && bcl_rankset_has(&dirty, src.rank);
    bcl_status st = bcl_get_nb(dst, src, nbytes);
    if (st != BCL_OK || is_shm() || (bcl_rt.initialized && node_addr(src)))
        return st;
    if (patient()) {
        if ((st = patient_flush_rank(src.rank)) == BCL_OK)
            flushed(src.rank);
        return st;
    }
    BCL_MPI_CHECK("MPI_Win_flush_local", MPI_Win_flush_local(src.rank, bcl_rt.win));
    if (!was_dirty)          /* a completed get leaves nothing to flush */
        bcl_rankset_remove(&dirty, src.rank);
    return BCL_OK;
}

/* Small detached puts are copied into a staging arena and issued without
 * any wait, so a loop of them pipelines like raw MPI_Put + one flush.  The
 * arena is recycled by the next full flush (bcl_flush / bcl_barrier), which
 * completes every put reading from it; when it fills up we flush early. */
#define STAGE_MAX_PUT 256u
#define STAGE_BYTES (1u << 20)

static struct { unsigned char *buf; size_t used; } stage;

static void stage_reset(void) { stage.used = 0; }

static void *stage_copy(const void *src, size_t n)
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

bcl_status bcl_put_detached(bcl_gptr dst, const void *src, size_t nbytes)
{
    if (bcl_rt.initialized && dst.rank >= 0 && dst.rank < bcl_rt.nprocs && node_addr(dst))
        return bcl_put_nb(dst, src, nbytes);      /* a memcpy: complete already */
    if (is_shm() || nbytes > STAGE_MAX_PUT || patient()) {
        bcl_status st = bcl_put_nb(dst, src, nbytes);
        if (st != BCL_OK || is_shm())
            return st;
        if (patient()) {
            if ((st = patient_flush_rank(dst.rank)) == BCL_OK)
                flushed(dst.rank);
            return st;
        }
        BCL_MPI_CHECK("MPI_Win_flush_local", MPI_Win_flush_local(dst.rank, bcl_rt.win));
        return BCL_OK;
    }
    bcl_status st = bcl_check_range(dst, nbytes);
    if (st != BCL_OK)
        return st;
    const void *copy = stage_copy(src, nbytes);
    if (!copy)
        return bcl_set_error(BCL_ERR_NOMEM, "rput: no memory for the staging arena "
                             "(or its flush failed: %s)", bcl_last_error());
    return rma_put(dst, copy, nbytes);
}

bcl_status bcl_put(bcl_gptr dst, const void *src, size_t nbytes)
{
    bcl_status st = bcl_put_nb(dst, src, nbytes);
    if (st != BCL_OK)
        return st;
    return bcl_flush_rank(dst.rank);
}

/* ---- atomics ------------------------------------------------------------ */

static MPI_Datatype mpi_uint(int width) { return width == 4 ? MPI_UINT32_T : MPI_UINT64_T; }

MPI_Op bcl_mpi_op(bcl_atomic_op op)
{
    switch (op) {
    case BCL_OP_ADD: return MPI_SUM;
    case BCL_OP_OR: return MPI_BOR;
    case BCL_OP_AND: return MPI_BAND;
    case BCL_OP_XOR: return MPI_BXOR;
    case BCL_OP_REPLACE: return MPI_REPLACE;
    default: return MPI_NO_OP;
    }
}

#define SHM_FETCH_OP(T, addr, op, v, out)                                       \
    do {                                                                         \
        T *a_ = (T *)(addr), v_ = (T)(v), r_;                                    \
        switch (op) {                                                            \
        case BCL_OP_ADD: r_ = __atomic_fetch_add(a_, v_, __ATOMIC_SEQ_CST); break; \
        case BCL_OP_OR: r_ = __atomic_fetch_or(a_, v_, __ATOMIC_SEQ_CST); break;   \
        case BCL_OP_AND: r_ = __atomic_fetch_and(a_, v_, __ATOMIC_SEQ_CST); break; \
        case BCL_OP_XOR: r_ = __atomic_fetch_xor(a_, v_, __ATOMIC_SEQ_CST); break; \
        case BCL_OP_REPLACE: r_ = __atomic_exchange_n(a_, v_, __ATOMIC_SEQ_CST); break; \
        default: r_ = __atomic_load_n(a_, __ATOMIC_SEQ_CST); break;             \
        }                                                                        \
        *(T *)(out) = r_;                                                        \
    } while (0)

static void shm_fetch_op(void *addr, int width, bcl_atomic_op op, const void *operand,
                         void *result)
{
    if (width == 4)
        SHM_FETCH_OP(uint32_t, addr, op, *(const uint32_t *)operand, result);
    else
        SHM_FETCH_OP(uint64_t, addr, op, *(const uint64_t *)operand, result);
}

static void shm_cas(void *addr, int width, const void *expected, const void *desired,
                    void *result)
{
    if (width == 4) {
        uint32_t e = *(const uint32_t *)expected;
        __atomic_compare_exchange_n((uint32_t *)addr, &e, *(const uint32_t *)desired,
                                    0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *(uint32_t *)result = e;
    } else {
        uint64_t e = *(const uint64_t *)expected;
        __atomic_compare_exchange_n((uint64_t *)addr, &e, *(const uint64_t *)desired,
                                    0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *(uint64_t *)result = e;
    }
}

/* Both non-blocking atomics: done now by the CPU in shared memory, else
 * issued to MPI (the next flush completes them).  desired non-NULL: the
 * compare-and-swap of `expected` by `desired`; else fetch-op `op` of
 * `operand`. */
static inline bcl_status atomic_nb(bcl_gptr p, int width, bcl_atomic_op op,
                                   const void *operand, const void *expected,
                                   const void *desired, void *result)
{
    bcl_status st = check_atomic(p, width);
    if (st != BCL_OK)
        return st;
    if (is_shm()) {
        if (desired)
            shm_cas(bcl_local_addr(p), width, expected, desired, result);
        else
            shm_fetch_op(bcl_local_addr(p), width, op, operand, result);
        return BCL_OK;
    }
    bcl_comm_issued(p.rank);
    if (desired)
        BCL_MPI_CHECK("MPI_Compare_and_swap",
                      MPI_Compare_and_swap(desired, expected, result, mpi_uint(width),
                                           p.rank, (MPI_Aint)p.offset, bcl_rt.win));
    else
        BCL_MPI_CHECK("MPI_Fetch_and_op",
                      MPI_Fetch_and_op(operand, result, mpi_uint(width), p.rank,
                                       (MPI_Aint)p.offset, bcl_mpi_op(op), bcl_rt.win));
    return BCL_OK;
}

bcl_status bcl_fetch_op_nb(bcl_gptr p, int width, bcl_atomic_op op,
                           const void *operand, void *result)
{
    return atomic_nb(p, width, op, operand, NULL, NULL, result);
}

bcl_status bcl_cas_nb(bcl_gptr p, int width, const void *expected, const void *desired,
                      void *result)
{
    return atomic_nb(p, width, BCL_OP_NOOP, NULL, expected, desired, result);
}

/* Width-sized views of 64-bit arguments, for the blocking wrappers. */
typedef union { uint64_t u64; uint32_t u32; } word;

static word to_word(uint64_t v, int width)
{
    word w;
    if (width == 4)
        w.u32 = (uint32_t)v;
    else
        w.u64 = v;
    return w;
}

static uint64_t from_word(word w, int width) { return width == 4 ? w.u32 : w.u64; }

/* Blocking fetch-op in patient mode: a request we can wait on while yielding. */
static bcl_status patient_fetch_op(bcl_gptr p, int width, bcl_atomic_op op,
                                   const void *in, void *out)
{
    MPI_Request rq;
    bcl_quiet_target(p.rank);
    BCL_MPI_CHECK("MPI_Rget_accumulate",
                  MPI_Rget_accumulate(in, 1, mpi_uint(width), out, 1, mpi_uint(width),
                                      p.rank, (MPI_Aint)p.offset, 1, mpi_uint(width),
                                      bcl_mpi_op(op), bcl_rt.win, &rq));
    return wait_all(1, &rq);
}

bcl_status bcl_fetch_op(bcl_gptr p, int width, bcl_atomic_op op, uint64_t operand,
                        uint64_t *old)
{
    word in = to_word(operand, width), out = { 0 };
    bcl_status st;
    if (!is_shm() && patient()) {
        if ((st = check_atomic(p, width)) == BCL_OK &&
            (st = patient_fetch_op(p, width, op, &in, &out)) == BCL_OK && old)
            *old = from_word(out, width);
        return st;
    }
    st = bcl_fetch_op_nb(p, width, op, &in, &out);
    if (st == BCL_OK && !is_shm())
        st = bcl_flush_rank(p.rank);
    if (st == BCL_OK && old)
        *old = from_word(out, width);
    return st;
}

bcl_status bcl_cas(bcl_gptr p, int width, uint64_t expected, uint64_t desired,
                   uint64_t *old)
{
    word e = to_word(expected, width), d = to_word(desired, width), out = { 0 };
    bcl_status st = bcl_cas_nb(p, width, &e, &d, &out);
    if (st == BCL_OK && !is_shm())
        st = bcl_flush_rank(p.rank);
    if (st == BCL_OK && old)
        *old = from_word(out, width);
    return st;
}

bcl_status bcl_atomic_store(bcl_gptr p, int width, uint64_t value)
{
    bcl_status st = check_atomic(p, width);
    if (st != BCL_OK)
        return st;
    word v = to_word(value, width);
    if (is_shm()) {
        if (width == 4)
            __atomic_store_n((uint32_t *)bcl_local_addr(p), v.u32, __ATOMIC_SEQ_CST);
        else
            __atomic_store_n((uint64_t *)bcl_local_addr(p), v.u64, __ATOMIC_SEQ_CST);
        return BCL_OK;
    }
    bcl_comm_issued(p.rank);
    BCL_MPI_CHECK("MPI_Accumulate",
                  MPI_Accumulate(&v, 1, mpi_uint(width), p.rank, (MPI_Aint)p.offset, 1,
                                 mpi_uint(width), MPI_REPLACE, bcl_rt.win));
    return bcl_flush_rank(p.rank);
}

bcl_status bcl_atomic_post(bcl_gptr p, int width, bcl_atomic_op op, uint64_t operand)
{
    bcl_status st = check_atomic(p, width);
    if (st != BCL_OK)
        return st;
    word v = to_word(operand, width), out;
    if (is_shm()) {
        shm_fetch_op(bcl_local_addr(p), width, op, &v, &out);
        return BCL_OK;
    }
    sets_sync();
    if (dirty_all)   /* no bookkeeping: complete it now */
        return bcl_fetch_op(p, width, op, operand, NULL);
    if (post.next == POST_SLOTS && (st = flush_posted()) != BCL_OK)
        return st;
    word *slot = (word *)&post.operand[post.next++];
    *slot = v;
    bcl_quiet_target(p.rank);
    BCL_MPI_CHECK("MPI_Accumulate",
                  MPI_Accumulate(slot, 1, mpi_uint(width), p.rank, (MPI_Aint)p.offset, 1,
                                 mpi_uint(width), bcl_mpi_op(op), bcl_rt.win));
    bcl_rankset_add(&dirty, p.rank);
    bcl_rankset_add(&posted, p.rank);
    return BCL_OK;
}

/* ---- completion and synchronisation ------------------------------------ */

bcl_status bcl_flush(void)
{
    BCL_REQUIRE_INIT();
    if (is_shm()) {
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
    if (is_shm()) {
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
    bcl_status st = patient() ? patient_flush_rank(rank) : flush_one(rank);
    if (st == BCL_OK)
        flushed(rank);
    return st;
}

bcl_status bcl_barrier_agree(const char *what, const char *const *names,
                             const int64_t *vals, int n)
{
    bcl_status st = bcl_flush();
    if (st != BCL_OK)
        return st;
    /* MPI_Win_sync on both sides of the barrier orders this rank's local
     * loads/stores of its own segment with the RMA others completed before
     * the barrier (MPI-3 11.7: needed even in the unified model). */
    BCL_MPI_CHECK("MPI_Win_sync", MPI_Win_sync(bcl_rt.win));
    /* The synchronisation is an agreement (bcl_agree.h), not MPI_Ibarrier:
     * every collective of pybcl then begins with the same MPI operation, so
     * a rank in barrier() while a peer is in another collective is matched
     * with it and both raise, at any number of ranks (an Ibarrier against
     * an Iallreduce exchanged garbage at 2 ranks and hung at 4).  An
     * allreduce completes on no rank before every rank has joined it, which
     * is all a barrier promises; so does the shm transport's exchange
     * through memory (bcl_agree_node.h: no rank reads the records before all
     * are published, each published with release, read with acquire).  Both
     * wait in our own loop: patient when ranks outnumber cores,
     * interruptible, departure-aware. */
    if ((st = bcl_agree(what, BCL_OK, names, vals, n)) != BCL_OK)
        return st;
    BCL_MPI_CHECK("MPI_Win_sync", MPI_Win_sync(bcl_rt.win));
    return BCL_OK;
}

bcl_status bcl_barrier_named(const char *what)
{
    return bcl_barrier_agree(what, NULL, NULL, 0);
}

bcl_status bcl_barrier(void) { return bcl_barrier_named("barrier"); }

void bcl_flush_stats_get(bcl_flush_stats *out)
{
    *out = stats;
    out->dirty = -1;
    if (bcl_rt.initialized && !is_shm()) {
        sets_sync();
        out->dirty = dirty_all ? -1 : dirty.n;
    }
    out->flush_all_trusted = flush_all_trusted();
}

bcl_status bcl_progress(void)
{
    BCL_REQUIRE_INIT();
    if (is_shm())
        return BCL_OK;
    int flag;
    /* Any MPI call that polls the progress engine will do; Iprobe on our
     * private communicator is cheap and matches nothing. */
    BCL_MPI_CHECK("MPI_Iprobe", MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, bcl_rt.comm,
                                           &flag, MPI_STATUS_IGNORE));
    return BCL_OK;
}

bcl_status bcl_relax(unsigned *spins)
{
    if (!is_shm()) {
        if (posted.n)
            flush_posted();
        bcl_progress();
    }
    ++*spins;
    if (patient())
        back_off(*spins, RELAX_SPIN_POLLS, RELAX_YIELD_POLLS);
    else if (*spins % 64u == 0)
        sched_yield();
    return bcl_interrupt_poll();
}

/* ---- collectives ------------------------------------------------------- */

bcl_status bcl_bcast(void *buf, size_t nbytes, int root)
{
    BCL_REQUIRE_INIT();
    if (root < 0 || root >= bcl_rt.nprocs)
        return bcl_set_error(BCL_ERR_ARG, "root %d is not a rank in [0, %d)", root,
                             bcl_rt.nprocs);
    unsigned char *b = buf;
    for (size_t done = 0; done < nbytes;) {
        size_t k = nbytes - done < MAX_CHUNK ? nbytes - done : MAX_CHUNK;
        /* As bcl_barrier: our own wait loop, never a blocking MPI_Bcast. */
        MPI_Request rq;
        BCL_MPI_CHECK("MPI_Ibcast", MPI_Ibcast(b + done, (int)k, MPI_BYTE, root,
                                               bcl_rt.comm, &rq));
        bcl_status st = bcl_wait_collective(&rq, "broadcast");
        if (st != BCL_OK)
            return st;
        done += k;
    }
    return BCL_OK;
}

MPI_Datatype bcl_mpi_elem(bcl_elem e)
{
    static const MPI_Datatype map[] = {
        [BCL_I8] = MPI_INT8_T, [BCL_I16] = MPI_INT16_T, [BCL_I32] = MPI_INT32_T,
        [BCL_I64] = MPI_INT64_T, [BCL_U8] = MPI_UINT8_T, [BCL_U16] = MPI_UINT16_T,
        [BCL_U32] = MPI_UINT32_T, [BCL_U64] = MPI_UINT64_T, [BCL_F32] = MPI_FLOAT,
        [BCL_F64] = MPI_DOUBLE, [BCL_BOOL] = MPI_C_BOOL,
    };
    return map[e];
}

static MPI_Op mpi_redop(bcl_redop op)
{
    static const MPI_Op map[] = {
        [BCL_SUM] = MPI_SUM, [BCL_PROD] = MPI_PROD, [BCL_MIN] = MPI_MIN,
        [BCL_MAX] = MPI_MAX, [BCL_LAND] = MPI_LAND, [BCL_LOR] = MPI_LOR,
        [BCL_BAND] = MPI_BAND, [BCL_BOR] = MPI_BOR, [BCL_BXOR] = MPI_BXOR,
    };
    return map[op];
}

bcl_status bcl_allreduce(void *buf, size_t count, bcl_elem elem, bcl_redop op)
{
    return bcl_allreduce_named("allreduce", buf, count, elem, op);
}

bcl_status bcl_allreduce_named(const char *what, void *buf, size_t count, bcl_elem elem,
                               bcl_redop op)
{
    BCL_REQUIRE_INIT();
    if (count > (size_t)0x7fffffff)
        return bcl_set_error(BCL_ERR_ARG, "allreduce of %zu elements is too large", count);
    int is_float = elem == BCL_F32 || elem == BCL_F64;
    int bitwise = op == BCL_BAND || op == BCL_BOR || op == BCL_BXOR;
    if (is_float && bitwise)
        return bcl_set_error(BCL_ERR_TYPE, "bitwise reductions need integer data");
    /* Our own wait loop, as bcl_barrier: it watches for departed peers, and
     * under the patient policy it yields -- ranks busy-polling in a blocking
     * MPI_Allreduce starve a peer still working towards it (16 ranks on 2
     * cores: one rank's 6000 remote Bloom inserts ran past 150 s while 15
     * waited in all_ok). */
    MPI_Request rq;
    BCL_MPI_CHECK("MPI_Iallreduce", MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count,
                                                   bcl_mpi_elem(elem), mpi_redop(op),
                                                   bcl_rt.comm, &rq));
    return bcl_wait_collective(&rq, what);
}
