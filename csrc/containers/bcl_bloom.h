/*
 * bcl_bloom.h -- BCL's distributed blocked Bloom filter (paper, 5.4.2).
 *
 * The filter is an array of 64-bit words distributed block-wise over the
 * ranks (words_per_rank words each).  A key's 64-bit hash h picks ONE word
 * (uniformly: bcl_bloom_place) and a pattern of k DISTINCT bits in
 * it (6-bit chunks of a re-mix of h, duplicates skipped).  So:
 *
 *   insert = one fetch_and_or(word, mask); the key was "already present" iff
 *            all k bits were set in the old value.  The OR is one atomic, so
 *            of several ranks inserting the same new key at once exactly one
 *            sees "not present" (the one whose OR came first).
 *   find   = one atomic load (fetch_op NOOP) of the word.
 *
 * Batches (insert_many / find_many) go by chunks of 2048 keys with one
 * flush per chunk.  On rma the chunk is grouped by owner and each owner
 * gets ONE indexed get_accumulate (bcl_comm_batch.h) per round; a word that
 * repeats in the chunk is deferred to a later round, and MPI orders the
 * rounds' atomics on that word, so a batch behaves exactly like the same
 * inserts made one by one.  On shm the CPU atomics are done inline.
 *
 * Sizing (bcl_bloom_plan): the false-positive rate of a blocked filter is
 * the Poisson mixture over the number i of keys that landed in a query's
 * block, FPR = sum_i Pois(i; n/words) * g_k(i), where g_k(i) is the exact
 * probability that i random k-subsets of 64 bits cover a fixed k-subset
 * (computed by a Markov chain over the number of set bits).  The plan takes
 * the fewest words whose best k meets the requested rate.  docs/bloom.md.
 *
 * Hashing: XXH64 (bcl_hash.h) with BCL_BLOOM_SEED over the key's bytes --
 * the raw bytes of a fixed-size key, the msgpack bytes of a variable one.
 */
#ifndef BCL_BLOOM_H
#define BCL_BLOOM_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"
#include "serial/bcl_hash.h"

#define BCL_BLOOM_SEED 0x42106C0FFEE5EEDULL
#define BCL_BLOOM_KMAX 32

typedef struct bcl_bloom {
    uint64_t expected_items;
    double fpr;                 /* requested                                 */
    double predicted_fpr;       /* of the chosen size and k, at expected_items */
    uint64_t nwords;            /* total: words_per_rank * nprocs, or fewer  */
    uint64_t words_per_rank;    /* ceil(nwords / nprocs)                     */
    int uneven;                 /* nwords < words_per_rank * nprocs (a       */
                                /* filter loaded at another rank count)      */
    int k;
    int nprocs;
    uint64_t *offsets;          /* per rank: start of its words              */
    uint64_t epoch;             /* runtime epoch it was made in: a filter    */
                                /* outliving finalize() is never used again  */
} bcl_bloom;

/* Predicted false-positive rate of n keys in `nwords` 64-bit blocks with k
 * bits per key (1 <= k <= BCL_BLOOM_KMAX). */
double bcl_bloom_predict(double n, double nwords, int k);

/* The filter a job of `nprocs` ranks makes for n keys at rate fpr: the
 * fewest words giving a predicted rate <= fpr, rounded up to whole words
 * per rank, and the best k for that many (more words never hurt).
 * BCL_ERR_ARG for n == 0, fpr outside (0, 1), or an unreachable rate. */
bcl_status bcl_bloom_plan(uint64_t n, double fpr, int nprocs, uint64_t *nwords, int *k,
                          double *predicted);

/* Collective: plan, round the word count up to a multiple of nprocs,
 * allocate and zero every rank's words. */
bcl_status bcl_bloom_create(bcl_bloom *b, uint64_t expected_items, double fpr);
/* Collective: exactly `nwords` words and k bits a key, spread over the
 * ranks as evenly as they divide (a filter loaded from a file saved at
 * another rank count: each key keeps its word, bcl_bloom_place). */
bcl_status bcl_bloom_create_sized(bcl_bloom *b, uint64_t expected_items, double fpr,
                                  uint64_t nwords, int k);
/* Frees this rank's words (local; see bcl_array_destroy). */
void bcl_bloom_destroy(bcl_bloom *b);

static inline uint64_t bcl_bloom_hash(const void *key, size_t len)
{
    return bcl_hash64(key, len, BCL_BLOOM_SEED);
}

/* == bcl_bloom_hash of the 8 little-endian bytes of x. */
static inline uint64_t bcl_bloom_hash_u64(uint64_t x)
{
    return bcl_hash_u64(x, BCL_BLOOM_SEED);
}

/* The k-bit pattern of hash h (uint64_t shifts only). */
static inline uint64_t bcl_bloom_mask(uint64_t h, int k)
{
    uint64_t x = bcl_hash_avalanche(h ^ 0x9E3779B97F4A7C15ULL);
    uint64_t mask = 0;
    int got = 0, left = 10;
    while (got < k) {
        if (left == 0) {
            x = bcl_hash_avalanche(x + BCL_XXH_P5);
            left = 10;
        }
        uint64_t bit = (uint64_t)1 << (x & 63u);
        x >>= 6;
        left--;
        if (!(mask & bit)) {
            mask |= bit;
            got++;
        }
    }
    return mask;
}

/* Owner rank and word index in the owner's block of hash h: the global
 * word floor(h * nwords / 2^64), so a key's word depends on nwords only,
 * never on the rank count.  When the words divide evenly over the ranks
 * that is h read as a fraction in [0, 1) and split in mixed radix (nprocs,
 * words_per_rank) with two multiply-highs -- exactly the same word, without
 * a 64-bit division on the hot path; a filter whose words do not divide
 * (loaded at another rank count) divides. */
static inline void bcl_bloom_place(const bcl_bloom *b, uint64_t h, uint64_t *rank,
                                   uint64_t *local)
{
    if (b->uneven) {
        uint64_t g = (uint64_t)(((unsigned __int128)h * b->nwords) >> 64);
        *rank = g / b->words_per_rank;
        *local = g - *rank * b->words_per_rank;
        return;
    }
    unsigned __int128 x = (unsigned __int128)h * (uint64_t)b->nprocs;
    *rank = (uint64_t)(x >> 64);
    *local = (uint64_t)(((unsigned __int128)(uint64_t)x * b->words_per_rank) >> 64);
}
/* Word of hash h, as a global pointer. */
static inline bcl_gptr bcl_bloom_word(const bcl_bloom *b, uint64_t h)
{
    uint64_t r, l;
    bcl_bloom_place(b, h, &r, &l);
    return bcl_gptr_make((int)r, b->offsets[r] + l * 8u);
}

/* Single operations on a key's hash; *present = all k bits were set. */
bcl_status bcl_bloom_insert_hash(const bcl_bloom *b, uint64_t h, int *present);
bcl_status bcl_bloom_find_hash(const bcl_bloom *b, uint64_t h, int *present);

/* Batches over hashes: present[i] = 0/1.  Pipelined, complete on return. */
bcl_status bcl_bloom_insert_many_hashes(const bcl_bloom *b, const uint64_t *h, size_t n,
                                        uint8_t *present);
bcl_status bcl_bloom_find_many_hashes(const bcl_bloom *b, const uint64_t *h, size_t n,
                                      uint8_t *present);

/* Batches over n fixed-size keys of keysize bytes each, packed at `keys`
 * (hashed here, chunk by chunk). */
bcl_status bcl_bloom_insert_many_keys(const bcl_bloom *b, const void *keys, size_t n,
                                      size_t keysize, uint8_t *present);
bcl_status bcl_bloom_find_many_keys(const bcl_bloom *b, const void *keys, size_t n,
                                    size_t keysize, uint8_t *present);

#endif /* BCL_BLOOM_H */
