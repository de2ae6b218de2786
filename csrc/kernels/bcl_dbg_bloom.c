/*
 * bcl_dbg_bloom.c -- a small replicated Bloom filter of the graph's k-mers.
 *
 * Building the graph asks, for each k-mer, whether each of its 8 possible
 * neighbours is in the graph; about 6 of the 8 are not, and a remote miss
 * costs as much as a hit.  Every rank adds its own k-mers to a filter, the
 * filters are OR-ed together (one allreduce of a few MiB), and only the
 * neighbours the filter does not rule out are looked up in the map: the
 * filter has no false negatives, so the answer is unchanged.
 *
 * Blocked: a key's 4 bits lie in one 64-bit word (one cache line touched).
 */
#include "kernels/bcl_dbg.h"

#include "serial/bcl_hash.h"

/* the word (index < nwords, a power of two) and the 4-bit mask of a key */
static uint64_t key_mask(uint64_t key, uint64_t nwords, uint64_t *word)
{
    uint64_t h = bcl_mix64(key);
    *word = (h >> 24) & (nwords - 1);
    return (UINT64_C(1) << (h & 63)) | (UINT64_C(1) << ((h >> 6) & 63)) |
           (UINT64_C(1) << ((h >> 12) & 63)) | (UINT64_C(1) << ((h >> 18) & 63));
}

static bcl_status check_words(uint64_t nwords)
{
    if (nwords == 0 || (nwords & (nwords - 1)))
        return bcl_set_error(BCL_ERR_ARG, "Bloom filter words must be a power of two, got "
                             "%llu", (unsigned long long)nwords);
    return BCL_OK;
}

bcl_status bcl_dbg_bloom_add(uint64_t *bits, uint64_t nwords, const uint64_t *keys, size_t n)
{
    bcl_status st = check_words(nwords);
    for (size_t i = 0; st == BCL_OK && i < n; i++) {
        uint64_t w, m = key_mask(keys[i], nwords, &w);
        bits[w] |= m;
    }
    return st;
}

bcl_status bcl_dbg_bloom_test(const uint64_t *bits, uint64_t nwords, const uint64_t *keys,
                              size_t n, unsigned char *maybe)
{
    bcl_status st = check_words(nwords);
    for (size_t i = 0; st == BCL_OK && i < n; i++) {
        uint64_t w, m = key_mask(keys[i], nwords, &w);
        maybe[i] = (bits[w] & m) == m;
    }
    return st;
}
