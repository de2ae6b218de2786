/* bcl_bloom.c -- distributed blocked Bloom filter (see bcl_bloom.h). */
#include "containers/bcl_bloom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"
#include "runtime/bcl_pages.h"
#include "containers/bcl_array.h"
#include "comm/bcl_comm_batch.h"

static int usable(const bcl_bloom *b)
{
    return b->offsets && bcl_epoch_current(b->epoch);
}

/* ---- sizing ------------------------------------------------------------- */

#define IMAX 400                 /* keys per block tracked exactly          */

static double g_cover[BCL_BLOOM_KMAX + 1][IMAX + 1];
static int g_ready;

/* g_cover[k][i] = P(a fixed k-subset of the 64 bits is covered after i
 * random k-subsets were OR-ed in) = E[C(S_i, k)] / C(64, k), S_i the number
 * of set bits, which is a Markov chain: from s, a random k-subset sets j new
 * bits with probability C(64-s, j) C(s, k-j) / C(64, k). */
static void compute_cover(void)
{
    static double C[65][65];
    for (int n = 0; n <= 64; n++) {
        C[n][0] = 1.0;
        for (int r = 1; r <= n; r++)
            C[n][r] = C[n - 1][r - 1] + (r <= n - 1 ? C[n - 1][r] : 0.0);
    }
    for (int k = 1; k <= BCL_BLOOM_KMAX; k++) {
        double p[65] = { 0 }, q[65];
        p[0] = 1.0;
        for (int i = 0; i <= IMAX; i++) {
            double cov = 0.0;
            for (int s = k; s <= 64; s++)
                cov += p[s] * C[s][k];
            g_cover[k][i] = cov / C[64][k];
            memset(q, 0, sizeof q);
            for (int s = 0; s <= 64; s++) {
                if (p[s] == 0.0)
                    continue;
                for (int j = 0; j <= k && j <= 64 - s; j++) {
                    if (k - j > s)
                        continue;
                    q[s + j] += p[s] * C[64 - s][j] * C[s][k - j] / C[64][k];
                }
            }
            memcpy(p, q, sizeof p);
        }
    }
    g_ready = 1;
}

double bcl_bloom_predict(double n, double nwords, int k)
{
    if (!g_ready)
        compute_cover();
    if (k < 1 || k > BCL_BLOOM_KMAX || nwords <= 0)
        return 1.0;
    double lambda = n / nwords;
    if (lambda > 300.0)
        return 1.0;
    double pi = exp(-lambda), mass = 0.0, fpr = 0.0;
    for (int i = 0; i <= IMAX; i++) {
        fpr += pi * g_cover[k][i];
        mass += pi;
        pi *= lambda / (double)(i + 1);
    }
    if (mass < 1.0)
        fpr += 1.0 - mass;   /* upper bound for the tail */
    return fpr < 1.0 ? fpr : 1.0;
}

static double best_k(double n, double nwords, int *k_out)
{
    double best = 2.0;
    int bk = 1;
    for (int k = 1; k <= BCL_BLOOM_KMAX; k++) {
        double f = bcl_bloom_predict(n, nwords, k);
        if (f < best) {
            best = f;
            bk = k;
        }
    }
    *k_out = bk;
    return best;
}

bcl_status bcl_bloom_plan(uint64_t n, double fpr, int nprocs, uint64_t *nwords, int *k,
                          double *predicted)
{
    if (nprocs < 1)
        return bcl_set_error(BCL_ERR_ARG, "nprocs must be at least 1, not %d", nprocs);
    if (n == 0)
        return bcl_set_error(BCL_ERR_ARG, "expected_items must be at least 1");
    if (!(fpr > 0.0 && fpr < 1.0))
        return bcl_set_error(BCL_ERR_ARG, "fpr must be in (0, 1), not %g", fpr);
    int kk;
    uint64_t lo = 0, hi = 1;   /* invariant: lo fails (or is 0), hi succeeds */
    while (best_k((double)n, (double)hi, &kk) > fpr) {
        lo = hi;
        if (hi > ((uint64_t)1 << 56))
            return bcl_set_error(BCL_ERR_ARG, "fpr %g is not reachable for %llu "
                                 "items with 64-bit blocks", fpr,
                                 (unsigned long long)n);
        hi *= 2;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (best_k((double)n, (double)mid, &kk) > fpr)
            lo = mid;
        else
            hi = mid;
    }
    *nwords = (hi + (uint64_t)nprocs - 1) / (uint64_t)nprocs * (uint64_t)nprocs;
    *predicted = best_k((double)n, (double)*nwords, k);
    return BCL_OK;
}

/* ---- construction ------------------------------------------------------- */

/* Collective: b->nwords words over the ranks, ceil(nwords / P) each (the
 * last ranks' blocks may hold unused words). */
static bcl_status alloc_words(bcl_bloom *b)
{
    int P = bcl_rt.nprocs;
    b->nprocs = P;
    b->words_per_rank = (b->nwords + (uint64_t)P - 1) / (uint64_t)P;
    b->uneven = b->words_per_rank * (uint64_t)P != b->nwords;
    if (b->words_per_rank > bcl_rt.segment_size / 8u)
        return bcl_set_error(BCL_ERR_SEGFULL, "a Bloom filter for %llu items at fpr "
                             "%g needs %llu bytes per rank, more than the %zu-byte "
                             "segment", (unsigned long long)b->expected_items, b->fpr,
                             (unsigned long long)b->words_per_rank * 8u,
                             bcl_rt.segment_size);
    b->offsets = calloc((size_t)P, sizeof *b->offsets);
    if (!b->offsets)
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for %d offsets", P);
    b->epoch = bcl_rt.epoch;
    bcl_status st = bcl_block_alloc((size_t)b->words_per_rank * 8u, b->offsets);
    if (st != BCL_OK) {
        free(b->offsets);
        b->offsets = NULL;
    }
    return st;
}

bcl_status bcl_bloom_create(bcl_bloom *b, uint64_t expected_items, double fpr)
{
    memset(b, 0, sizeof *b);
    BCL_REQUIRE_INIT();
    bcl_status st = bcl_bloom_plan(expected_items, fpr, bcl_rt.nprocs, &b->nwords, &b->k,
                                   &b->predicted_fpr);
    if (st != BCL_OK)
        return st;
    b->expected_items = expected_items;
    b->fpr = fpr;
    return alloc_words(b);
}

bcl_status bcl_bloom_create_sized(bcl_bloom *b, uint64_t expected_items, double fpr,
                                  uint64_t nwords, int k)
{
    memset(b, 0, sizeof *b);
    BCL_REQUIRE_INIT();
    if (nwords == 0 || k < 1 || k > BCL_BLOOM_KMAX)
        return bcl_set_error(BCL_ERR_ARG, "a Bloom filter of %llu words and k = %d is not "
                             "one pybcl makes", (unsigned long long)nwords, k);
    b->nwords = nwords;
    b->k = k;
    b->predicted_fpr = bcl_bloom_predict((double)expected_items, (double)nwords, k);
    b->expected_items = expected_items;
    b->fpr = fpr;
    return alloc_words(b);
}

void bcl_bloom_destroy(bcl_bloom *b)
{
    if (usable(b)) {
        uint64_t off = b->offsets[bcl_rt.rank];
        if (off && bcl_alloc_is_block(off)) {
            /* a k-mer count's first filter is freed before its map fills */
            bcl_pages_release(bcl_rt.local_base + off, (size_t)b->words_per_rank * 8u);
            bcl_free(off);
        }
    }
    free(b->offsets);
    b->offsets = NULL;
}

/* ---- operations --------------------------------------------------------- */

static bcl_status not_created(void)
{
    return bcl_set_error(BCL_ERR_STATE, "the Bloom filter was not created, or pybcl "
                         "was finalized since");
}


bcl_status bcl_bloom_insert_hash(const bcl_bloom *b, uint64_t h, int *present)
{
    if (!usable(b))
        return not_created();
    uint64_t mask = bcl_bloom_mask(h, b->k), old;
    bcl_gptr w = bcl_bloom_word(b, h);
    if (bcl_comm_direct()) {   /* see shm_chunk */
        old = __atomic_fetch_or((uint64_t *)bcl_local_addr(w), mask, __ATOMIC_SEQ_CST);
        *present = (old & mask) == mask;
        return BCL_OK;
    }
    bcl_status st = bcl_fetch_op(w, 8, BCL_OP_OR, mask, &old);
    *present = (old & mask) == mask;
    return st;
}

bcl_status bcl_bloom_find_hash(const bcl_bloom *b, uint64_t h, int *present)
{
    if (!usable(b))
        return not_created();
    uint64_t mask = bcl_bloom_mask(h, b->k), old;
    bcl_gptr w = bcl_bloom_word(b, h);
    if (bcl_comm_direct()) {
        old = __atomic_load_n((uint64_t *)bcl_local_addr(w), __ATOMIC_SEQ_CST);
        *present = (old & mask) == mask;
        return BCL_OK;
    }
    bcl_status st = bcl_fetch_op(w, 8, BCL_OP_NOOP, 0, &old);
    *present = (old & mask) == mask;
    return st;
}

#define CHUNK 2048

/* shm: every segment is mapped here and bcl_comm's shm atomics are plain
 * CPU atomics, so the batch loop does them inline (same operations, same
 * seq_cst order) instead of one bcl_fetch_op_nb call per key.  The words
 * were range-checked when the filter was created. */
static void shm_chunk(const bcl_bloom *b, uint64_t *const *words, const uint64_t *h,
                      size_t n, uint8_t *present, bcl_atomic_op op)
{
    enum { AHEAD = 16 };
    const int k = b->k;
    uint64_t *addr[AHEAD];
    /* words[r] = rank r's first filter word, mapped here: no branch on the
     * (random) owner; prefetch AHEAD keys ahead, the atomics are latency-bound.
     * An insert whose bits a load finds all set needs no fetch-or: bits are
     * only ever set, by fetch-ors that happened before the load, so the
     * answer ("present") is the one the fetch-or would give, and a filter
     * of a counter's k-mers, seen again and again, skips most locked
     * instructions (each one a full barrier on x86). */
    for (size_t i = 0; i < n + AHEAD; i++) {
        if (i >= AHEAD) {      /* key j = i - AHEAD: its slot is reused below */
            size_t j = i - AHEAD;
            uint64_t mask = bcl_bloom_mask(h[j], k);
            uint64_t *w = addr[j % AHEAD];
            uint64_t old = __atomic_load_n(w, __ATOMIC_SEQ_CST);
            if (op == BCL_OP_OR && (old & mask) != mask)
                old = __atomic_fetch_or(w, mask, __ATOMIC_SEQ_CST);
            present[j] = (old & mask) == mask;
        }
        if (i < n) {
            uint64_t r, l;
            bcl_bloom_place(b, h[i], &r, &l);
            uint64_t *w = words[r] + l;
            __builtin_prefetch(w, 1, 3);
            addr[i % AHEAD] = w;
        }
    }
}

/* Scratch of one batch call (rma path). */
#define TABLE (2 * CHUNK)          /* power of two >= 2 * CHUNK */
typedef struct {
    uint64_t w[CHUNK], mask[CHUNK];        /* per key: global word, bits      */
    uint32_t pend[CHUNK], next[CHUNK];     /* keys still to issue             */
    uint32_t sel[CHUNK], idx[CHUNK];       /* this round; position -> key    */
    uint64_t off[CHUNK], ops[CHUNK], res[CHUNK];   /* per position            */
    uint64_t tkey[TABLE];                  /* words used in the current round */
    uint32_t tstamp[TABLE];
    uint32_t round;
    size_t *count;                         /* nprocs + 1                      */
} rma_scratch;

/* 1 if word w is new in this round (and record it), 0 if already there. */
static int round_claim(rma_scratch *s, uint64_t w)
{
    size_t slot = (size_t)(bcl_hash_avalanche(w) & (TABLE - 1));
    while (s->tstamp[slot] == s->round) {
        if (s->tkey[slot] == w)
            return 0;
        slot = (slot + 1) & (TABLE - 1);
    }
    s->tstamp[slot] = s->round;
    s->tkey[slot] = w;
    return 1;
}

/* rma: one indexed get_accumulate per target rank and round, one flush per
 * chunk.  A word repeated in the chunk goes to a later round (MPI orders
 * the rounds' accumulates on that word), so a batch still behaves like the
 * same operations made one by one. */
static bcl_status rma_chunk(const bcl_bloom *b, const uint64_t *h, size_t n,
                            uint8_t *present, bcl_atomic_op op, rma_scratch *s)
{
    const int P = b->nprocs;
    for (size_t i = 0; i < n; i++) {
        uint64_t r, l;
        bcl_bloom_place(b, h[i], &r, &l);
        s->w[i] = r * b->words_per_rank + l;   /* global word index */
        s->mask[i] = bcl_bloom_mask(h[i], b->k);
        s->pend[i] = (uint32_t)i;
    }
    size_t npend = n, pos = 0;
    bcl_status st = BCL_OK;
    while (npend > 0 && st == BCL_OK) {
        if (++s->round == 0) {           /* stamps wrapped: start afresh */
            memset(s->tstamp, 0, sizeof s->tstamp);
            s->round = 1;
        }
        size_t nsel = 0, nnext = 0;
        for (size_t j = 0; j < npend; j++) {
            uint32_t i = s->pend[j];
            if (round_claim(s, s->w[i]))
                s->sel[nsel++] = i;
            else
                s->next[nnext++] = i;
        }
        /* counting sort of the round's keys by owner rank */
        memset(s->count, 0, (size_t)(P + 1) * sizeof *s->count);
        for (size_t j = 0; j < nsel; j++)
            s->count[s->w[s->sel[j]] / b->words_per_rank + 1]++;
        for (int r = 0; r < P; r++)
            s->count[r + 1] += s->count[r];
        for (size_t j = 0; j < nsel; j++) {
            uint32_t i = s->sel[j];
            uint64_t r = s->w[i] / b->words_per_rank;
            size_t p = pos + s->count[r]++;
            s->idx[p] = i;
            s->off[p] = b->offsets[r] + (s->w[i] - r * b->words_per_rank) * 8u;
            s->ops[p] = op == BCL_OP_OR ? s->mask[i] : 0;
        }
        /* count[r] is now the end of rank r's run */
        size_t begin = 0;
        for (int r = 0; r < P && st == BCL_OK; r++) {
            size_t end = s->count[r];
            if (end > begin)
                st = bcl_fetch_op_indexed_nb(r, s->off + pos + begin, end - begin, op,
                                             s->ops + pos + begin, s->res + pos + begin);
            begin = end;
        }
        pos += nsel;
        memcpy(s->pend, s->next, nnext * sizeof *s->next);
        npend = nnext;
    }
    bcl_status fst = bcl_flush();
    if (st != BCL_OK)
        return st;
    if (fst != BCL_OK)
        return fst;
    for (size_t p = 0; p < n; p++) {
        uint32_t i = s->idx[p];
        present[i] = (s->res[p] & s->mask[i]) == s->mask[i];
    }
    return BCL_OK;
}

static bcl_status many(const bcl_bloom *b, const void *keys, size_t n, size_t keysize,
                       int hashed, uint8_t *present, bcl_atomic_op op)
{
    if (!usable(b))
        return not_created();
    if (n == 0)
        return BCL_OK;
    const int shm = bcl_comm_direct();
    uint64_t *hs = malloc(sizeof(uint64_t) * CHUNK);
    rma_scratch *s = shm ? NULL : calloc(1, sizeof *s);
    size_t *count = shm ? NULL : malloc(sizeof(size_t) * ((size_t)b->nprocs + 1));
    uint64_t **words = shm ? malloc(sizeof(uint64_t *) * (size_t)b->nprocs) : NULL;
    if (!hs || (!shm && (!s || !count)) || (shm && !words)) {
        free(hs);
        free(s);
        free(count);
        free(words);
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for a batch buffer");
    }
    if (s)
        s->count = count;
    for (int r = 0; shm && r < b->nprocs; r++)
        words[r] = bcl_local_addr(bcl_gptr_make(r, b->offsets[r]));
    const unsigned char *kp = keys;
    bcl_status st = BCL_OK;
    for (size_t done = 0; done < n && st == BCL_OK; done += CHUNK) {
        size_t m = n - done < CHUNK ? n - done : CHUNK;
        const uint64_t *h;
        if (hashed) {
            h = (const uint64_t *)keys + done;
        } else {
            const unsigned char *p = kp + done * keysize;
            if (keysize == 8) {
                for (size_t i = 0; i < m; i++) {
                    uint64_t x;
                    memcpy(&x, p + 8 * i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                    x = __builtin_bswap64(x);
#endif
                    hs[i] = bcl_bloom_hash_u64(x);
                }
            } else {
                for (size_t i = 0; i < m; i++)
                    hs[i] = bcl_bloom_hash(p + keysize * i, keysize);
            }
            h = hs;
        }
        if (shm)
            shm_chunk(b, words, h, m, present + done, op);
        else
            st = rma_chunk(b, h, m, present + done, op, s);
    }
    free(hs);
    free(s);
    free(count);
    free(words);
    return st;
}

bcl_status bcl_bloom_insert_many_hashes(const bcl_bloom *b, const uint64_t *h, size_t n,
                                        uint8_t *present)
{
    return many(b, h, n, 8, 1, present, BCL_OP_OR);
}

bcl_status bcl_bloom_find_many_hashes(const bcl_bloom *b, const uint64_t *h, size_t n,
                                      uint8_t *present)
{
    return many(b, h, n, 8, 1, present, BCL_OP_NOOP);
}

bcl_status bcl_bloom_insert_many_keys(const bcl_bloom *b, const void *keys, size_t n,
                                      size_t keysize, uint8_t *present)
{
    return many(b, keys, n, keysize, 0, present, BCL_OP_OR);
}

bcl_status bcl_bloom_find_many_keys(const bcl_bloom *b, const void *keys, size_t n,
                                    size_t keysize, uint8_t *present)
{
    return many(b, keys, n, keysize, 0, present, BCL_OP_NOOP);
}
