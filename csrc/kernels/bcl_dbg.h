/*
 * bcl_dbg.h -- de Bruijn graph kernels of the contig app (unitigs of a set
 * of canonical k-mers, node-centric, both strands, as BCALM 2 defines them).
 *
 * No MPI, no Python: the caller owns the distributed map and hands these
 * functions arrays of k-mers and of lookup results.
 *
 * Encoding: bcl_kmer.h's (A=0 C=1 G=2 T=3, first base most significant).
 * An *oriented* k-mer is the code of one strand's string; its canonical
 * form is min(code, reverse complement).  k is odd, so no k-mer is its own
 * reverse complement and every oriented k-mer has exactly one strand.
 *
 * Extension bits of a canonical k-mer c (one byte): bit b (0..3) set when
 * c[1:]+b is solid (a successor), bit 4+b when b+c[:-1] is solid (a
 * predecessor).  The graph map stores value = (ext << 32) | count.
 *
 * Unitig rule: the edge s -> t is merged when s has one successor (t) and t
 * one predecessor (s), and t is not s's own k-mer (a hairpin: s -> rc(s)).
 * A unitig is a maximal merged path; it starts at an oriented k-mer whose
 * incoming side is not merged.  An isolated cycle has no start; the caller
 * cuts it.
 */
#ifndef BCL_DBG_H
#define BCL_DBG_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

/* inline: the walk and the overlaps call them several times per k-mer */
static inline uint64_t bcl_dbg_rc(uint64_t s, int k)
{
    uint64_t x = ~s;        /* complement: b -> 3 - b */
    /* reverse the 32 two-bit groups of the word */
    x = ((x >> 2) & UINT64_C(0x3333333333333333)) | ((x & UINT64_C(0x3333333333333333)) << 2);
    x = ((x >> 4) & UINT64_C(0x0F0F0F0F0F0F0F0F)) | ((x & UINT64_C(0x0F0F0F0F0F0F0F0F)) << 4);
    x = ((x >> 8) & UINT64_C(0x00FF00FF00FF00FF)) | ((x & UINT64_C(0x00FF00FF00FF00FF)) << 8);
    x = ((x >> 16) & UINT64_C(0x0000FFFF0000FFFF)) | ((x & UINT64_C(0x0000FFFF0000FFFF)) << 16);
    x = (x >> 32) | (x << 32);
    return x >> (64 - 2 * k);
}

static inline uint64_t bcl_dbg_canon(uint64_t s, int k)
{
    uint64_t r = bcl_dbg_rc(s, k);
    return r < s ? r : s;
}

/* successor / predecessor bits (bit b: base b) of oriented s whose canonical
 * k-mer has extension bits ext */
unsigned bcl_dbg_out_bits(uint64_t s, int k, unsigned ext);
unsigned bcl_dbg_in_bits(uint64_t s, int k, unsigned ext);
int bcl_dbg_k_ok(int k);

/* ---- the graph's edges from its (k-1)-mer overlaps ----------------------
 * An edge joins two solid k-mers that overlap by k-1 bases, so the edges
 * at a (k-1)-mer x are known from which bases extend x into a solid k-mer.
 * Overlap mask of a canonical (k-1)-mer x (one byte in a uint64): bit b
 * set when x+b is solid, bit 4+b when b+x is.  Each solid k-mer sets one
 * bit at each of its two (k-1)-mers and no bit is set twice (k is odd, so
 * a k-mer never meets itself), so the masks are sums of distinct bits: an
 * accumulating (adding) map builds them.  k-1 is even, so x may be its own
 * reverse complement; bcl_dbg_from_overlaps reads such masks both ways. */

/* ov[2i], bit[2i]: keys[i]'s prefix c[:-1] and the bit c[k-1] sets on it;
 * ov[2i+1], bit[2i+1]: its suffix c[1:] and the bit c[0] sets (canonical
 * (k-1)-mers, bits as above) */
bcl_status bcl_dbg_overlaps(const uint64_t *keys, size_t n, int k, uint64_t *ov,
                            uint64_t *bit);
/* bcl_dbg_overlaps' 2n entries in the order of their (k-1)-mers' map hash
 * (bcl_key_order.h: a stable counting sort), so that the overlap map's adds
 * and lookups sweep it. */
bcl_status bcl_dbg_overlaps_by_hash(const uint64_t *keys, size_t n, int k, uint64_t *ov,
                                    uint64_t *bit);
/* bcl_dbg_from_overlaps with the masks of bcl_dbg_overlaps_by_hash's ov, in
 * its order (swept[j]: entry j's mask): each key's two places are found
 * again by replaying the sort, so no array of places is kept. */
bcl_status bcl_dbg_from_overlaps_by_hash(const uint64_t *keys, size_t n, int k,
                                         const uint64_t *swept, uint8_t *ext,
                                         unsigned char *sib_found);
/* From the summed masks of bcl_dbg_overlaps' ov (mask[2i], mask[2i+1]):
 * ext[i], keys[i]'s extension bits, and sib_found[6i .. 6i+5], the presence
 * of the k-mers that would share its successor (b+c[1:], the 3 bases b
 * other than c's first, in base order) or its predecessor (c[:-1]+b, the 3
 * other than its last): whether each side of c merges follows from these
 * without looking up the neighbour itself. */
bcl_status bcl_dbg_from_overlaps(const uint64_t *keys, size_t n, int k, const uint64_t *mask,
                                 uint8_t *ext, unsigned char *sib_found);
/* Unitig starts from ext and the siblings' presence: starts[j] (oriented)
 * and idx[j] (its index in keys); *m <= n. */
bcl_status bcl_dbg_starts_local(const uint64_t *keys, const uint8_t *ext, size_t n, int k,
                                const unsigned char *sib_found, uint64_t *starts,
                                uint64_t *idx, size_t *m);

/* ---- walks (bcl_dbg_walk.c) --------------------------------------------- */

typedef struct bcl_dbg_walk {
    int k;
    size_t n;               /* walkers */
    uint64_t limit;         /* k-mers a walk may take before it is an error */
    uint64_t *start, *cur;  /* oriented first and current k-mer */
    uint8_t *cur_ext;       /* extension bits of cur's canonical k-mer */
    uint64_t *next;         /* oriented successor being looked up */
    uint64_t *kmers, *count_sum;
    char **seq;             /* bases so far (k + kmers - 1) */
    size_t *cap;
    uint32_t *active;       /* indices of walkers still going */
    size_t n_active;
    size_t n_asked;         /* walkers of the last query batch (active[0..n_asked)) */
} bcl_dbg_walk;

/* n walkers from starts (oriented) with their graph-map values */
bcl_status bcl_dbg_walk_init(bcl_dbg_walk *w, int k, const uint64_t *starts,
                             const uint64_t *vals, size_t n, uint64_t limit);
void bcl_dbg_walk_free(bcl_dbg_walk *w);
/* The next lookups (canonical), one per walker that can go on; ends the
 * others.  Returns how many (0: every walk is over). q holds >= n entries. */
size_t bcl_dbg_walk_queries(bcl_dbg_walk *w, uint64_t *q);
/* The results of the last queries, in their order. */
bcl_status bcl_dbg_walk_advance(bcl_dbg_walk *w, const uint64_t *vals,
                                const unsigned char *found, size_t nq);
/* Is walker i's unitig the copy to keep?  Each unitig of >= 2 k-mers is
 * walked from both ends; exactly one of the two (the one whose first
 * oriented k-mer is smaller than the other's) is kept. */
int bcl_dbg_walk_keep(const bcl_dbg_walk *w, size_t i);

/* The caller's lookup of n canonical k-mers in the graph map: vals[i] and
 * found[i] for keys[i]. */
typedef bcl_status (*bcl_dbg_find_fn)(void *ctx, const uint64_t *keys, size_t n,
                                      uint64_t *vals, unsigned char *found);
/* Every round of queries, find and advance until no walk goes on, for a
 * caller whose lookups need no other rank's part (a map this process reads
 * directly): one call instead of a call per round.  *rounds: the rounds. */
bcl_status bcl_dbg_walk_run(bcl_dbg_walk *w, bcl_dbg_find_fn find, void *ctx,
                            uint64_t *rounds);

#endif /* BCL_DBG_H */
