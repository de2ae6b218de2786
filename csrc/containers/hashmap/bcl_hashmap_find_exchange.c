/* bcl_hashmap_find_exchange.c -- find_many as one collective exchange
 * (bcl_hashmap.h, "Collective lookup").
 *
 * Each rank sends its keys to the rank whose block holds their home
 * bucket; that rank walks the probe sequences in its own memory with plain
 * loads and sends the answers back: two alltoallv per round instead of a
 * one-sided get per probe.  Where every get is a message of its own (RMA
 * over TCP: about 10 us a lookup), this is what makes bulk lookups cheap.
 *
 * Why plain loads are safe: every rank is inside the call while the owners
 * read (an owner reads only after it has received from every rank), so no
 * rank's pybcl call writes the map meanwhile.  A bucket found mid-write
 * anyway (a writer thread), or a probe sequence that leaves the owner's
 * block, is looked up again with the one-sided protocol, so the answer is
 * always the protocol's.
 *
 * On the shm transport every block is mapped already: each rank reads for
 * itself (bcl_hm_find_direct), and a barrier keeps every rank inside until
 * all have read.
 */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcl_exchange.h"

#define ROUND_KEYS ((size_t)1 << 20)   /* keys per rank and round: bounded memory */

/* Keys per rank and round: ROUND_KEYS, or fewer where what one rank may
 * receive from all (P of them) would pass MPI's int counts. */
static size_t round_keys(const bcl_hashmap *m)
{
    size_t per = m->key_size > m->val_size + 1 ? m->key_size : m->val_size + 1;
    size_t fit = (size_t)INT_MAX / ((size_t)bcl_rt.nprocs * per);
    return fit < ROUND_KEYS ? (fit ? fit : 1) : ROUND_KEYS;
}

/* Answer the n keys sent here: ans[i] = found byte, then the value.  redo
 * holds n indices (allocated with the round, so that answering cannot run
 * out of memory half-way). */
static bcl_status answer(const bcl_hashmap *m, const unsigned char *keys, size_t n,
                         unsigned char *ans, size_t *redo)
{
    size_t ks = m->key_size, as = m->val_size + 1, nredo = 0;
    for (size_t i = 0; i < n; i++) {
        /* off shm only this rank's own block is mapped here: a probe
         * sequence that leaves it is the protocol's */
        int r = bcl_hm_find_plain(m, keys + i * ks, bcl_hm_hash(keys + i * ks, ks),
                                  ans + i * as + 1);
        ans[i * as] = r == 1;
        if (r < 0)
            redo[nredo++] = i;
    }
    bcl_status st = BCL_OK;
    for (size_t j = 0; st == BCL_OK && j < nredo; j++) {
        size_t i = redo[j];
        st = bcl_hm_find_many(m, keys + i * ks, 1, ans + i * as + 1, ans + i * as, 0);
    }
    return st;
}

/* One round's buffers, in three blocks: the counts, what this rank sends
 * (and gets back), what it is sent (and answers). */
typedef struct xround {
    uint64_t *cnt, *got, *sendn, *recvn;  /* per rank: keys out / in, bytes */
    size_t *order, *redo;                  /* send slot -> index in the batch */
    unsigned char *out, *in, *ans, *back;  /* keys out / in, answers out / in */
} xround;

/* n indices, then n records of a and n of b bytes, in one block at *idx */
static int carve(size_t n, size_t a, size_t b, size_t **idx, unsigned char **ra,
                 unsigned char **rb)
{
    *idx = malloc(n * (sizeof **idx + a + b) + 1);
    *ra = *idx ? (unsigned char *)(*idx + n) : NULL;
    *rb = *idx ? *ra + n * a : NULL;
    return *idx != NULL;
}

static void xround_free(xround *x)
{
    free(x->cnt);
    free(x->order);
    free(x->redo);
}

static inline uint64_t owner_of(const bcl_hashmap *m, const unsigned char *key)
{
    return bcl_hm_home(m, bcl_hm_hash(key, m->key_size)) / m->block;
}

/* Keys by owner (a counting sort), then the counts to every rank. */
static bcl_status send_plan(const bcl_hashmap *m, const unsigned char *keys, size_t n,
                            xround *x)
{
    int p = bcl_rt.nprocs;
    size_t ks = m->key_size;
    x->cnt = calloc(4 * (size_t)p + 1, sizeof *x->cnt);
    if (!x->cnt || !carve(n, ks, m->val_size + 1, &x->order, &x->out, &x->back))
        return bcl_set_error(BCL_ERR_NOMEM, "find_many: no memory for %zu keys", n);
    x->got = x->cnt + p;
    x->sendn = x->cnt + 2 * p;
    x->recvn = x->cnt + 3 * p;
    /* the owner is computed twice (count, then place): cheaper than
     * writing and reading back an array of owners */
    for (size_t i = 0; i < n; i++)
        x->cnt[owner_of(m, keys + i * ks)]++;
    uint64_t *next = x->sendn;              /* first slot of each owner, then bytes */
    uint64_t at = 0;
    for (int r = 0; r < p; r++) {
        next[r] = at;
        at += x->cnt[r];
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t slot = next[owner_of(m, keys + i * ks)]++;
        x->order[slot] = i;
        memcpy(x->out + slot * ks, keys + i * ks, ks);
    }
    return bcl_alltoall_u64(x->cnt, x->got);
}

#define NO_ANSWER 2        /* the found byte of a key its owner failed to look up */

/* One round: n keys of this rank (n may be 0; every rank takes part).
 * *failed: this rank's first failure (its message is the rank's error):
 * its own lookup, or an owner that could not answer it.  A round starts
 * only if every rank has the memory and none has failed; otherwise every
 * rank returns an error from the same round.  A failure inside a round
 * comes to light in the next round's start, or in the agreement that ends
 * bcl_hm_find_exchange. */
static bcl_status exchange_round(const bcl_hashmap *m, const unsigned char *keys, size_t n,
                                 unsigned char *vals, unsigned char *found, bcl_status *failed)
{
    int p = bcl_rt.nprocs;
    size_t ks = m->key_size, as = m->val_size + 1, nin = 0;
    xround x = { 0 };
    bcl_status st = send_plan(m, keys, n, &x);
    if (st == BCL_OK) {
        for (int r = 0; r < p; r++)
            nin += x.got[r];
        if (!carve(nin, ks, as, &x.redo, &x.in, &x.ans))
            st = bcl_set_error(BCL_ERR_NOMEM, "find_many: no memory for the %zu keys sent "
                               "here", nin);
    }
    if (st != BCL_OK && st != BCL_ERR_NOMEM) {  /* MPI failed: no rank gets further */
        xround_free(&x);
        return st;
    }
    if (st != BCL_OK && *failed == BCL_OK)
        *failed = st;
    int64_t ok = *failed == BCL_OK;
    st = bcl_allreduce(&ok, 1, BCL_I64, BCL_MIN);
    if (st != BCL_OK || !ok) {
        xround_free(&x);
        return st != BCL_OK ? st : BCL_ERR_NOMEM;   /* the caller reports */
    }
    for (int r = 0; r < p; r++) {
        x.sendn[r] = x.cnt[r] * ks;
        x.recvn[r] = x.got[r] * ks;
    }
    st = bcl_alltoallv_known(x.out, x.sendn, x.in, x.recvn);
    if (st == BCL_OK) {
        bcl_status looked = answer(m, x.in, nin, x.ans, x.redo);
        if (looked != BCL_OK) {
            *failed = looked;
            for (size_t i = 0; i < nin; i++)
                x.ans[i * as] = NO_ANSWER;
        }
        for (int r = 0; r < p; r++) {
            x.sendn[r] = x.got[r] * as;
            x.recvn[r] = x.cnt[r] * as;
        }
        st = bcl_alltoallv_known(x.ans, x.sendn, x.back, x.recvn);
    }
    for (size_t slot = 0; st == BCL_OK && slot < n; slot++) {
        size_t i = x.order[slot];
        unsigned char f = x.back[slot * as];
        if (f == NO_ANSWER && *failed == BCL_OK)
            *failed = bcl_set_error(BCL_ERR_NOMEM, "find_many: another rank could not "
                                    "look keys up");
        found[i] = f == 1;
        if (f == 1)
            bcl_hm_copy_slot(vals + i * m->val_size, x.back + slot * as + 1, m->val_size);
    }
    xround_free(&x);
    return st;
}

bcl_status bcl_hm_find_exchange(const bcl_hashmap *m, const void *keys, size_t n, void *vals,
                                unsigned char *found)
{
    if (m->key_var || m->val_var)
        return bcl_set_error(BCL_ERR_ARG, "collective find_many: fixed-size key and value "
                             "types only");
    if (bcl_comm_direct()) {
        bcl_status st = bcl_hm_find_direct(m, keys, n, vals, found);
        int64_t ok = st == BCL_OK;          /* and no rank writes before all have read */
        bcl_status agreed = bcl_allreduce(&ok, 1, BCL_I64, BCL_MIN);
        if (agreed != BCL_OK || st != BCL_OK)
            return agreed != BCL_OK ? agreed : st;
        return ok ? BCL_OK : bcl_set_error(BCL_ERR_NOMEM, "find_many: another rank could "
                                           "not look keys up");
    }
    size_t per = round_keys(m);
    uint64_t rounds = (n + per - 1) / per;
    bcl_status st = bcl_allreduce(&rounds, 1, BCL_U64, BCL_MAX), failed = BCL_OK;
    const unsigned char *kb = keys;
    unsigned char *vb = vals;
    for (uint64_t r = 0; st == BCL_OK && r < rounds; r++) {
        size_t lo = (size_t)r * per < n ? (size_t)r * per : n;
        size_t cnt = n - lo < per ? n - lo : per;
        st = exchange_round(m, kb + lo * m->key_size, cnt, vb + lo * m->val_size,
                            found + lo, &failed);
    }
    if (st != BCL_OK && st != BCL_ERR_NOMEM)    /* MPI itself failed */
        return st;
    /* every rank raises, or none does */
    int64_t all = failed == BCL_OK;
    bcl_status agreed = bcl_allreduce(&all, 1, BCL_I64, BCL_MIN);
    if (agreed != BCL_OK)
        return agreed;
    if (failed != BCL_OK)
        return failed;
    if (!all)
        return bcl_set_error(BCL_ERR_NOMEM, "find_many: another rank could not take part");
    return BCL_OK;
}
