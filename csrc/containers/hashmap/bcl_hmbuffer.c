/* bcl_hmbuffer.c -- HashMapBuffer (see bcl_hmbuffer.h). */
#include "containers/hashmap/bcl_hmbuffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

bcl_status bcl_hmbuf_create(bcl_hmbuf *b, bcl_hashmap *m, size_t queue_size,
                            size_t message_size)
{
    BCL_REQUIRE_INIT();
    memset(b, 0, sizeof *b);
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_TYPE, "HashMapBuffer needs fixed-size key and value "
                             "types");
    if (queue_size == 0 || message_size == 0)
        return bcl_set_error(BCL_ERR_ARG, "queue_size and message_size must be positive");
    int p = bcl_rt.nprocs;
    bcl_status st = BCL_OK;
    b->m = m;
    b->chunk = message_size < queue_size ? message_size : queue_size;
    b->stride = ALIGN8(m->key_size + m->val_size + 1);
    b->fmt = (bcl_hmbuf_fmt){ m->key_size, m->val_size };
    /* message_size entries of a wide key/value type (S1000000) for every
     * rank could wrap the byte counts of the waiting lists. */
    if (message_size > SIZE_MAX / b->stride / (size_t)bcl_rt.nprocs)
        st = bcl_set_error(BCL_ERR_NOMEM, "message_size %zu entries of %zu bytes for "
                           "each of %d ranks is more than any memory", message_size,
                           b->stride, bcl_rt.nprocs);
    if (st == BCL_OK) {
        b->out = calloc((size_t)p, sizeof *b->out);
        b->blocked = calloc((size_t)p, 1);
        b->group = calloc((size_t)p + 1, sizeof *b->group);
        if (!b->out || !b->blocked || !b->group)
            st = bcl_set_error(BCL_ERR_NOMEM, "no memory for HashMapBuffer's buffers");
    }
    st = bcl_delegate_create(&b->d, "HashMapBuffer creation", st, queue_size, message_size,
                             b->stride);
    if (st != BCL_OK)
        bcl_hmbuf_destroy(b);
    return st;
}

void bcl_hmbuf_destroy(bcl_hmbuf *b)
{
    bcl_delegate_destroy(&b->d);
    for (int r = 0; b->out && r < bcl_rt.nprocs; r++)
        bcl_hmbuf_list_free(&b->out[r]);
    free(b->out);
    free(b->blocked);
    free(b->group);
    free(b->wire);
    bcl_hmbuf_list_free(&b->kept);
    memset(b, 0, sizeof *b);
}

/* ---- the atomic path (spills and kept entries owned elsewhere) ------------ */

/* One entry's outcome in the map (apply / direct): kept or counted. */
static bcl_status settle(bcl_hmbuf *b, const void *key, const void *val, int acc, int outcome)
{
    if (outcome == BCL_HM_NOROOM)
        return bcl_hmbuf_list_add(&b->kept, b->fmt, key, val, acc);
    if (outcome == BCL_HM_OVERFLOW)
        b->n_overflow++;
    return BCL_OK;
}

/* Insert a list's entries with the atomic protocol, in order: each stretch
 * of runs of one kind (inserts, or accumulates) is one pipelined batch, so
 * a key's insert and accumulate land in the order they were added.
 * Entries that find no room are kept, overflowing accumulates counted. */
static bcl_status direct(bcl_hmbuf *b, const bcl_hmbuf_list *l)
{
    const bcl_hashmap *m = b->m;
    bcl_hmbuf_fmt f = b->fmt;
    size_t n = l->n;
    unsigned char *k = malloc(n * f.ks + 1), *v = malloc(n * f.vs + 1);
    unsigned char *out = malloc(n + 1);
    bcl_status st = k && v && out ? BCL_OK
                                  : bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu entries", n);
    for (size_t first = 0, end; st == BCL_OK && first < l->nruns; first = end) {
        int acc = l->runs[first].acc;
        size_t c = 0;
        for (end = first; end < l->nruns && l->runs[end].acc == acc; end++) {
            bcl_hm_run run = bcl_hmbuf_list_run(l, f, end);
            for (size_t j = 0; j < run.n; j++, c++) {
                memcpy(k + c * f.ks, run.keys + j * run.kstride, f.ks);
                memcpy(v + c * f.vs, run.vals + j * run.vstride, f.vs);
            }
        }
        if (c)
            st = bcl_hm_batch_outcome(m, acc, k, v, c, out);
        for (size_t i = first, o = 0; st == BCL_OK && c && i < end; i++) {
            bcl_hm_run run = bcl_hmbuf_list_run(l, f, i);
            for (size_t j = 0; st == BCL_OK && j < run.n; j++)
                st = settle(b, run.keys + j * run.kstride, run.vals + j * run.vstride, acc,
                            out[o++]);
        }
    }
    free(k);
    free(v);
    free(out);
    return st;
}

/* ---- buffering ----------------------------------------------------------- */

/* The staging area for pushes and pops: `chunk` queue records. */
static bcl_status wire_ready(bcl_hmbuf *b)
{
    if (b->wire)
        return BCL_OK;
    b->wire = malloc(b->chunk * b->stride);
    if (!b->wire)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to stage %zu entries of %zu bytes",
                             b->chunk, b->stride);
    b->wire_n = b->chunk;
    return BCL_OK;
}

/* Push dest's waiting entries, oldest first, a chunk at a time, until the
 * queue refuses one (then the rest wait, in order, for flush()). */
static bcl_status ship(bcl_hmbuf *b, int dest)
{
    bcl_hmbuf_list *l = &b->out[dest];
    size_t done = 0;
    bcl_status st = wire_ready(b);
    while (st == BCL_OK && done < l->n) {
        size_t n = l->n - done < b->chunk ? l->n - done : b->chunk;
        int pushed = 0;
        bcl_hmbuf_list_to_wire(l, b->fmt, done, n, b->wire, b->stride);
        st = bcl_delegate_push(&b->d, dest, b->wire, n, &pushed);
        if (st == BCL_OK && !pushed) {
            if (!b->blocked[dest])
                b->waited += l->n - done;
            b->blocked[dest] = 1;
            break;
        }
        done += st == BCL_OK ? n : 0;
    }
    if (done)
        bcl_hmbuf_list_drop_front(l, b->fmt, done);
    return st;
}

/* Entries added for dest: shipped once a message's worth waits, unless
 * its queue refused us already (then they wait for flush()). */
static bcl_status added_for(bcl_hmbuf *b, int dest, size_t n)
{
    b->n_added += n;
    if (dest == bcl_rt.rank)
        return BCL_OK;               /* ours wait for the local phase */
    if (b->blocked[dest]) {
        b->waited += n;
        return BCL_OK;
    }
    return b->out[dest].n >= b->chunk ? ship(b, dest) : BCL_OK;
}

/* The rank that owns key's home bucket. */
static inline uint32_t owner_rank(const bcl_hmbuf *b, const unsigned char *key)
{
    return (uint32_t)bcl_hm_home_rank(bcl_hm_hash(key, b->fmt.ks));
}

/* Append entries order[0..n) of keys/vals (one add call; order NULL:
 * entries 0..n-1) to dest's list. */
static bcl_status append_group(bcl_hmbuf *b, int dest, const unsigned char *keys,
                               const unsigned char *vals, size_t vstep, const uint32_t *order,
                               size_t n, int acc, uint64_t tag)
{
    bcl_hmbuf_fmt f = b->fmt;
    bcl_hmbuf_list *l = &b->out[dest];
    bcl_status st = BCL_OK;
    if (l->tag != tag)
        st = bcl_hmbuf_list_open(l, f, acc, vstep == 0, vals, tag);
    if (st == BCL_OK)
        st = bcl_hmbuf_list_reserve(l, f, n);
    if (st != BCL_OK)
        return st;
    if (!order)
        for (size_t j = 0; j < n; j++)
            bcl_hmbuf_list_put(l, f, keys + j * f.ks, vals + j * vstep);
    else
        for (size_t j = 0; j < n; j++)
            bcl_hmbuf_list_put(l, f, keys + order[j] * f.ks, vals + order[j] * vstep);
    return added_for(b, dest, n);
}

#define ADD_BLOCK 4096u     /* entries grouped by owner at a time */

/* Entries [0, n) of one add call, grouped by owner with a stable counting
 * sort, so each list is opened and sized once per group, not per entry. */
static bcl_status add_block(bcl_hmbuf *b, const unsigned char *keys, const unsigned char *vals,
                            size_t vstep, size_t n, int acc, uint64_t tag)
{
    uint32_t dest[ADD_BLOCK], order[ADD_BLOCK];
    int p = bcl_rt.nprocs;
    size_t *at = b->group, ks = b->fmt.ks;
    memset(at, 0, ((size_t)p + 1) * sizeof *at);
    for (size_t i = 0; i < n; i++) {
        dest[i] = owner_rank(b, keys + i * ks);
        at[dest[i] + 1]++;
    }
    for (int r = 0; r < p; r++)
        at[r + 1] += at[r];
    for (size_t i = 0; i < n; i++)
        order[at[dest[i]]++] = (uint32_t)i;       /* at[r] ends at group r's end */
    bcl_status st = BCL_OK;
    for (int r = 0, from = 0; st == BCL_OK && r < p; from = (int)at[r++]) {
        if (at[r] > (size_t)from)
            st = append_group(b, r, keys, vals, vstep, order + from, at[r] - (size_t)from,
                              acc, tag);
    }
    return st;
}

bcl_status bcl_hmbuf_add(bcl_hmbuf *b, const void *key, const void *val, int accumulate)
{
    return append_group(b, (int)owner_rank(b, key), key, val, b->fmt.vs, NULL, 1,
                        accumulate != 0, ++b->calls);
}

bcl_status bcl_hmbuf_add_many(bcl_hmbuf *b, const void *keys, const void *vals,
                              size_t vstep, size_t n, int accumulate)
{
    const unsigned char *k = keys, *v = vals;
    size_t ks = b->m->key_size;
    uint64_t tag = ++b->calls;
    int acc = accumulate != 0;
    bcl_status st = BCL_OK;
    if (bcl_rt.nprocs == 1)              /* all ours: one group, in order */
        return append_group(b, 0, k, v, vstep, NULL, n, acc, tag);
    for (size_t i = 0; i < n && st == BCL_OK; i += ADD_BLOCK) {
        size_t len = n - i < ADD_BLOCK ? n - i : ADD_BLOCK;
        st = add_block(b, k + i * ks, v + i * vstep, vstep, len, acc, tag);
    }
    return st;
}

uint64_t bcl_hmbuf_pending(const bcl_hmbuf *b)
{
    return b->n_added + b->kept.n;
}

/* ---- flush --------------------------------------------------------------- */

static void keep_first(bcl_status *first, bcl_status st)
{
    if (*first == BCL_OK)
        *first = st;
}

/* The entries a full map refused last time go first: those this rank owns
 * at the head of its inbox, the others (entries whose probes left their
 * owner's block) atomically now, before the first barrier of this flush --
 * no owner applies locally until after it. */
static bcl_status requeue_kept(bcl_hmbuf *b, bcl_hmbuf_list *inbox)
{
    bcl_hmbuf_list old = b->kept, theirs = { 0 };
    memset(&b->kept, 0, sizeof b->kept);
    bcl_status st = BCL_OK;
    for (size_t i = 0; st == BCL_OK && i < old.nruns; i++) {
        bcl_hm_run run = bcl_hmbuf_list_run(&old, b->fmt, i);
        for (size_t j = 0; st == BCL_OK && j < run.n; j++) {
            const unsigned char *key = run.keys + j * run.kstride;
            bcl_hm_key k = bcl_hm_key_make(key, b->m->key_size);
            bcl_hmbuf_list *to = bcl_hm_owner(b->m, &k) == bcl_rt.rank ? inbox : &theirs;
            st = bcl_hmbuf_list_add(to, b->fmt, key, run.vals + j * run.vstride,
                                    run.accumulate);
        }
    }
    if (st == BCL_OK && theirs.n)
        st = direct(b, &theirs);
    if (st != BCL_OK) {     /* keep them all for the next try */
        bcl_hmbuf_list_free(&b->kept);
        b->kept = old;
        memset(&old, 0, sizeof old);
        bcl_hmbuf_list_free(inbox);
    }
    bcl_hmbuf_list_free(&old);
    bcl_hmbuf_list_free(&theirs);
    return st;
}

/* Ship in rounds until no rank has entries waiting; every owner's arrivals
 * are appended to its inbox.  A rank that failed stops pushing (its entries
 * wait for the next flush) but keeps taking part. */
static bcl_status ship_rounds(bcl_hmbuf *b, bcl_hmbuf_list *inbox, bcl_status *err)
{
    int me = bcl_rt.rank;
    for (;;) {
        for (int r = 0; r < bcl_rt.nprocs; r++) {
            b->blocked[r] = 0;
            if (r != me && *err == BCL_OK)
                keep_first(err, ship(b, r));
        }
        bcl_status st = bcl_barrier();
        if (st != BCL_OK)
            return st;
        size_t got = 0;
        do {
            /* Room first: a popped entry must have a place to go. */
            if (*err == BCL_OK && (*err = wire_ready(b)) == BCL_OK)
                *err = bcl_hmbuf_list_reserve(inbox, b->fmt, b->wire_n);
            got = 0;
            if (*err == BCL_OK)
                *err = bcl_delegate_pop(&b->d, b->wire, b->wire_n, &got);
            if (*err == BCL_OK && got)
                *err = bcl_hmbuf_list_from_wire(inbox, b->fmt, b->wire, got, b->stride);
        } while (*err == BCL_OK && got == b->wire_n);
        if ((st = bcl_barrier()) != BCL_OK)
            return st;
        uint64_t left = 0;
        for (int r = 0; *err == BCL_OK && r < bcl_rt.nprocs; r++)
            left += r == me ? 0 : b->out[r].n;
        if ((st = bcl_allreduce(&left, 1, BCL_U64, BCL_SUM)) != BCL_OK || !left)
            return st;
    }
}

typedef struct outcome_ctx {
    bcl_hmbuf *b;
    bcl_hmbuf_list spill;
} outcome_ctx;

static bcl_status note_outcome(void *vctx, const void *key, const void *val, int acc,
                               bcl_status st, int spilled)
{
    outcome_ctx *c = vctx;
    if (st == BCL_OK && spilled)
        return bcl_hmbuf_list_add(&c->spill, c->b->fmt, key, val, acc);
    if (st == BCL_ERR_FULL)
        return bcl_hmbuf_list_add(&c->b->kept, c->b->fmt, key, val, acc);
    c->b->n_overflow++;
    return BCL_OK;
}

/* Upper estimate of the inbox's keys that our block does not hold yet. */
static uint64_t inbox_keys(const bcl_hmbuf *b, const bcl_hmbuf_list *inbox)
{
    bcl_hm_sketch s;
    bcl_hm_sketch_init(&s);
    for (size_t i = 0; i < inbox->nruns; i++) {
        bcl_hm_run run = bcl_hmbuf_list_run(inbox, b->fmt, i);
        bcl_hm_sketch_add(b->m, &s, run.keys, run.kstride, run.n);
    }
    uint64_t n = bcl_hm_sketch_new_keys(b->m, &s);
    bcl_hm_sketch_free(&s);
    return n;
}

/* The local phase: grow if asked (the apply must find room), then apply
 * the inbox to our block.  Spills come back in *spill.  Collective only
 * through bcl_hm_grow_for, which every rank calls. */
static bcl_status apply_inbox(bcl_hmbuf *b, bcl_hmbuf_list *inbox, bcl_hmbuf_list *spill,
                              bcl_status *err)
{
    bcl_status st = BCL_OK;
    if (b->grow) {
        /* the inbox's size bounds its new keys: estimate only when it matters */
        uint64_t fresh = *err != BCL_OK ? 0
                       : bcl_hm_room_for(b->m, inbox->n) ? inbox->n : inbox_keys(b, inbox);
        st = bcl_hm_grow_for(b->m, fresh, err);
    }
    outcome_ctx oc = { b, { 0 } };
    if (st == BCL_OK && *err == BCL_OK) {
        for (size_t i = 0; *err == BCL_OK && i < inbox->nruns; i++) {
            bcl_hm_run run = bcl_hmbuf_list_run(inbox, b->fmt, i);
            *err = bcl_hm_apply_many_local(b->m, &run, b->grow, &b->refusing, note_outcome,
                                           &oc);
        }
    } else if (st == BCL_OK && inbox->n) {
        keep_first(err, bcl_hmbuf_list_append(&b->kept, b->fmt, inbox));  /* none lost */
    }
    *spill = oc.spill;
    return st;
}

bcl_status bcl_hmbuf_flush(bcl_hmbuf *b)
{
    int me = bcl_rt.rank;
    bcl_status err = BCL_OK, st;
    b->n_added = 0;           /* from here on they are applied or kept */
    b->refusing = 0;
    bcl_hmbuf_list inbox = { 0 }, spill = { 0 };
    uint64_t applied = 0;
    if (b->kept_all)
        err = requeue_kept(b, &inbox);
    b->kept_all = 0;
    if (err == BCL_OK && !inbox.n) {
        inbox = b->out[me];              /* ours, as they are: no copy */
        memset(&b->out[me], 0, sizeof b->out[me]);
    } else if (err == BCL_OK &&
               (err = bcl_hmbuf_list_append(&inbox, b->fmt, &b->out[me])) == BCL_OK) {
        bcl_hmbuf_list_drop_front(&b->out[me], b->fmt, b->out[me].n);
    }
    /* Every path runs all barriers and the agreement, so an error never
     * strands peers. */
    if ((st = ship_rounds(b, &inbox, &err)) != BCL_OK)
        goto out;
    /* Local phase: nobody pushes or writes another rank's block until the
     * next barrier. */
    if ((st = apply_inbox(b, &inbox, &spill, &err)) != BCL_OK)
        goto out;
    applied = inbox.n;
    bcl_hmbuf_list_free(&inbox);
    if ((st = bcl_barrier()) != BCL_OK)
        goto out;
    if (spill.n && err == BCL_OK)
        err = bcl_hm_spills_wait(b->m, b->grow, b->refusing, applied, spill.n)
            ? bcl_hmbuf_list_append(&b->kept, b->fmt, &spill)     /* grown first */
            : direct(b, &spill);
    if ((st = bcl_barrier()) != BCL_OK)
        goto out;
    st = bcl_hm_flush_agree(b->m, err, b->kept.n, &b->n_overflow, 0, &b->kept_all);
out:
    bcl_hmbuf_list_free(&inbox);
    bcl_hmbuf_list_free(&spill);
    return st;
}
