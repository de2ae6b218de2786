/*
 * bcl_hll.h -- a HyperLogLog sketch of distinct 64-bit hashes (Flajolet et
 * al. 2007) with 2^14 registers: about 0.8 % standard error.  The hash map
 * sizes a growing map's batch with it (containers/hashmap/bcl_hashmap_sketch.c)
 * and the k-mer reader counts the distinct k-mers it emits (kernels/).
 *
 * A hash picks its register by its low 14 bits and sets it to the position
 * of the lowest set bit among the others: the hash map chooses a key's
 * owner rank by the hash's high bits, so among one owner's keys those are
 * all alike.  Registers are plain bytes: sketches merge by the maximum of
 * each register (an array of BCL_HLL_REGISTERS uint8 on the Python side).
 */
#ifndef BCL_HLL_H
#define BCL_HLL_H

#include <stdint.h>

#define BCL_HLL_BITS 14u
#define BCL_HLL_REGISTERS (1u << BCL_HLL_BITS)

typedef struct bcl_hll {
    uint8_t reg[BCL_HLL_REGISTERS];
} bcl_hll;

/* Count one hash (a well-mixed 64-bit value). */
static inline void bcl_hll_add(bcl_hll *s, uint64_t h)
{
    unsigned j = (unsigned)(h & (BCL_HLL_REGISTERS - 1));
    uint64_t rest = (h >> BCL_HLL_BITS) | (uint64_t)1 << (64 - BCL_HLL_BITS);
    uint8_t rank = (uint8_t)(__builtin_ctzll(rest) + 1);
    if (rank > s->reg[j])
        s->reg[j] = rank;
}

/* The number of distinct hashes counted (linear counting while many
 * registers are empty). */
double bcl_hll_estimate(const bcl_hll *s);

#endif /* BCL_HLL_H */
