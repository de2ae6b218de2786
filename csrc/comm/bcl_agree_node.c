/* bcl_agree_node.c -- the agreement's exchange in node shared memory
 * (bcl_agree_node.h). */
#include "comm/bcl_agree_node.h"

#include <string.h>

#include "comm/bcl_comm.h"
#include "comm/bcl_depart.h"
#include "runtime/bcl_interrupt.h"

/* One buffer of a slot.  The record's head shares the round's cache line, so
 * a peer that has seen the round already holds the head; the arguments take
 * a second line, read only when there are any. */
typedef struct head {
    uint64_t round;          /* stored last, with release: the rest is ready */
    int64_t failed, tag, nargs, life_n, life_first;
    uint64_t life_bits;
    int64_t unused;
} head;

typedef struct buffer {
    head h;
    int64_t vals[BCL_AGREE_MAX];
} buffer;

typedef struct slot {
    buffer b[2];             /* by round parity (bcl_agree_node.h) */
} slot;

_Static_assert(sizeof(head) == 64 && sizeof(buffer) == 128,
               "a head is one cache line, a buffer two");
_Static_assert(BCL_AGREE_NODE_OFFSET % 64 == 0 && BCL_AGREE_NODE_OFFSET >= 64 &&
               BCL_AGREE_NODE_OFFSET + sizeof(slot) <= BCL_SEGMENT_RESERVED,
               "the slot lies in the reserved head, clear of word 0");

int bcl_agree_node_active(void)
{
    return bcl_comm_direct() && bcl_rt.bases != NULL;
}

static buffer *buffer_of(int rank, uint64_t round)
{
    slot *s = (slot *)(bcl_rt.bases[rank] + BCL_AGREE_NODE_OFFSET);
    return &s->b[round & 1u];
}

/* nargs as a count of vals that may be read: a record is never trusted to
 * bound a copy. */
static int clamp_nargs(int64_t n)
{
    return n < 0 ? 0 : n > BCL_AGREE_MAX ? BCL_AGREE_MAX : (int)n;
}

static void publish(const bcl_agree_rec *mine, uint64_t round)
{
    buffer *b = buffer_of(bcl_rt.rank, round);
    b->h.failed = mine->failed;
    b->h.tag = mine->tag;
    b->h.nargs = clamp_nargs(mine->nargs);
    b->h.life_n = mine->life_n;
    b->h.life_first = mine->life_first;
    b->h.life_bits = mine->life_bits;
    memcpy(b->vals, mine->vals, (size_t)b->h.nargs * sizeof b->vals[0]);
    __atomic_store_n(&b->h.round, round, __ATOMIC_RELEASE);
}

/* One failed poll of a peer's round: the pause, Ctrl-C, departures. */
static bcl_status wait_step(unsigned fails, bcl_depart_watch *watch, const char *what)
{
    bcl_status st = bcl_interrupt_poll();
    if (st == BCL_OK && fails % 256u == 0)
        st = bcl_depart_watch_poll(watch, what);
    if (st == BCL_OK)
        bcl_wait_pause(fails);
    return st;
}

/* Wait until `rank` has published `round`, then copy its record.  `fails`
 * counts the failed polls of this round (all peers), so a long wait stays
 * patient from one peer to the next. */
static bcl_status collect(int rank, uint64_t round, const char *what,
                          bcl_depart_watch *watch, unsigned *fails, bcl_agree_rec *out)
{
    const buffer *b = buffer_of(rank, round);
    while (__atomic_load_n(&b->h.round, __ATOMIC_ACQUIRE) != round) {
        bcl_status st = wait_step(++*fails, watch, what);
        if (st != BCL_OK)
            return st;
    }
    out->failed = b->h.failed;
    out->tag = b->h.tag;
    int n = clamp_nargs(b->h.nargs);
    out->nargs = n;
    out->life_n = b->h.life_n;
    out->life_first = b->h.life_first;
    out->life_bits = b->h.life_bits;
    for (int i = 0; i < BCL_AGREE_MAX; i++)
        out->vals[i] = i < n ? b->vals[i] : 0;
    return BCL_OK;
}

bcl_status bcl_agree_node_round(const bcl_agree_rec *mine, int64_t round, const char *what,
                                bcl_agree_visit visit, void *ctx)
{
    if (!bcl_agree_node_active())
        return bcl_set_error(BCL_ERR_STATE, "%s: no node agreement on transport %s",
                             what, bcl_transport_name(bcl_rt.transport));
    publish(mine, (uint64_t)round);
    visit(mine, bcl_rt.rank, ctx);
    bcl_depart_watch watch = BCL_DEPART_WATCH_INIT;
    watch.round = round;
    unsigned fails = 0;
    for (int k = 1; k < bcl_rt.nprocs; k++) {
        int r = (bcl_rt.rank + k) % bcl_rt.nprocs;
        bcl_agree_rec rec;
        bcl_status st = collect(r, (uint64_t)round, what, &watch, &fails, &rec);
        if (st != BCL_OK)
            return st;
        visit(&rec, r, ctx);
    }
    return BCL_OK;
}
