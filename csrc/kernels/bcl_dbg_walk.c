/*
 * bcl_dbg_walk.c -- many unitig walks advanced together (bcl_dbg.h).
 *
 * A walk is a chain of dependent lookups (the next k-mer's extension bits
 * decide the step after it), so one walk at a time would pay a full lookup
 * latency per k-mer.  Instead every walker of a rank asks for its next
 * k-mer in one batch, the caller looks the batch up (one find_many), and
 * every walker steps at once: the latency is paid once per round for all
 * walks in flight.  Finished walkers drop out of the active list, so a
 * round costs the walks still going, not all of them.
 */
#include "kernels/bcl_dbg.h"
#include "kernels/bcl_key_order.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_free.h"

static const char BASES[4] = { 'A', 'C', 'G', 'T' };

/* exactly one base: a plain test, where __builtin_popcount is a libgcc call
 * without -mpopcnt */
static inline int one_base(unsigned bits)
{
    return bits && !(bits & (bits - 1));
}

static bcl_status grow_seq(bcl_dbg_walk *w, size_t i, size_t need)
{
    if (need <= w->cap[i])
        return BCL_OK;
    size_t cap = w->cap[i] * 2 > need ? w->cap[i] * 2 : need;
    char *p = realloc(w->seq[i], cap);
    if (!p)
        return bcl_set_error(BCL_ERR_NOMEM, "unitig walk: out of memory for a %zu-base "
                             "unitig", need);
    w->seq[i] = p;
    w->cap[i] = cap;
    return BCL_OK;
}

static bcl_status alloc_arrays(bcl_dbg_walk *w, size_t n)
{
    size_t m = n ? n : 1;
    w->start = calloc(m, sizeof *w->start);
    w->cur = calloc(m, sizeof *w->cur);
    w->next = calloc(m, sizeof *w->next);
    w->cur_ext = calloc(m, sizeof *w->cur_ext);
    w->kmers = calloc(m, sizeof *w->kmers);
    w->count_sum = calloc(m, sizeof *w->count_sum);
    w->seq = calloc(m, sizeof *w->seq);
    w->cap = calloc(m, sizeof *w->cap);
    w->active = calloc(m, sizeof *w->active);
    if (!w->start || !w->cur || !w->next || !w->cur_ext || !w->kmers || !w->count_sum ||
        !w->seq || !w->cap || !w->active)
        return bcl_set_error(BCL_ERR_NOMEM, "unitig walk: out of memory for %zu walkers", n);
    return BCL_OK;
}

/* walker i starts at oriented s, whose graph-map value is val */
static bcl_status start_walker(bcl_dbg_walk *w, size_t i, uint64_t s, uint64_t val)
{
    bcl_status st = grow_seq(w, i, (size_t)w->k + 64);
    if (st != BCL_OK)
        return st;
    for (int j = 0; j < w->k; j++)
        w->seq[i][j] = BASES[(s >> (2 * (w->k - 1 - j))) & 3];
    w->start[i] = w->cur[i] = s;
    w->cur_ext[i] = (uint8_t)(val >> 32);
    w->kmers[i] = 1;
    w->count_sum[i] = val & 0xFFFFFFFFu;
    w->active[i] = (uint32_t)i;
    return BCL_OK;
}

bcl_status bcl_dbg_walk_init(bcl_dbg_walk *w, int k, const uint64_t *starts,
                             const uint64_t *vals, size_t n, uint64_t limit)
{
    memset(w, 0, sizeof *w);
    if (!bcl_dbg_k_ok(k))
        return bcl_set_error(BCL_ERR_ARG, "k must be odd and in [3, 31], got %d", k);
    if (n > UINT32_MAX)
        return bcl_set_error(BCL_ERR_ARG, "unitig walk: %zu walkers is too many", n);
    w->k = k;
    w->n = n;
    w->limit = limit;
    bcl_status st = alloc_arrays(w, n);
    for (size_t i = 0; st == BCL_OK && i < n; i++)
        st = start_walker(w, i, starts[i], vals[i]);
    if (st != BCL_OK) {
        bcl_dbg_walk_free(w);
        return st;
    }
    w->n_active = n;
    return BCL_OK;
}

void bcl_dbg_walk_free(bcl_dbg_walk *w)
{
    for (size_t i = 0; w->seq && i < w->n; i++)
        free(w->seq[i]);
    BCL_FREE_ALL(w->start, w->cur, w->next, w->cur_ext, w->kmers, w->count_sum, w->seq, w->cap,
                 w->active);
    memset(w, 0, sizeof *w);
}

size_t bcl_dbg_walk_queries(bcl_dbg_walk *w, uint64_t *q)
{
    size_t j = 0;
    uint64_t mask = (UINT64_C(1) << (2 * w->k)) - 1;
    for (size_t a = 0; a < w->n_active; a++) {
        uint32_t i = w->active[a];
        unsigned out = bcl_dbg_out_bits(w->cur[i], w->k, w->cur_ext[i]);
        if (!one_base(out))
            continue;                   /* a branch or a dead end: the walk is over */
        w->next[i] = ((w->cur[i] << 2) | (unsigned)__builtin_ctz(out)) & mask;
        q[j] = bcl_dbg_canon(w->next[i], w->k);
        w->active[j++] = i;             /* compact: kept walkers in query order */
    }
    w->n_active = w->n_asked = j;
    return j;
}

/* Take walker i one step to next[i] (graph-map value val), or end it. */
static bcl_status step(bcl_dbg_walk *w, uint32_t i, uint64_t val, int *going)
{
    int k = w->k;
    uint64_t t = w->next[i], ct = bcl_dbg_canon(t, k);
    unsigned ext = (unsigned)(val >> 32) & 255u;
    *going = 0;
    if (!one_base(bcl_dbg_in_bits(t, k, ext)))
        return BCL_OK;                  /* t has other predecessors: it starts its own unitig */
    if (ct == bcl_dbg_canon(w->cur[i], k) || ct == bcl_dbg_canon(w->start[i], k))
        return BCL_OK;                  /* a hairpin, or back at the start (a cycle) */
    if (w->kmers[i] >= w->limit)
        return bcl_set_error(BCL_ERR_STATE, "unitig walk longer than the graph's %llu k-mers",
                             (unsigned long long)w->limit);
    bcl_status st = grow_seq(w, i, (size_t)k + w->kmers[i]);
    if (st != BCL_OK)
        return st;
    w->seq[i][k - 1 + w->kmers[i]] = BASES[t & 3];
    w->cur[i] = t;
    w->cur_ext[i] = (uint8_t)ext;
    w->kmers[i]++;
    w->count_sum[i] += val & 0xFFFFFFFFu;
    *going = 1;
    return BCL_OK;
}

bcl_status bcl_dbg_walk_advance(bcl_dbg_walk *w, const uint64_t *vals,
                                const unsigned char *found, size_t nq)
{
    if (nq != w->n_asked)
        return bcl_set_error(BCL_ERR_ARG, "unitig walk: %zu results for %zu queries", nq,
                             w->n_asked);
    size_t j = 0;
    for (size_t a = 0; a < nq; a++) {
        uint32_t i = w->active[a];
        if (!found[a])                  /* the current k-mer's bits said it is there */
            return bcl_set_error(BCL_ERR_STATE, "de Bruijn graph: successor of k-mer %llu "
                                 "missing from the map", (unsigned long long)w->cur[i]);
        int going;
        bcl_status st = step(w, i, vals[a], &going);
        if (st != BCL_OK)
            return st;
        if (going)
            w->active[j++] = i;
    }
    w->n_active = j;
    w->n_asked = 0;
    return BCL_OK;
}

int bcl_dbg_walk_keep(const bcl_dbg_walk *w, size_t i)
{
    /* the walk from the other end starts at rc(cur) (single k-mer: at rc(start)) */
    return w->start[i] < bcl_dbg_rc(w->cur[i], w->k);
}

/* Scratch of run(): one round's lookups in hash order (bcl_key_order.h) and
 * their results, put back in the walkers' order for advance(). */
typedef struct {
    uint64_t *q, *sq, *vals, *svals;
    unsigned char *found, *sfound;
    uint32_t *perm;
    size_t *pos;
} run_scratch;

#define ROUND_GROUP_BITS 16     /* at most: a group is then a page or two of a GiB map */
#define ROUND_SORT_MIN 4096     /* fewer lookups than this are asked as they come */

static bcl_status scratch_alloc(run_scratch *r, size_t n)
{
    r->q = malloc(n * sizeof *r->q);
    r->sq = malloc(n * sizeof *r->sq);
    r->vals = malloc(n * sizeof *r->vals);
    r->svals = malloc(n * sizeof *r->svals);
    r->found = malloc(n);
    r->sfound = malloc(n);
    r->perm = malloc(n * sizeof *r->perm);
    r->pos = malloc(((size_t)1 << ROUND_GROUP_BITS) * sizeof *r->pos);
    if (r->q && r->sq && r->vals && r->svals && r->found && r->sfound && r->perm && r->pos)
        return BCL_OK;
    return bcl_set_error(BCL_ERR_NOMEM, "unitig walk: out of memory for %zu lookups", n);
}

static void scratch_free(run_scratch *r)
{
    BCL_FREE_ALL(r->q, r->sq, r->vals, r->svals, r->found, r->sfound, r->perm, r->pos);
}

/* sq: q[0..nq) in hash order, perm[j]: sq[j]'s index in q.  About 4 keys a
 * group: enough to keep consecutive lookups on the same pages. */
static void hash_order(run_scratch *r, size_t nq)
{
    int bits = 1;
    while (bits < ROUND_GROUP_BITS && ((size_t)4 << bits) < nq)
        bits++;
    size_t groups = (size_t)1 << bits;
    memset(r->pos, 0, groups * sizeof *r->pos);
    for (size_t a = 0; a < nq; a++)
        r->pos[bcl_key_hash_group(r->q[a], bits)]++;
    bcl_key_groups_start(r->pos, groups);
    for (size_t a = 0; a < nq; a++) {
        size_t j = r->pos[bcl_key_hash_group(r->q[a], bits)]++;
        r->sq[j] = r->q[a];
        r->perm[j] = (uint32_t)a;
    }
}

/* One round's lookups: in hash order when there are many (a round's keys
 * are spread over the whole map; in hash order consecutive ones share
 * pages, where in the walkers' order each pays a TLB miss). */
static bcl_status find_round(run_scratch *r, size_t nq, bcl_dbg_find_fn find, void *ctx)
{
    if (nq < ROUND_SORT_MIN)
        return find(ctx, r->q, nq, r->vals, r->found);
    hash_order(r, nq);
    bcl_status st = find(ctx, r->sq, nq, r->svals, r->sfound);
    for (size_t j = 0; st == BCL_OK && j < nq; j++) {
        r->vals[r->perm[j]] = r->svals[j];
        r->found[r->perm[j]] = r->sfound[j];
    }
    return st;
}

bcl_status bcl_dbg_walk_run(bcl_dbg_walk *w, bcl_dbg_find_fn find, void *ctx,
                            uint64_t *rounds)
{
    run_scratch r = { 0 };
    /* no round asks more than the first */
    bcl_status st = scratch_alloc(&r, w->n_active ? w->n_active : 1);
    size_t nq;
    *rounds = 0;
    while (st == BCL_OK && (nq = bcl_dbg_walk_queries(w, r.q)) > 0) {
        st = find_round(&r, nq, find, ctx);
        if (st == BCL_OK)
            st = bcl_dbg_walk_advance(w, r.vals, r.found, nq);
        ++*rounds;
    }
    scratch_free(&r);
    return st;
}
