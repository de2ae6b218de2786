/*
 * docstrings/graph.h -- docstrings of the PageRank app's kernel
 * (graph_py.c), used by pybcl.apps.pagerank.
 */
#ifndef BCLPY_DOC_GRAPH_H
#define BCLPY_DOC_GRAPH_H

#define BCLPY_DOC_GRAPH_BLOCK_SUMS \
    "graph_block_sums(share, source, slot, bounds, ntargets, block)\n--\n\n" \
    "Per-target sums of share[source] (float64, ntargets of them): block b's\n" \
    "edges are source[bounds[b]:bounds[b+1]], edge e into target number\n" \
    "b * block + slot[e].  source, slot and bounds are int64; an offset or\n" \
    "index out of range raises ValueError naming it."
#define BCLPY_ARGS_GRAPH_BLOCK_SUMS { "share", "source", "slot", "bounds", "ntargets", "block" }

#endif /* BCLPY_DOC_GRAPH_H */
