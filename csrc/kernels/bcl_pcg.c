/*
 * bcl_pcg.c -- PCG32 (pcg-c-basic, Apache-2.0 / MIT, M.E. O'Neill), ISx key
 * generation.
 */
#include "kernels/bcl_pcg.h"

uint32_t bcl_pcg32_next(bcl_pcg32 *rng)
{
    uint64_t oldstate = rng->state;
    rng->state = oldstate * 6364136223846793005ULL + rng->inc;
    uint32_t xorshifted = (uint32_t)(((oldstate >> 18u) ^ oldstate) >> 27u);
    uint32_t rot = (uint32_t)(oldstate >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

void bcl_pcg32_seed(bcl_pcg32 *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0U;
    rng->inc = (initseq << 1u) | 1u;
    bcl_pcg32_next(rng);
    rng->state += initstate;
    bcl_pcg32_next(rng);
}

uint32_t bcl_pcg32_bounded(bcl_pcg32 *rng, uint32_t bound)
{
    uint32_t threshold = -bound % bound;
    for (;;) {
        uint32_t r = bcl_pcg32_next(rng);
        if (r >= threshold)
            return r % bound;
    }
}

void bcl_isx_keys(bcl_pcg32 *rng, uint32_t bound, int32_t *out, size_t n)
{
    if ((bound & (bound - 1)) == 0) {          /* power of two: low bits */
        uint32_t m = bound - 1;
        for (size_t i = 0; i < n; i++)
            out[i] = (int32_t)(bcl_pcg32_next(rng) & m);
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = (int32_t)bcl_pcg32_bounded(rng, bound);
    }
}

void bcl_pcg32_fill(bcl_pcg32 *rng, uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = bcl_pcg32_next(rng);
}

size_t bcl_isx_first_outside(const int32_t *keys, size_t n, uint32_t width, int nbuckets)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i] < 0 || (uint64_t)keys[i] / width >= (uint64_t)nbuckets)
            return i;
    return n;
}

void bcl_isx_bucketize(const int32_t *keys, size_t n, uint32_t width, int nbuckets,
                       int32_t *out, int64_t *counts)
{
    for (int b = 0; b < nbuckets; b++)
        counts[b] = 0;
    for (size_t i = 0; i < n; i++)
        counts[(uint32_t)keys[i] / width]++;
    int64_t pos[nbuckets > 0 ? nbuckets : 1];
    int64_t sum = 0;
    for (int b = 0; b < nbuckets; b++) {
        pos[b] = sum;
        sum += counts[b];
    }
    for (size_t i = 0; i < n; i++)
        out[pos[(uint32_t)keys[i] / width]++] = keys[i];
}

size_t bcl_isx_count(const int32_t *keys, size_t n, int32_t lo, uint32_t width, int32_t *counts)
{
    size_t outside = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t at = (uint32_t)((int64_t)keys[i] - lo);   /* negative -> huge */
        if (at < width)
            counts[at]++;
        else
            outside++;
    }
    return outside;
}
