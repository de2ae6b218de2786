/* bcl_hash.c -- XXH64, written from the xxHash specification (see
 * bcl_hash.h).  Byte loads are explicit little-endian so big-endian hosts
 * produce the same values. */
#include "serial/bcl_hash.h"

static inline uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) |
           ((uint64_t)p[3] << 24) | ((uint64_t)p[4] << 32) |
           ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) |
           ((uint64_t)p[7] << 56);
}

static inline uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
    acc += lane * BCL_XXH_P2;
    acc = bcl_hash_rotl(acc, 31);
    return acc * BCL_XXH_P1;
}

static inline uint64_t xxh_merge(uint64_t h, uint64_t acc)
{
    h ^= xxh_round(0, acc);
    return h * BCL_XXH_P1 + BCL_XXH_P4;
}

/* Inputs of >= 32 bytes: four independent accumulators over 32-byte stripes
 * (the part that makes XXH64 fast: the lanes pipeline in parallel). */
static uint64_t xxh_stripes(const unsigned char **pp, const unsigned char *end,
                            uint64_t seed)
{
    const unsigned char *p = *pp;
    uint64_t v1 = seed + BCL_XXH_P1 + BCL_XXH_P2;
    uint64_t v2 = seed + BCL_XXH_P2;
    uint64_t v3 = seed;
    uint64_t v4 = seed - BCL_XXH_P1;
    uint64_t h;

    do {
        v1 = xxh_round(v1, rd64(p));
        v2 = xxh_round(v2, rd64(p + 8));
        v3 = xxh_round(v3, rd64(p + 16));
        v4 = xxh_round(v4, rd64(p + 24));
        p += 32;
    } while ((size_t)(end - p) >= 32);
    *pp = p;

    h = bcl_hash_rotl(v1, 1) + bcl_hash_rotl(v2, 7) + bcl_hash_rotl(v3, 12) +
        bcl_hash_rotl(v4, 18);
    h = xxh_merge(h, v1);
    h = xxh_merge(h, v2);
    h = xxh_merge(h, v3);
    return xxh_merge(h, v4);
}

uint64_t bcl_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data;
    const unsigned char *end;
    uint64_t h;

    if (len == 0)   /* data may be NULL; NULL + 0 is undefined in C */
        return bcl_hash_avalanche(seed + BCL_XXH_P5);
    end = p + len;

    if (len >= 32)
        h = xxh_stripes(&p, end, seed);
    else
        h = seed + BCL_XXH_P5;
    h += (uint64_t)len;

    /* Tail: 8-byte lanes, then one 4-byte lane, then single bytes. */
    while ((size_t)(end - p) >= 8) {
        h ^= xxh_round(0, rd64(p));
        h = bcl_hash_rotl(h, 27) * BCL_XXH_P1 + BCL_XXH_P4;
        p += 8;
    }
    if ((size_t)(end - p) >= 4) {
        h ^= (uint64_t)rd32(p) * BCL_XXH_P1;
        h = bcl_hash_rotl(h, 23) * BCL_XXH_P2 + BCL_XXH_P3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)(*p) * BCL_XXH_P5;
        h = bcl_hash_rotl(h, 11) * BCL_XXH_P1;
        p++;
    }
    return bcl_hash_avalanche(h);
}
