/*
 * bcl_kcount.c -- one rank's k-mer count table (see bcl_kcount.h).
 */
#include "kernels/bcl_kcount.h"

#include <stdlib.h>
#include <string.h>

#define LOAD_NUM 7              /* grow past 7/10 full */
#define LOAD_DEN 10
#define PREFETCH_AHEAD 16       /* keys between a prefetch and its use */
#define BLOOM_HASHES 4          /* bits set per k-mer, all in one cache line */
#define FILTER_BATCH 4096

static uint64_t pow2_at_least(uint64_t x)
{
    uint64_t p = 1024;
    while (p < x && p < ((uint64_t)1 << 62))
        p <<= 1;
    return p;
}

static bcl_status alloc_slots(bcl_kcount *t, uint64_t cap)
{
    if (cap > SIZE_MAX / sizeof(bcl_kslot))
        return bcl_set_error(BCL_ERR_NOMEM, "k-mer table of %llu slots does not fit in memory",
                             (unsigned long long)cap);
    bcl_kslot *s = malloc((size_t)cap * sizeof *s);
    if (!s)
        return bcl_set_error(BCL_ERR_NOMEM, "k-mer table: cannot allocate %llu bytes",
                             (unsigned long long)(cap * sizeof *s));
    memset(s, 0xff, (size_t)cap * sizeof *s);          /* every key EMPTY */
    t->slots = s;
    t->cap = cap;
    t->grow_at = cap / LOAD_DEN * LOAD_NUM;
    return BCL_OK;
}

bcl_status bcl_kcount_init(bcl_kcount *t, uint64_t capacity, uint64_t bloom_bits)
{
    memset(t, 0, sizeof *t);
    bcl_status st = alloc_slots(t, pow2_at_least(capacity / LOAD_NUM * LOAD_DEN + 1));
    if (st != BCL_OK)
        return st;
    if (bloom_bits) {
        uint64_t bits = pow2_at_least(bloom_bits < 512 ? 512 : bloom_bits);
        t->bloom = aligned_alloc(64, (size_t)(bits / 8));
        if (!t->bloom) {
            bcl_kcount_free(t);
            return bcl_set_error(BCL_ERR_NOMEM, "k-mer Bloom filter: cannot allocate %llu "
                                 "bytes", (unsigned long long)(bits / 8));
        }
        memset(t->bloom, 0, (size_t)(bits / 8));
        t->bloom_bits = bits;
        t->bloom_hashes = BLOOM_HASHES;
    }
    return BCL_OK;
}

void bcl_kcount_free(bcl_kcount *t)
{
    free(t->slots);
    free(t->bloom);
    memset(t, 0, sizeof *t);
}

uint64_t bcl_kcount_bytes(const bcl_kcount *t)
{
    return t->cap * sizeof(bcl_kslot) + t->bloom_bits / 8;
}

/* One more sighting of a slot's k-mer; a count that would wrap stays at
 * UINT32_MAX and is counted as saturated instead. */
static inline void bump(bcl_kcount *t, bcl_kslot *s)
{
    if (s->count != UINT32_MAX)
        s->count++;
    else
        t->saturated++;
}

/* The one insert: find `key` or its empty slot; the caller made room. */
static inline void insert_one(bcl_kcount *t, uint64_t key, uint64_t mask)
{
    uint64_t i = bcl_mix64(key) & mask;
    for (;;) {
        bcl_kslot *s = &t->slots[i];
        if (s->key == key) {
            bump(t, s);
            return;
        }
        if (s->key == BCL_KCOUNT_EMPTY) {
            s->key = key;
            s->count = 1;
            t->used++;
            return;
        }
        i = (i + 1) & mask;
    }
}

static bcl_status grow(bcl_kcount *t)
{
    bcl_kslot *old = t->slots;
    uint64_t old_cap = t->cap;
    bcl_status st = alloc_slots(t, old_cap * 2);
    if (st != BCL_OK) {
        t->slots = old;
        t->cap = old_cap;
        return st;
    }
    const uint64_t mask = t->cap - 1;
    for (uint64_t i = 0; i < old_cap; i++) {
        if (old[i].key == BCL_KCOUNT_EMPTY)
            continue;
        uint64_t j = bcl_mix64(old[i].key) & mask;
        while (t->slots[j].key != BCL_KCOUNT_EMPTY)
            j = (j + 1) & mask;
        t->slots[j] = old[i];
    }
    free(old);
    t->resizes++;
    return BCL_OK;
}

static bcl_status table_add(bcl_kcount *t, const uint64_t *kmers, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (t->used >= t->grow_at) {
            bcl_status st = grow(t);
            if (st != BCL_OK)
                return st;
        }
        /* as many inserts as can happen before the next possible growth */
        size_t run = (size_t)(t->grow_at - t->used);
        size_t end = n - i < run ? n : i + run;
        const uint64_t mask = t->cap - 1;
        for (; i < end; i++) {
            if (i + PREFETCH_AHEAD < n)
                __builtin_prefetch(&t->slots[bcl_mix64(kmers[i + PREFETCH_AHEAD]) & mask],
                                   1, 1);
            insert_one(t, kmers[i], mask);
        }
    }
    return BCL_OK;
}

/* The filter's cache line and bit positions of a key (independent of the
 * table's hash: a different seed, so owner bits don't narrow it). */
static inline uint64_t *bloom_line(const bcl_kcount *t, uint64_t key, uint64_t *g2)
{
    uint64_t g = bcl_mix64(key ^ 0x9e3779b97f4a7c15ULL);
    *g2 = bcl_mix64(g);
    return t->bloom + (g & (t->bloom_bits / 512 - 1)) * 8;
}

/* Sets the key's bits; 1 if they were all set already (seen before). */
static inline int bloom_test_set(bcl_kcount *t, uint64_t key)
{
    uint64_t g2;
    uint64_t *line = bloom_line(t, key, &g2);
    int seen = 1;
    for (int h = 0; h < t->bloom_hashes; h++, g2 >>= 9) {
        unsigned bit = (unsigned)(g2 & 511);
        uint64_t m = (uint64_t)1 << (bit & 63);
        seen &= (line[bit >> 6] & m) != 0;
        line[bit >> 6] |= m;
    }
    return seen;
}

size_t bcl_kcount_first_reserved(const uint64_t *kmers, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (kmers[i] == BCL_KCOUNT_EMPTY)
            return i;
    return n;
}

bcl_status bcl_kcount_add(bcl_kcount *t, const uint64_t *kmers, size_t n)
{
    t->added += n;
    if (!t->bloom)
        return table_add(t, kmers, n);
    uint64_t again[FILTER_BATCH];
    for (size_t off = 0; off < n; off += FILTER_BATCH) {
        size_t len = n - off < FILTER_BATCH ? n - off : FILTER_BATCH, m = 0;
        const uint64_t *k = kmers + off;
        for (size_t i = 0; i < len; i++) {
            if (i + PREFETCH_AHEAD < len) {
                uint64_t g2;
                __builtin_prefetch(bloom_line(t, k[i + PREFETCH_AHEAD], &g2), 1, 1);
            }
            if (bloom_test_set(t, k[i]))
                again[m++] = k[i];
        }
        bcl_status st = table_add(t, again, m);
        if (st != BCL_OK)
            return st;
    }
    return BCL_OK;
}

void bcl_kcount_count_known(bcl_kcount *t, const uint64_t *kmers, size_t n)
{
    const uint64_t mask = t->cap - 1;
    t->added += n;
    for (size_t i = 0; i < n; i++) {
        if (i + PREFETCH_AHEAD < n)
            __builtin_prefetch(&t->slots[bcl_mix64(kmers[i + PREFETCH_AHEAD]) & mask], 1, 1);
        const uint64_t key = kmers[i];
        for (uint64_t j = bcl_mix64(key) & mask;; j = (j + 1) & mask) {
            bcl_kslot *s = &t->slots[j];
            if (s->key == key) {
                bump(t, s);
                break;
            }
            if (s->key == BCL_KCOUNT_EMPTY)
                break;                        /* not a key of the table: skipped */
        }
    }
}

void bcl_kcount_restart_counts(bcl_kcount *t)
{
    for (uint64_t i = 0; i < t->cap; i++)
        t->slots[i].count = 0;
    free(t->bloom);
    t->bloom = NULL;
    t->bloom_bits = 0;
    t->bloom_hashes = 0;
    t->added = 0;
    t->saturated = 0;
}

void bcl_kcount_export(const bcl_kcount *t, uint64_t *keys, int64_t *counts)
{
    size_t w = 0;
    for (uint64_t i = 0; i < t->cap; i++)
        if (t->slots[i].key != BCL_KCOUNT_EMPTY) {
            keys[w] = t->slots[i].key;
            counts[w++] = t->slots[i].count;
        }
}

uint64_t bcl_kcount_histogram(const bcl_kcount *t, int64_t *hist, size_t hist_len)
{
    uint64_t top = 0;
    for (uint64_t i = 0; i < t->cap; i++) {
        if (t->slots[i].key == BCL_KCOUNT_EMPTY)
            continue;
        uint32_t c = t->slots[i].count;
        if (c > top)
            top = c;
        if (c < hist_len)
            hist[c]++;
    }
    return top;
}

void bcl_kcount_partition(const uint64_t *kmers, size_t n, int nprocs, uint64_t *out,
                          int64_t *counts)
{
    memset(counts, 0, (size_t)nprocs * sizeof *counts);
    if (nprocs == 1) {
        memcpy(out, kmers, n * sizeof *out);
        counts[0] = (int64_t)n;
        return;
    }
    for (size_t i = 0; i < n; i++)
        counts[bcl_kcount_owner(kmers[i], nprocs)]++;
    int64_t *at = malloc((size_t)nprocs * sizeof *at);
    int64_t sum = 0;
    if (!at) {          /* fall back to one scan per owner: slower, same result */
        size_t w = 0;
        for (int r = 0; r < nprocs; r++)
            for (size_t i = 0; i < n; i++)
                if (bcl_kcount_owner(kmers[i], nprocs) == r)
                    out[w++] = kmers[i];
        return;
    }
    for (int r = 0; r < nprocs; r++) {
        at[r] = sum;
        sum += counts[r];
    }
    for (size_t i = 0; i < n; i++)
        out[at[bcl_kcount_owner(kmers[i], nprocs)]++] = kmers[i];
    free(at);
}

/* a before b in the top list: higher count, then smaller key */
static inline int better(uint32_t ca, uint64_t ka, int64_t cb, uint64_t kb)
{
    return (int64_t)ca > cb || ((int64_t)ca == cb && ka < kb);
}

size_t bcl_kcount_top(const bcl_kcount *t, size_t n, uint64_t *keys, int64_t *counts)
{
    size_t have = 0;
    if (n == 0)
        return 0;
    for (uint64_t i = 0; i < t->cap; i++) {
        const bcl_kslot *s = &t->slots[i];
        if (s->key == BCL_KCOUNT_EMPTY)
            continue;
        if (have == n && !better(s->count, s->key, counts[n - 1], keys[n - 1]))
            continue;                                  /* the common case: one compare */
        size_t j = have < n ? have++ : n - 1;          /* insertion into the sorted list */
        while (j > 0 && better(s->count, s->key, counts[j - 1], keys[j - 1])) {
            keys[j] = keys[j - 1];
            counts[j] = counts[j - 1];
            j--;
        }
        keys[j] = s->key;
        counts[j] = s->count;
    }
    return have;
}
