/* bcl_hashmap_bulk.c -- applying many entries to this rank's own block at
 * once: HashMapBuffer's owner-side kernel (bcl_hashmap.h, "Bulk apply").
 *
 * A random key's home bucket is a cache miss in a table of hundreds of MB.
 * The apply hashes entries a fixed distance ahead and prefetches their
 * home buckets, so that many misses are in flight while the entry at hand
 * is applied, and settles the common cases -- the home bucket holds the
 * key, or is free -- inline; anything else (a collision, a tombstone, a
 * full block, an overflow) goes through bcl_hm_apply_local.  Entries go in
 * order, each with bcl_hm_apply_local's outcome: the map ends as if they
 * had been applied one by one.  (Partitioning a batch by home first, to
 * keep the misses in a few pages, measured no faster here.)
 *
 * A growing map must know beforehand how many keys an apply may add.  The
 * number of entries overstates it by the repeats (a counter sees most keys
 * many times), so the distinct keys are estimated with a HyperLogLog
 * sketch (Flajolet et al. 2007; 2^14 registers: about 1 % standard error),
 * which reads only the keys. */
#include "containers/bcl_hashmap_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PREFETCH_AHEAD 32u     /* entries between a prefetch and its use */

void bcl_hll_add(bcl_hll *s, uint64_t h)
{
    /* Low bits: the high ones say which rank owns the key, so among one
     * owner's entries they are all alike. */
    unsigned j = (unsigned)(h & (BCL_HLL_REGISTERS - 1));
    uint64_t rest = (h >> BCL_HLL_BITS) | (uint64_t)1 << 40;
    unsigned char rank = (unsigned char)(__builtin_ctzll(rest) + 1);
    if (rank > s->reg[j])
        s->reg[j] = rank;
}

uint64_t bcl_hll_estimate(const bcl_hll *s, uint64_t n)
{
    double sum = 0;
    unsigned zeros = 0;
    for (unsigned j = 0; j < BCL_HLL_REGISTERS; j++) {
        sum += ldexp(1.0, -s->reg[j]);
        zeros += s->reg[j] == 0;
    }
    double regs = BCL_HLL_REGISTERS, est = 0.7213 / (1 + 1.079 / regs) * regs * regs / sum;
    if (est <= 2.5 * regs && zeros)
        est = regs * log(regs / zeros);  /* small range: linear counting */
    /* Round up by 5 %, five standard errors: a short estimate only costs a
     * second resize, but it should not happen. */
    uint64_t keys = (uint64_t)(est * 1.05) + 1;
    return keys < n ? keys : n;
}

uint64_t bcl_hm_estimate_keys(const bcl_hashmap *m, const void *entries, size_t n,
                              size_t estride)
{
    if (n < 2 * BCL_HLL_REGISTERS)
        return n;                        /* exact enough: no more than n */
    bcl_hll s;
    memset(&s, 0, sizeof s);
    const unsigned char *e = entries;
    for (size_t i = 0; i < n; i++)
        bcl_hll_add(&s, bcl_hm_hash(e + i * estride, m->key_size));
    return bcl_hll_estimate(&s, n);
}

/* Home bucket of hash h, counted from the start of this rank's block
 * (>= block: homed elsewhere). */
static uint64_t local_home(const bcl_hashmap *m, uint64_t h)
{
    uint64_t home = (uint64_t)(((unsigned __int128)h * m->n) >> 64);
    return home - (uint64_t)bcl_rt.rank * m->block;
}

/* The home bucket alone, for an 8-byte key and a value that is replaced or
 * is a signed 64-bit sum: 1 if that settled the entry. */
static int apply_at_home(const bcl_hashmap *m, uint64_t home, const unsigned char *x, int acc)
{
    unsigned char *b = bcl_hm_local_bucket(m, home);
    uint64_t s = ST(bcl_hm_load_status(b));
    if (s == BCL_HM_FREE) {
        bcl_hm_key k = { x, 8, 0 };
        bcl_hm_local_store(m, b, &k, x + 8);
        return 1;
    }
    if (s != BCL_HM_READY || !bcl_hm_same_key(b + 8, x, 8))
        return 0;
    if (!acc) {
        memcpy(b + m->val_off, x + 8, m->val_size);
        return 1;
    }
    int64_t v, d;
    memcpy(&v, b + m->val_off, 8);
    memcpy(&d, x + 8, 8);
    if (__builtin_add_overflow(v, d, &v))
        return 0;                        /* the general path reports it */
    memcpy(b + m->val_off, &v, 8);
    return 1;
}

bcl_status bcl_hm_apply_many_local(const bcl_hashmap *m, const void *entries, size_t n,
                                   size_t estride, int grow, int *refusing,
                                   bcl_hm_bulk_fn fn, void *ctx)
{
    const unsigned char *e = entries;
    size_t op_at = m->key_size + m->val_size;
    int fast = m->key_size == 8 && m->val_size == 8 && m->num == BCL_HM_NUM_INT;
    uint64_t ring[PREFETCH_AHEAD];
    for (size_t i = 0; i < n && i < PREFETCH_AHEAD; i++)
        ring[i] = bcl_hm_hash(e + i * estride, m->key_size);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *x = e + i * estride;
        uint64_t h = ring[i % PREFETCH_AHEAD], home = local_home(m, h);
        if (i + PREFETCH_AHEAD < n) {
            uint64_t ahead = bcl_hm_hash(x + PREFETCH_AHEAD * estride, m->key_size);
            uint64_t at = local_home(m, ahead);
            ring[i % PREFETCH_AHEAD] = ahead;
            if (at < m->block)
                __builtin_prefetch(bcl_hm_local_bucket(m, at), 1);
        }
        if (fast && !*refusing && home < m->block && apply_at_home(m, home, x, x[op_at]))
            continue;
        bcl_hm_key k = { x, m->key_size, h };
        int spilled = 0;
        bcl_status st = *refusing ? BCL_ERR_FULL
                                  : bcl_hm_apply_local(m, &k, x + m->key_size, x[op_at],
                                                       &spilled);
        if (st == BCL_OK && !spilled)
            continue;
        if (st == BCL_ERR_FULL && grow)
            *refusing = 1;     /* grown before the next try: stop probing */
        if (st != BCL_OK && st != BCL_ERR_FULL && st != BCL_ERR_OVERFLOW)
            return st;
        if ((st = fn(ctx, x, st, spilled)) != BCL_OK)
            return st;
    }
    return BCL_OK;
}
