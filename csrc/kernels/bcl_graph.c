/* bcl_graph.c -- the PageRank app's per-target sums (see bcl_graph.h). */
#include "kernels/bcl_graph.h"

#include <string.h>

/* Block offsets ascending from 0 to nedges, no more blocks than targets. */
static int bounds_ok(const bcl_graph_edges *g, size_t ntargets, size_t *at)
{
    if (g->block == 0 || g->nblocks > (ntargets + g->block - 1) / g->block) {
        *at = g->nblocks;
        return 0;
    }
    for (size_t b = 0; b <= g->nblocks; b++) {
        int64_t lo = b ? g->bounds[b - 1] : 0, v = g->bounds[b];
        if (v < lo || (uint64_t)v > g->nedges || (b == g->nblocks && (uint64_t)v != g->nedges)) {
            *at = b;
            return 0;
        }
    }
    return 1;
}

int bcl_graph_block_sums(const bcl_graph_edges *g, const double *share, size_t nshare,
                         double *out, size_t ntargets, const char **what, size_t *at)
{
    if (!bounds_ok(g, ntargets, at)) {
        *what = "bounds";
        return -1;
    }
    memset(out, 0, ntargets * sizeof *out);
    for (size_t b = 0; b < g->nblocks; b++) {
        size_t first = b * g->block;
        uint64_t span = ntargets - first < g->block ? ntargets - first : g->block;
        double *sums = out + first;
        for (int64_t e = g->bounds[b]; e < g->bounds[b + 1]; e++) {
            uint64_t src = (uint64_t)g->source[e], slot = (uint64_t)g->slot[e];
            if (src >= nshare || slot >= span) {
                *what = src >= nshare ? "source" : "slot";
                *at = (size_t)e;
                return -1;
            }
            sums[slot] += share[src];
        }
    }
    return 0;
}
