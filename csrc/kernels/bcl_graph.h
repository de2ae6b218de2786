/*
 * bcl_graph.h -- the PageRank app's per-target sums (pybcl.apps.pagerank):
 * the sum of share[source] over each target's edges, in one pass over the
 * edges.
 *
 * The edges come grouped in blocks of `block` consecutive target numbers
 * (block b: edges [bounds[b], bounds[b+1]), edge e into target number
 * b * block + slot[e]) and in ascending order of source within a block, so
 * the reads of `share` go up in address and a block's sums stay in cache:
 * the gather and the scatter-add NumPy does in two passes (an indexed read,
 * then np.bincount with weights), fused.
 */
#ifndef BCL_GRAPH_H
#define BCL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

typedef struct bcl_graph_edges {
    const int64_t *source;      /* per edge: index into share */
    const int64_t *slot;        /* per edge: target number within its block */
    size_t nedges;
    const int64_t *bounds;      /* nblocks + 1 edge offsets, ascending */
    size_t nblocks;
    size_t block;               /* target numbers a block */
} bcl_graph_edges;

/* out[t] (t < ntargets) = the sum of share[source[e]] over the edges into
 * target number t (0 for a target without edges).  Every offset and index
 * is checked as it is used (the values are loaded anyway): returns 0, or
 * -1 with *what naming the first field found out of range and *at its
 * position, out then partly written. */
int bcl_graph_block_sums(const bcl_graph_edges *g, const double *share, size_t nshare,
                         double *out, size_t ntargets, const char **what, size_t *at);

#endif /* BCL_GRAPH_H */
