/* bcl_hashmap_sketch.c -- how many buckets a batch of fixed-size keys can
 * fill in this rank's block: what a growing map must know before it applies
 * the batch (bcl_hashmap.h, "sketch").
 *
 * The number of entries overstates it by the repeats (a counter sees most
 * keys many times), so the distinct keys are estimated with a HyperLogLog
 * sketch (serial/bcl_hll.h).
 * The distinct keys overstate it in turn by those the block already holds:
 * a counter's second flush, or a recount of known keys, adds almost none.
 * So the sketch also keeps the keys whose hash has bits 40-49 clear -- one
 * distinct key in 1024, each in or out whatever its number of repeats --
 * and the estimate looks each up in the block: the fraction absent, rounded
 * up by three standard deviations, scales the distinct estimate.  Too few
 * sampled keys (a small batch) or no memory for the sample: no scaling. */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_SHIFT 40u      /* above the HyperLogLog's bits, below the owner's */
#define SAMPLE_MASK 1023u
#define SAMPLE_MIN 32u        /* fewer distinct sampled keys: no scaling */

uint64_t bcl_hm_distinct_bound(const bcl_hll *s, uint64_t n)
{
    if (n < 2 * BCL_HLL_REGISTERS)
        return n;                        /* exact enough: no more than n */
    /* Round up by 5 %, five standard errors: a short estimate only costs a
     * second resize, but it should not happen. */
    uint64_t keys = (uint64_t)(bcl_hll_estimate(s) * 1.05) + 1;
    return keys < n ? keys : n;
}

void bcl_hm_sketch_init(bcl_hm_sketch *s)
{
    memset(s, 0, sizeof *s);
}

void bcl_hm_sketch_free(bcl_hm_sketch *s)
{
    free(s->sample);
    memset(s, 0, sizeof *s);
}

static void sample_key(bcl_hm_sketch *s, const unsigned char *key, uint64_t h)
{
    if (s->nsample == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        bcl_hm_sampled *p = realloc(s->sample, cap * sizeof *p);
        if (!p) {
            s->unsampled = 1;
            return;
        }
        s->sample = p;
        s->cap = cap;
    }
    s->sample[s->nsample].hash = h;
    s->sample[s->nsample++].key = key;
}

void bcl_hm_sketch_add(const bcl_hashmap *m, bcl_hm_sketch *s, const void *keys,
                       size_t kstride, size_t n)
{
    const unsigned char *k = keys;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = bcl_hm_hash(k + i * kstride, m->key_size);
        bcl_hll_add(&s->hll, h);
        if (((h >> SAMPLE_SHIFT) & SAMPLE_MASK) == 0 && !s->unsampled)
            sample_key(s, k + i * kstride, h);
    }
    s->added += n;
}

/* Does this rank's block hold the key?  Plain loads along its probe
 * sequence; 0 also when the sequence leaves the block (counted absent, the
 * safe side). */
static int block_holds(const bcl_hashmap *m, const unsigned char *key, uint64_t h)
{
    uint64_t first = (uint64_t)bcl_rt.rank * m->block, idx;
    bcl_hm_probe p;
    bcl_hm_probe_init(m, &p, h);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        if (idx < first || idx >= first + m->block)
            return 0;
        const unsigned char *b = bcl_hm_local_bucket(m, idx - first);
        uint64_t s = ST(bcl_hm_load_status(b));
        if (s == BCL_HM_FREE)
            return 0;
        if (s == BCL_HM_READY && bcl_hm_same_key(b + 8, key, m->key_size))
            return 1;
    }
    return 0;
}

static int by_hash(const void *a, const void *b)
{
    uint64_t x = ((const bcl_hm_sampled *)a)->hash, y = ((const bcl_hm_sampled *)b)->hash;
    return (x > y) - (x < y);
}

uint64_t bcl_hm_sketch_new_keys(const bcl_hashmap *m, bcl_hm_sketch *s)
{
    uint64_t est = bcl_hm_distinct_bound(&s->hll, s->added);
    if (s->unsampled || !s->nsample)
        return est;
    qsort(s->sample, s->nsample, sizeof *s->sample, by_hash);
    size_t distinct = 0, absent = 0;
    for (size_t i = 0; i < s->nsample; i++) {
        if (i && s->sample[i].hash == s->sample[i - 1].hash)
            continue;                       /* a repeat of the key before */
        distinct++;
        absent += !block_holds(m, s->sample[i].key, s->sample[i].hash);
    }
    if (distinct < SAMPLE_MIN)
        return est;
    double frac = ((double)absent + 3.0 * sqrt((double)absent + 1.0) + 1.0) / (double)distinct;
    return frac >= 1.0 ? est : (uint64_t)ceil((double)est * frac);
}
