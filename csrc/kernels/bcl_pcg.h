/*
 * bcl_pcg.h -- PCG32 (pcg32_random_r / pcg32_srandom_r / pcg32_boundedrand_r
 * of the minimal pcg-c library, O'Neill 2014) as the ISx reference uses it,
 * plus ISx's key generator.
 *
 * ISx (make_input): each rank seeds pcg32_srandom_r(&rng, rank, rank) and
 * draws keys[i] = pcg32_boundedrand_r(&rng, MAX_KEY_VAL).  With the default
 * MAX_KEY_VAL = 2^28 the bound divides 2^32, so there is no rejection and a
 * key is the low 28 bits of one 32-bit output.
 */
#ifndef BCL_PCG_H
#define BCL_PCG_H

#include <stddef.h>
#include <stdint.h>

typedef struct bcl_pcg32 {
    uint64_t state;
    uint64_t inc;
} bcl_pcg32;

void bcl_pcg32_seed(bcl_pcg32 *rng, uint64_t initstate, uint64_t initseq);
uint32_t bcl_pcg32_next(bcl_pcg32 *rng);
uint32_t bcl_pcg32_bounded(bcl_pcg32 *rng, uint32_t bound);

/* The next n outputs of bcl_pcg32_next into out. */
void bcl_pcg32_fill(bcl_pcg32 *rng, uint32_t *out, size_t n);

/* n keys in [0, bound) into out (ISx's make_input loop). */
void bcl_isx_keys(bcl_pcg32 *rng, uint32_t bound, int32_t *out, size_t n);

/* ISx's count_local_bucket_sizes + bucketize_local_keys: counts[b] = keys
 * with key / width == b (nbuckets of them; keys must be in range), and out
 * = keys grouped by bucket, in input order within a bucket. */
void bcl_isx_bucketize(const int32_t *keys, size_t n, uint32_t width, int nbuckets,
                       int32_t *out, int64_t *counts);

/* Index of the first key outside [0, width * nbuckets) (what
 * bcl_isx_bucketize needs), or n if there is none. */
size_t bcl_isx_first_outside(const int32_t *keys, size_t n, uint32_t width, int nbuckets);

/* ISx's count_local_keys: counts[key - lo] += 1 for each key (counts has
 * `width` zeroed entries, the rank's key range [lo, lo + width)).  Returns
 * how many keys lay outside that range (not counted; 0 when correct). */
size_t bcl_isx_count(const int32_t *keys, size_t n, int32_t lo, uint32_t width, int32_t *counts);

#endif /* BCL_PCG_H */
