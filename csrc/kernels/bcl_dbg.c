/*
 * bcl_dbg.c -- de Bruijn graph node kernels: strands, the (k-1)-mer
 * overlaps that give each k-mer's extension bits and the siblings whose
 * presence decides where unitigs start (bcl_dbg.h).
 */
#include "kernels/bcl_dbg.h"

#include <stdlib.h>

#include "kernels/bcl_key_order.h"

int bcl_dbg_k_ok(int k)
{
    /* odd: no k-mer is its own reverse complement; <= 31: codes stay < 2^62 */
    return k >= 3 && k <= 31 && (k & 1);
}

static uint64_t kmask(int k)
{
    return (UINT64_C(1) << (2 * k)) - 1;
}

/* bit b of the result = bit 3-b of the nibble */
static unsigned flip4(unsigned x)
{
    return ((x & 1) << 3) | ((x & 2) << 1) | ((x & 4) >> 1) | ((x & 8) >> 3);
}

unsigned bcl_dbg_out_bits(uint64_t s, int k, unsigned ext)
{
    /* on the reverse strand, rc(c)[1:]+b = rc(comp(b)+c[:-1]): a predecessor of c */
    return s == bcl_dbg_canon(s, k) ? (ext & 15u) : flip4((ext >> 4) & 15u);
}

unsigned bcl_dbg_in_bits(uint64_t s, int k, unsigned ext)
{
    return s == bcl_dbg_canon(s, k) ? ((ext >> 4) & 15u) : flip4(ext & 15u);
}

static uint64_t succ(uint64_t s, int k, unsigned b)
{
    return ((s << 2) | b) & kmask(k);
}

static uint64_t pred(uint64_t s, int k, unsigned b)
{
    return ((uint64_t)b << (2 * (k - 1))) | (s >> 2);
}

static bcl_status check_k(int k)
{
    if (!bcl_dbg_k_ok(k))
        return bcl_set_error(BCL_ERR_ARG, "k must be odd and in [3, 31], got %d", k);
    return BCL_OK;
}

/* c[1:] and c[0] of a k-mer */
static uint64_t suffix(uint64_t c, int k)
{
    return c & ((UINT64_C(1) << (2 * (k - 1))) - 1);
}

static unsigned first_base(uint64_t c, int k)
{
    return (unsigned)(c >> (2 * (k - 1)));
}

/* A (k-1)-mer x's mask bit for "x+b" (after) or "b+x" (before), on the
 * strand of its canonical form: on the other strand x+b is comp(b)+rc(x). */
static uint64_t overlap_bit(uint64_t x, int after, unsigned b, int k)
{
    if (bcl_dbg_rc(x, k - 1) < x) {
        after = !after;
        b = 3u - b;
    }
    return UINT64_C(1) << (after ? b : 4u + b);
}

/* k-mer c's prefix c[:-1] (o[0]) and suffix c[1:] (o[1]), canonical, and
 * the bits c sets on them */
static inline void overlap_pair(uint64_t c, int k, uint64_t *o, uint64_t *b)
{
    uint64_t x = c >> 2, y = suffix(c, k);
    o[0] = bcl_dbg_canon(x, k - 1);
    b[0] = overlap_bit(x, 1, (unsigned)(c & 3), k);
    o[1] = bcl_dbg_canon(y, k - 1);
    b[1] = overlap_bit(y, 0, first_base(c, k), k);
}

bcl_status bcl_dbg_overlaps(const uint64_t *keys, size_t n, int k, uint64_t *ov,
                            uint64_t *bit)
{
    bcl_status st = check_k(k);
    if (st != BCL_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        overlap_pair(keys[i], k, ov + 2 * i, bit + 2 * i);
    return BCL_OK;
}

/* The first place of each hash group among keys' 2n (k-1)-mers (a counting
 * sort's starts, bcl_key_order.h), or NULL when out of memory. */
static size_t *overlap_group_starts(const uint64_t *keys, size_t n, int k)
{
    size_t groups = (size_t)1 << BCL_KEY_ORDER_BITS;
    size_t *at = calloc(groups, sizeof *at);
    if (!at)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        at[bcl_key_hash_group(bcl_dbg_canon(keys[i] >> 2, k - 1), BCL_KEY_ORDER_BITS)]++;
        at[bcl_key_hash_group(bcl_dbg_canon(suffix(keys[i], k), k - 1), BCL_KEY_ORDER_BITS)]++;
    }
    bcl_key_groups_start(at, groups);
    return at;
}

/* The place of (k-1)-mer x among the sorted entries: the next in its group.
 * Asked for keys' (k-1)-mers in bcl_dbg_overlaps' order, it gives each the
 * place bcl_dbg_overlaps_by_hash put it in, without storing the places. */
static size_t next_place(size_t *at, uint64_t x)
{
    return at[bcl_key_hash_group(x, BCL_KEY_ORDER_BITS)]++;
}

bcl_status bcl_dbg_overlaps_by_hash(const uint64_t *keys, size_t n, int k, uint64_t *ov,
                                    uint64_t *bit)
{
    bcl_status st = check_k(k);
    if (st != BCL_OK)
        return st;
    size_t *at = overlap_group_starts(keys, n, k);   /* their input computed twice, not stored */
    if (!at)
        return bcl_set_error(BCL_ERR_NOMEM, "overlaps: no memory for their counts");
    for (size_t i = 0; i < n; i++) {
        uint64_t o[2], b[2];
        overlap_pair(keys[i], k, o, b);
        for (int s = 0; s < 2; s++) {
            size_t j = next_place(at, o[s]);
            ov[j] = o[s];
            bit[j] = b[s];
        }
    }
    free(at);
    return BCL_OK;
}

/* The after (bits 0-3) and before (bits 4-7) bases of oriented (k-1)-mer x
 * from its canonical form's mask m. */
static unsigned oriented_mask(uint64_t x, uint64_t m, int k)
{
    unsigned after = (unsigned)m & 15u, before = (unsigned)(m >> 4) & 15u;
    uint64_t r = bcl_dbg_rc(x, k - 1);
    if (r == x) {               /* its own reverse complement: both readings hold */
        unsigned a = after | flip4(before), bf = before | flip4(after);
        after = a;
        before = bf;
    } else if (r < x) {         /* x is the other strand of its canonical form */
        unsigned a = flip4(before);
        before = flip4(after);
        after = a;
    }
    return after | (before << 4);
}

/* the three flags of `bits`' bases other than `skip`, in base order */
static void other_three(unsigned bits, unsigned skip, unsigned char *out)
{
    for (unsigned b = 0; b < 4; b++)
        if (b != skip)
            *out++ = (unsigned char)((bits >> b) & 1u);
}

/* keys c's extension bits and siblings from its prefix's and suffix's masks */
static inline void from_masks(uint64_t c, int k, uint64_t prefix_mask, uint64_t suffix_mask,
                              uint8_t *ext, unsigned char *sib)
{
    unsigned px = oriented_mask(c >> 2, prefix_mask, k);            /* c[:-1] */
    unsigned sy = oriented_mask(suffix(c, k), suffix_mask, k);      /* c[1:] */
    /* successors c[1:]+b: after the suffix; predecessors b+c[:-1]: before the prefix */
    *ext = (uint8_t)((sy & 15u) | (px & 0xF0u));
    other_three(sy >> 4, first_base(c, k), sib);                    /* b+c[1:] */
    other_three(px & 15u, (unsigned)(c & 3), sib + 3);              /* c[:-1]+b */
}

bcl_status bcl_dbg_from_overlaps(const uint64_t *keys, size_t n, int k, const uint64_t *mask,
                                 uint8_t *ext, unsigned char *sib_found)
{
    bcl_status st = check_k(k);
    if (st != BCL_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        from_masks(keys[i], k, mask[2 * i], mask[2 * i + 1], ext + i, sib_found + 6 * i);
    return BCL_OK;
}

bcl_status bcl_dbg_from_overlaps_by_hash(const uint64_t *keys, size_t n, int k,
                                         const uint64_t *swept, uint8_t *ext,
                                         unsigned char *sib_found)
{
    bcl_status st = check_k(k);
    if (st != BCL_OK)
        return st;
    size_t *at = overlap_group_starts(keys, n, k);
    if (!at)
        return bcl_set_error(BCL_ERR_NOMEM, "overlaps: no memory for their counts");
    for (size_t i = 0; i < n; i++) {
        uint64_t o[2], b[2], mask[2];
        overlap_pair(keys[i], k, o, b);
        mask[0] = swept[next_place(at, o[0])];
        mask[1] = swept[next_place(at, o[1])];
        from_masks(keys[i], k, mask[0], mask[1], ext + i, sib_found + 6 * i);
    }
    free(at);
    return BCL_OK;
}

static int popcount4(unsigned x)
{
    return __builtin_popcount(x & 15u);
}

static unsigned only_base(unsigned bits)
{
    return (unsigned)__builtin_ctz(bits);
}

/* Does side `right` of canonical c merge?  sib: its 3 siblings' presence. */
static int merged_local(uint64_t c, unsigned ext, int right, int k, const unsigned char *sib)
{
    unsigned bits = right ? (ext & 15u) : ((ext >> 4) & 15u);
    if (popcount4(bits) != 1 || sib[0] || sib[1] || sib[2])
        return 0;
    uint64_t nb = right ? succ(c, k, only_base(bits)) : pred(c, k, only_base(bits));
    return bcl_dbg_canon(nb, k) != c;           /* a hairpin does not merge */
}

bcl_status bcl_dbg_starts_local(const uint64_t *keys, const uint8_t *ext, size_t n, int k,
                                const unsigned char *sib_found, uint64_t *starts,
                                uint64_t *idx, size_t *m)
{
    bcl_status st = check_k(k);
    if (st != BCL_OK)
        return st;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        int right = merged_local(keys[i], ext[i], 1, k, sib_found + 6 * i);
        int left = merged_local(keys[i], ext[i], 0, k, sib_found + 6 * i + 3);
        if (!left) {                    /* nothing merged on the left: walk forward */
            starts[j] = keys[i];
            idx[j++] = i;
        } else if (!right) {            /* only the right end: walk the other strand */
            starts[j] = bcl_dbg_rc(keys[i], k);
            idx[j++] = i;
        }
    }
    *m = j;
    return BCL_OK;
}
