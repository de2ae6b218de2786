/* bcl_queue.c -- FastQueue and CircularQueue (see bcl_queue.h). */
#include "containers/bcl_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcl_agree.h"
#include "containers/bcl_object.h"
#include "runtime/bcl_alloc.h"

/* Control block: one counter per cache line, so pushers hammering tail and
 * poppers hammering head do not false-share (matters on shm). */
#define CTL_LINE 64u
#define CTL_BYTES (4u * CTL_LINE)
enum { CTL_HEAD = 0, CTL_TAIL = 1, CTL_HEAD_READY = 2, CTL_TAIL_READY = 3 };

static bcl_gptr ctl(bcl_gptr block, int which)
{
    return bcl_gptr_make(block.rank, block.offset + (uint64_t)which * CTL_LINE);
}

/* Point q at a block on `host`; FastQueue's ready counters alias the claim
 * counters (its phases make claimed == readable). */
static void set_block(bcl_queue *q, int host, uint64_t offset)
{
    q->host = host;
    q->block = bcl_gptr_make(host, offset);
    q->head = ctl(q->block, CTL_HEAD);
    q->tail = ctl(q->block, CTL_TAIL);
    int circ = q->kind == BCL_QUEUE_CIRCULAR;
    q->head_ready = circ ? ctl(q->block, CTL_HEAD_READY) : q->head;
    q->tail_ready = circ ? ctl(q->block, CTL_TAIL_READY) : q->tail;
    q->data = bcl_gptr_make(host, offset + CTL_BYTES);
    q->cached_head = q->cached_tail = 0;   /* counters start at 0: lower bounds */
    q->seen_head = q->seen_tail = 0;
}

static size_t block_bytes(uint64_t capacity, size_t slot_size)
{
    return CTL_BYTES + (size_t)capacity * slot_size;
}

static bcl_gptr slot(const bcl_queue *q, uint64_t index)
{
    return bcl_gptr_make(q->host, q->data.offset + (index % q->capacity) * q->slot_size);
}

static bcl_status load(bcl_gptr p, uint64_t *v) { return bcl_fetch_op(p, 8, BCL_OP_NOOP, 0, v); }

/* ---- collective agreement --------------------------------------------- */

static const char *kind_name(bcl_queue_kind kind)
{
    return kind == BCL_QUEUE_CIRCULAR ? "CircularQueue" : "FastQueue";
}

/* The agreement of a queue's collective call (bcl_agree.h): one allreduce
 * after which every rank goes on or every rank raises.  `local` is this
 * rank's own validation (its message set); `call` names the method. */
static bcl_status agree(bcl_queue_kind kind, const char *call, bcl_status local,
                        const char *const *names, const int64_t *vals, int n)
{
    char what[64];
    snprintf(what, sizeof what, "%s%s", kind_name(kind), call);
    return bcl_agree(what, local, names, vals, n);
}

/* The queue's identity, the same on every rank for one queue. */
static int64_t queue_id(const bcl_queue *q)
{
    return (int64_t)(((uint64_t)q->host << 40) ^ q->block.offset);
}

/* Host side of creation: allocate and zero the counters.  Counters are set
 * with atomics (memory-model rule); the data slots need no initialisation. */
static bcl_status alloc_block(bcl_queue *q, int host, uint64_t capacity, uint64_t *off)
{
    if (capacity > (SIZE_MAX - CTL_BYTES) / (q->slot_size ? q->slot_size : 1))
        return bcl_set_error(BCL_ERR_SEGFULL, "a queue of %llu slots does not fit",
                             (unsigned long long)capacity);
    bcl_status st = bcl_alloc(block_bytes(capacity, q->slot_size), CTL_LINE, off);
    if (st != BCL_OK)
        return st;
    bcl_gptr b = bcl_gptr_make(host, *off);
    for (int w = 0; w < 4 && st == BCL_OK; w++)
        st = bcl_atomic_store(ctl(b, w), 8, 0);
    return st;
}

/* Message of a failure on the root, recreated on every rank. */
typedef struct { int32_t status; uint32_t pad; uint64_t offset, size; } root_result;

static bcl_status share_result(root_result *r, int root, const char *what)
{
    bcl_status st = bcl_bcast(r, sizeof *r, root);
    if (st != BCL_OK)
        return st;
    if (r->status == BCL_OK || bcl_rt.rank == root)
        return (bcl_status)r->status;
    if (r->status == BCL_ERR_SEGFULL)
        return bcl_set_error(BCL_ERR_SEGFULL, "%s: rank %d's segment has no room",
                             what, root);
    return bcl_set_error((bcl_status)r->status, "%s failed on rank %d", what, root);
}

bcl_status bcl_queue_create(bcl_queue *q, bcl_queue_kind kind, int host,
                            int64_t capacity, size_t slot_size, int64_t elem_type)
{
    BCL_REQUIRE_INIT();
    bcl_status local = BCL_OK;
    if (host < 0 || host >= bcl_rt.nprocs)
        local = bcl_set_error(BCL_ERR_ARG, "host %d is not a rank in [0, %d)", host,
                              bcl_rt.nprocs);
    else if (capacity < 1)
        local = bcl_set_error(BCL_ERR_ARG, "capacity must be at least 1, got %lld",
                              (long long)capacity);
    /* 0 (values) and each size are different element types to agree on */
    static const char *const names[] = { "host", "capacity", "element size (dtype)",
                                         "#dtype" };
    int64_t v[4] = { host, capacity, (int64_t)slot_size, elem_type };
    bcl_status st = agree(kind, "()", local, names, v, 4);
    if (st != BCL_OK)
        return st;
    memset(q, 0, sizeof *q);
    q->kind = kind;
    q->capacity = (uint64_t)capacity;
    q->values = slot_size == BCL_QUEUE_VALUES;
    q->slot_size = q->values ? sizeof(bcl_objref) : slot_size;
    root_result r = { BCL_OK, 0, 0, 0 };
    if (bcl_rt.rank == host)
        r.status = alloc_block(q, host, q->capacity, &r.offset);
    if ((st = share_result(&r, host, "creating the queue")) != BCL_OK)
        return st;
    set_block(q, host, r.offset);
    return BCL_OK;
}

void bcl_queue_destroy(bcl_queue *q)
{
    if (bcl_rt.initialized && q->host == bcl_rt.rank && !bcl_gptr_is_null(q->block)) {
        bcl_objref ref;
        size_t got = 1;
        while (q->values && bcl_queue_local_pop(q, &ref, 1, &got) == BCL_OK && got)
            bcl_obj_release(ref);
        bcl_free(q->block.offset);
    }
    q->block = bcl_gptr_make(q->host, 0);
}

bcl_status bcl_queue_per_rank(bcl_queue *q, int64_t capacity, size_t slot_size, int *made)
{
    bcl_status st = BCL_OK;
    for (int r = 0; st == BCL_OK && r < bcl_rt.nprocs; r++) {
        st = bcl_queue_create(&q[r], BCL_QUEUE_FAST, r, capacity, slot_size, 0);
        if (st == BCL_OK)
            (*made)++;
    }
    return st == BCL_OK ? bcl_barrier() : st;
}

void bcl_queue_destroy_n(bcl_queue *q, int n)
{
    for (int r = 0; r < n; r++)
        bcl_queue_destroy(&q[r]);
}

/* ---- ring-aware data movement ------------------------------------------ */

/* Put n slots starting at counter `start` (two puts when the run wraps).
 * complete: remote completion before return (the data is about to be
 * published); else only local completion (a barrier completes it). */
static bcl_status ring_put(bcl_queue *q, uint64_t start, const void *src, uint64_t n,
                           int complete)
{
    uint64_t i = start % q->capacity, first = q->capacity - i < n ? q->capacity - i : n;
    const unsigned char *s = src;
    size_t ss = q->slot_size;
    bcl_status (*put)(bcl_gptr, const void *, size_t) = complete ? bcl_put_nb
                                                                 : bcl_put_detached;
    bcl_status st = put(slot(q, start), s, first * ss);
    if (st == BCL_OK && n > first)
        st = put(slot(q, 0), s + first * ss, (n - first) * ss);
    if (st == BCL_OK && complete)
        st = bcl_flush_rank(q->host);
    return st;
}

static bcl_status ring_get(bcl_queue *q, uint64_t start, void *dst, uint64_t n)
{
    uint64_t i = start % q->capacity, first = q->capacity - i < n ? q->capacity - i : n;
    unsigned char *d = dst;
    size_t ss = q->slot_size;
    bcl_status st = bcl_get(d, slot(q, start), first * ss);
    if (st == BCL_OK && n > first)
        st = bcl_get(d + first * ss, slot(q, 0), (n - first) * ss);
    return st;
}

/* Local copies for the host-only paths. */
static void ring_copy_out(bcl_queue *q, uint64_t start, void *dst, uint64_t n)
{
    uint64_t i = start % q->capacity, first = q->capacity - i < n ? q->capacity - i : n;
    size_t ss = q->slot_size;
    memcpy(dst, bcl_local_addr(slot(q, start)), first * ss);
    if (n > first)
        memcpy((unsigned char *)dst + first * ss, bcl_local_addr(q->data), (n - first) * ss);
}

static void ring_copy_in(bcl_queue *q, uint64_t start, const void *src, uint64_t n)
{
    uint64_t i = start % q->capacity, first = q->capacity - i < n ? q->capacity - i : n;
    size_t ss = q->slot_size;
    memcpy(bcl_local_addr(slot(q, start)), src, first * ss);
    if (n > first)
        memcpy(bcl_local_addr(q->data), (const unsigned char *)src + first * ss,
               (n - first) * ss);
}

/* ---- claiming and publishing ------------------------------------------- */

/* Both ends are claimed alike: a push claims [t, t + n) on the tail, all or
 * nothing (the slots must be free: head_ready bounds them); a pop claims up
 * to n slots on the head (they must be published: tail_ready bounds them).
 * A claim's counter, its guess (CircularQueue) and the bound it checks: */
typedef struct {
    bcl_gptr counter, bound;
    uint64_t *guess, *cached;
    int whole;                 /* all n or none (push) */
} claim_end;

static claim_end end_of(bcl_queue *q, int push)
{
    return push ? (claim_end){ q->tail, q->head_ready, &q->seen_tail, &q->cached_head, 1 }
                : (claim_end){ q->head, q->tail_ready, &q->seen_head, &q->cached_tail, 0 };
}

/* How many of n slots from position p the cached bound allows. */
static uint64_t room(const bcl_queue *q, const claim_end *e, uint64_t p, uint64_t n)
{
    if (e->whole)
        return (int64_t)(p + n - *e->cached) <= (int64_t)q->capacity ? n : 0;
    int64_t a = (int64_t)(*e->cached - p);
    return a <= 0 ? 0 : (uint64_t)a < n ? (uint64_t)a : n;
}

/* FastQueue: one fetch-and-add claims n slots at *start; when fewer fit,
 * the claim gives back what does not (see the header for why the give-back
 * CAS always ends): *got of them stay ours. */
static bcl_status claim_add(bcl_queue *q, const claim_end *e, uint64_t n, uint64_t *start,
                            uint64_t *got)
{
    uint64_t p, seen;
    unsigned spins = 0;
    bcl_status st = bcl_fetch_op(e->counter, 8, BCL_OP_ADD, n, &p);
    *start = p;
    *got = n;
    if (st != BCL_OK || room(q, e, p, n) == n)
        return st;                             /* common case: one atomic */
    for (;;) {
        if ((st = load(e->bound, e->cached)) != BCL_OK)
            return st;
        uint64_t a = room(q, e, p, n);
        if (a == n)
            return BCL_OK;
        if ((st = bcl_cas(e->counter, 8, p + n, p + a, &seen)) != BCL_OK)
            return st;
        if (seen == p + n) {
            *got = a;
            return BCL_OK;
        }
        if ((st = bcl_relax(&spins)) != BCL_OK)
            return st;
    }
}

/* CircularQueue: claim by a CAS from the last position we saw, only what
 * fits (header: why no fetch-and-add here); the bound is re-read when the
 * cached one allows fewer than n.  A stale guess is a lower bound (the
 * counters only grow), so "full" or "empty" by the guess is so for real. */
static bcl_status claim_cas(bcl_queue *q, const claim_end *e, uint64_t n, uint64_t *start,
                            uint64_t *got)
{
    uint64_t p = *e->guess, seen;
    for (;;) {
        bcl_status st;
        uint64_t a = room(q, e, p, n);
        if (a < n) {                    /* take as many as are there now */
            if ((st = load(e->bound, e->cached)) != BCL_OK)
                return st;
            if ((a = room(q, e, p, n)) == 0) {
                *got = 0;
                return BCL_OK;
            }
        }
        if ((st = bcl_cas(e->counter, 8, p, p + a, &seen)) != BCL_OK)
            return st;
        if (seen == p) {
            *start = p;
            *got = a;
            *e->guess = p + a;
            return BCL_OK;
        }
        p = seen;                       /* another claim won: retry from it */
    }
}

/* A push's claim can also be refused because a concurrent claim in front of
 * it is itself being refused (a big push_many near the top).  When the tail
 * read after our give-back shows that those have been given back and there
 * is room after all, try again (a bounded number of times, so a storm of
 * refused claims cannot livelock us). */
static bcl_status push_claim(bcl_queue *q, uint64_t n, uint64_t *start, int *ok)
{
    claim_end e = end_of(q, 1);
    uint64_t got = 0, tail_now = 0;
    bcl_status st = BCL_OK;
    for (int attempt = 0; st == BCL_OK; attempt++) {
        if (q->kind == BCL_QUEUE_CIRCULAR)
            st = claim_cas(q, &e, n, start, &got);
        else if ((st = claim_add(q, &e, n, start, &got)) == BCL_OK && !got)
            st = load(q->tail, &tail_now);       /* given back: where is it now? */
        if (got || q->kind == BCL_QUEUE_CIRCULAR || attempt == 4 ||
            !room(q, &e, tail_now, n))
            break;
    }
    *ok = got == n;
    return st;
}

/* Claim up to n slots on head; *got of them are ours, the rest given back. */
static bcl_status pop_claim(bcl_queue *q, uint64_t n, uint64_t *start, uint64_t *got)
{
    claim_end e = end_of(q, 0);
    return q->kind == BCL_QUEUE_CIRCULAR ? claim_cas(q, &e, n, start, got)
                                         : claim_add(q, &e, n, start, got);
}

/* Operands and results of relaxed (non-blocking) publications must stay put
 * until a flush completes them; a flush every NB_SLOTS of them lets us
 * recycle a fixed ring of buffers. */
#define NB_SLOTS 1024
static struct { uint64_t operand[NB_SLOTS], result[NB_SLOTS]; unsigned next; } nb;

static bcl_status publish_relaxed(bcl_gptr ready, uint64_t n)
{
    if (nb.next == NB_SLOTS) {
        bcl_status st = bcl_flush();
        if (st != BCL_OK)
            return st;
        nb.next = 0;
    }
    unsigned k = nb.next++;
    nb.operand[k] = n;
    return bcl_fetch_op_nb(ready, 8, BCL_OP_ADD, &nb.operand[k], &nb.result[k]);
}

/* Advance `ready` from our start to our end once every earlier claim has
 * published: a fetch-and-add could mark a slower neighbour's slots ready. */
static bcl_status publish_in_order(bcl_gptr ready, uint64_t from, uint64_t to)
{
    uint64_t seen;
    unsigned spins = 0;
    for (;;) {
        bcl_status st = bcl_cas(ready, 8, from, to, &seen);
        if (st != BCL_OK || seen == from)
            return st;
        if ((st = bcl_relax(&spins)) != BCL_OK)
            return st;
    }
}

/* ---- local (host-only, no concurrent users) variants ------------------- */

static uint64_t lload(bcl_gptr p) { return __atomic_load_n((uint64_t *)bcl_local_addr(p), __ATOMIC_ACQUIRE); }
static void lstore(bcl_gptr p, uint64_t v) { __atomic_store_n((uint64_t *)bcl_local_addr(p), v, __ATOMIC_RELEASE); }

static bcl_status require_host(const bcl_queue *q, const char *what)
{
    if (q->host == bcl_rt.rank)
        return BCL_OK;
    return bcl_set_error(BCL_ERR_ARG, "%s is host-only: the queue lives on rank %d, "
                         "this is rank %d", what, q->host, bcl_rt.rank);
}

static bcl_status local_push(bcl_queue *q, const void *src, uint64_t n, int *pushed)
{
    uint64_t t = lload(q->tail), h = lload(q->head_ready);
    if (t + n - h > q->capacity) {
        *pushed = 0;
        return BCL_OK;
    }
    ring_copy_in(q, t, src, n);
    lstore(q->tail, t + n);
    lstore(q->tail_ready, t + n);
    *pushed = 1;
    return BCL_OK;
}

bcl_status bcl_queue_local_pop(bcl_queue *q, void *dst, size_t n, size_t *popped)
{
    bcl_status st = require_host(q, "local_nonatomic_pop");
    *popped = 0;
    if (st != BCL_OK)
        return st;
    uint64_t h = lload(q->head), t = lload(q->tail_ready);
    uint64_t k = t > h ? (t - h < n ? t - h : n) : 0;
    ring_copy_out(q, h, dst, k);
    lstore(q->head, h + k);
    lstore(q->head_ready, h + k);
    *popped = k;
    return BCL_OK;
}

/* ---- push / pop -------------------------------------------------------- */

static int is_local(unsigned promise) { return promise == BCL_QP_LOCAL; }

/* The local promise is an argument: misusing it is a ValueError. */
static bcl_status local_promise_ok(const bcl_queue *q)
{
    if (q->host == bcl_rt.rank)
        return BCL_OK;
    return bcl_set_error(BCL_ERR_ARG, "promise=ConProm.CircularQueue.local is host-only: "
                         "the queue lives on rank %d, this is rank %d", q->host,
                         bcl_rt.rank);
}

bcl_status bcl_queue_push(bcl_queue *q, const void *src, size_t n, unsigned promise,
                          int *pushed)
{
    *pushed = n == 0;
    if (n == 0)
        return BCL_OK;
    /* Never "no room now": a caller retrying until it fits would wait forever. */
    if (n > q->capacity)
        return bcl_set_error(BCL_ERR_ARG, "values: %zu elements can never fit in a queue "
                             "of capacity %llu (push_many is all or nothing)", n,
                             (unsigned long long)q->capacity);
    if (is_local(promise)) {
        bcl_status st = local_promise_ok(q);
        return st != BCL_OK ? st : local_push(q, src, n, pushed);
    }
    uint64_t t;
    bcl_status st = push_claim(q, n, &t, pushed);
    if (st != BCL_OK || !*pushed)
        return st;
    /* FastQueue / push-only phase: nobody reads before the next barrier,
     * which completes the put; otherwise it must land before publication. */
    int fast = q->kind == BCL_QUEUE_FAST, relaxed = !fast && promise == BCL_QP_PUSH;
    if ((st = ring_put(q, t, src, n, !fast && !relaxed)) != BCL_OK || fast)
        return st;
    return relaxed ? publish_relaxed(q->tail_ready, n)
                   : publish_in_order(q->tail_ready, t, t + n);
}

bcl_status bcl_queue_pop(bcl_queue *q, void *dst, size_t n, unsigned promise,
                         size_t *popped)
{
    *popped = 0;
    if (n == 0)
        return BCL_OK;
    if (n > q->capacity)
        n = q->capacity;
    if (is_local(promise)) {
        bcl_status st = local_promise_ok(q);
        return st != BCL_OK ? st : bcl_queue_local_pop(q, dst, n, popped);
    }
    uint64_t h, got;
    bcl_status st = pop_claim(q, n, &h, &got);
    if (st != BCL_OK || got == 0)
        return st;
    if ((st = ring_get(q, h, dst, got)) != BCL_OK)
        return st;
    *popped = got;
    if (q->kind == BCL_QUEUE_FAST)
        return BCL_OK;
    /* Our get is complete, so the slots may be reused once published. */
    return promise == BCL_QP_POP ? publish_relaxed(q->head_ready, got)
                                 : publish_in_order(q->head_ready, h, h + got);
}

bcl_status bcl_queue_size(bcl_queue *q, uint64_t *size)
{
    uint64_t h, t;
    bcl_status st = load(q->head_ready, &h);
    if (st == BCL_OK)
        st = load(q->tail_ready, &t);
    if (st != BCL_OK)
        return st;
    int64_t s = (int64_t)(t - h);
    *size = s < 0 ? 0 : (uint64_t)s > q->capacity ? q->capacity : (uint64_t)s;
    return BCL_OK;
}

/* ---- host-only view ---------------------------------------------------- */

/* Counters jump forward to the next multiple of capacity so the elements
 * start at slot 0: they must never decrease, since other ranks keep cached
 * copies as lower bounds. */
static bcl_status make_contiguous(bcl_queue *q, uint64_t h, uint64_t count)
{
    void *tmp = malloc(count * q->slot_size);
    if (!tmp)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to unwrap %llu queue elements",
                             (unsigned long long)count);
    ring_copy_out(q, h, tmp, count);
    memcpy(bcl_local_addr(q->data), tmp, count * q->slot_size);
    free(tmp);
    uint64_t nh = h - h % q->capacity + q->capacity;
    lstore(q->head, nh);
    lstore(q->head_ready, nh);
    lstore(q->tail, nh + count);
    lstore(q->tail_ready, nh + count);
    return BCL_OK;
}

bcl_status bcl_queue_local_view(bcl_queue *q, void **addr, uint64_t *count)
{
    bcl_status st = require_host(q, "local()");
    if (st != BCL_OK)
        return st;
    uint64_t h = lload(q->head_ready), t = lload(q->tail_ready);
    *count = t - h;
    if (h % q->capacity + *count > q->capacity) {
        if ((st = make_contiguous(q, h, *count)) != BCL_OK)
            return st;
        h = lload(q->head);
    }
    *addr = bcl_local_addr(slot(q, h));
    return BCL_OK;
}

/* ---- resize / migrate (collective) ------------------------------------- */

/* Host side of resize: a new block with the elements at slots [0, size). */
static bcl_status rebuild_local(bcl_queue *q, uint64_t new_cap, root_result *r)
{
    uint64_t h = lload(q->head_ready), t = lload(q->tail_ready);
    r->size = t - h;
    if (new_cap < r->size)
        return BCL_ERR_ARG;
    bcl_queue nq = *q;
    nq.capacity = new_cap;
    bcl_status st = alloc_block(&nq, q->host, new_cap, &r->offset);
    if (st != BCL_OK)
        return st;
    set_block(&nq, q->host, r->offset);
    ring_copy_out(q, h, bcl_local_addr(nq.data), r->size);
    st = bcl_atomic_store(nq.tail, 8, r->size);
    if (st == BCL_OK)
        st = bcl_atomic_store(nq.tail_ready, 8, r->size);
    return st;
}

bcl_status bcl_queue_resize(bcl_queue *q, int64_t new_capacity)
{
    bcl_status local = BCL_OK;
    if (new_capacity < 1)
        local = bcl_set_error(BCL_ERR_ARG, "new_capacity must be at least 1, got %lld",
                              (long long)new_capacity);
    static const char *const names[] = { "new_capacity", "#queue" };
    int64_t v[2] = { new_capacity, queue_id(q) };
    bcl_status st = agree(q->kind, ".resize()", local, names, v, 2);
    if (st != BCL_OK || (st = bcl_barrier()) != BCL_OK)
        return st;
    root_result r = { BCL_OK, 0, 0, 0 };
    if (bcl_rt.rank == q->host)
        r.status = rebuild_local(q, (uint64_t)new_capacity, &r);
    if ((st = bcl_bcast(&r, sizeof r, q->host)) != BCL_OK)
        return st;
    if (r.status == BCL_ERR_ARG)
        return bcl_set_error(BCL_ERR_ARG, "new_capacity %lld is smaller than the %llu "
                             "elements in the queue", (long long)new_capacity,
                             (unsigned long long)r.size);
    if (r.status != BCL_OK)
        return share_result(&r, q->host, "resize");   /* same message everywhere */
    if (bcl_rt.rank == q->host)
        bcl_free(q->block.offset);
    q->capacity = (uint64_t)new_capacity;
    set_block(q, q->host, r.offset);
    return bcl_barrier();     /* the host's local writes before anyone's RMA */
}

/* Old host side of migrate: copy the elements to slots [0, size) of the new
 * block (at most two puts) and set its counters. */
static bcl_status move_out(bcl_queue *q, bcl_queue *nq)
{
    uint64_t h = lload(q->head_ready), t = lload(q->tail_ready), n = t - h;
    uint64_t i = h % q->capacity, first = q->capacity - i < n ? q->capacity - i : n;
    size_t ss = q->slot_size;
    bcl_status st = bcl_put_nb(nq->data, bcl_local_addr(slot(q, h)), first * ss);
    if (st == BCL_OK && n > first)
        st = bcl_put_nb(slot(nq, first), bcl_local_addr(q->data), (n - first) * ss);
    if (st == BCL_OK)
        st = bcl_flush_rank(nq->host);
    if (st == BCL_OK)
        st = bcl_atomic_store(nq->tail, 8, n);
    if (st == BCL_OK)
        st = bcl_atomic_store(nq->tail_ready, 8, n);
    return st;
}

bcl_status bcl_queue_migrate(bcl_queue *q, int new_host)
{
    BCL_REQUIRE_INIT();
    bcl_status local = BCL_OK;
    if (new_host < 0 || new_host >= bcl_rt.nprocs)
        local = bcl_set_error(BCL_ERR_ARG, "new_host %d is not a rank in [0, %d)",
                              new_host, bcl_rt.nprocs);
    static const char *const names[] = { "new_host", "#queue" };
    int64_t v[2] = { new_host, queue_id(q) };
    bcl_status st = agree(q->kind, ".migrate()", local, names, v, 2);
    if (st != BCL_OK || new_host == q->host)
        return st;
    if ((st = bcl_barrier()) != BCL_OK)
        return st;
    bcl_queue nq = *q;
    root_result r = { BCL_OK, 0, 0, 0 };
    if (bcl_rt.rank == new_host)
        r.status = alloc_block(&nq, new_host, q->capacity, &r.offset);
    if ((st = share_result(&r, new_host, "migrate")) != BCL_OK)
        return st;
    set_block(&nq, new_host, r.offset);
    if (bcl_rt.rank == q->host) {
        st = move_out(q, &nq);
        bcl_free(q->block.offset);      /* its values moved with the references */
    }
    bcl_status st2 = bcl_barrier();
    *q = nq;
    return st != BCL_OK ? st : st2;
}
