/*
 * bcl_hash.h -- deterministic 64-bit hash for container keys.
 *
 * The algorithm is XXH64 (Yann Collet's xxHash, 64-bit variant, as specified
 * in xxhash_spec.md of the xxHash project), re-implemented here.  Every rank
 * must map a key to the same owner and slot, so the result depends only on
 * the bytes and the seed: input words are read as little-endian explicitly,
 * whatever the host byte order, and nothing depends on the process (no
 * address-based or per-run random seed).
 */
#ifndef BCL_HASH_H
#define BCL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define BCL_XXH_P1 0x9E3779B185EBCA87ULL
#define BCL_XXH_P2 0xC2B2AE3D27D4EB4FULL
#define BCL_XXH_P3 0x165667B19E3779F9ULL
#define BCL_XXH_P4 0x85EBCA77C2B2AE63ULL
#define BCL_XXH_P5 0x27D4EB2F165667C5ULL

/* XXH64 of data[0..len) with `seed`. */
uint64_t bcl_hash64(const void *data, size_t len, uint64_t seed);

static inline uint64_t bcl_hash_rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* splitmix64's finaliser: a cheap bijective mix of one 64-bit key (the
 * k-mer kernels hash their 2-bit-packed k-mers with it). */
static inline uint64_t bcl_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* XXH64's final mix: spreads every input bit over the whole word. */
static inline uint64_t bcl_hash_avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= BCL_XXH_P2;
    h ^= h >> 29;
    h *= BCL_XXH_P3;
    h ^= h >> 32;
    return h;
}

/* Fast path for integer keys: exactly bcl_hash64() of the 8 little-endian
 * bytes of x (XXH64's < 32-byte path with one 8-byte lane), so a uint64 key
 * hashes the same whether it arrives as a number or as bytes. */
static inline uint64_t bcl_hash_u64(uint64_t x, uint64_t seed)
{
    uint64_t k = bcl_hash_rotl(x * BCL_XXH_P2, 31) * BCL_XXH_P1;
    uint64_t h = seed + BCL_XXH_P5 + 8;
    h ^= k;
    h = bcl_hash_rotl(h, 27) * BCL_XXH_P1 + BCL_XXH_P4;
    return bcl_hash_avalanche(h);
}

#endif /* BCL_HASH_H */
