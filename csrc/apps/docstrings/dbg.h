/*
 * docstrings/dbg.h -- docstrings of the contig app's de Bruijn graph kernels
 * (dbg_py.c) and of DbgWalk (dbg_walk_py.c).  Internal to pybcl.apps.contigs;
 * all are local (no communication).  Each BCLPY_ARGS_* name table (for
 * bclpy_parse) stands under its docstring.
 */
#ifndef BCLPY_DOC_DBG_H
#define BCLPY_DOC_DBG_H

#define BCLPY_DOC_DBG_OVERLAPS \
    "dbg_overlaps(keys, k)\n--\n\n" \
    "Return (ov, bit), two uint64 arrays, 2 per canonical k-mer c: its prefix c[:-1] " \
    "and suffix c[1:] as canonical (k-1)-mers, and the mask bit c sets on each (bit " \
    "b: x+b is solid, 4+b: b+x is).  Summing the bits per (k-1)-mer over all the " \
    "k-mers gives every (k-1)-mer's overlap mask."
#define BCLPY_ARGS_DBG_OVERLAPS { "keys", "k" }

#define BCLPY_DOC_DBG_OVERLAPS_BY_HASH \
    "dbg_overlaps_by_hash(keys, k)\n--\n\n" \
    "Return (ov, bit): dbg_overlaps' entries in the order of the (k-1)-mers' home " \
    "buckets in any pybcl.HashMap (hash_sort's order, stable)."
#define BCLPY_ARGS_DBG_OVERLAPS_BY_HASH { "keys", "k" }

#define BCLPY_DOC_DBG_FROM_OVERLAPS \
    "dbg_from_overlaps(keys, k, masks)\n--\n\n" \
    "Return (ext, sib_found) from the overlap masks of dbg_overlaps' (k-1)-mers: " \
    "uint8 extension bits per k-mer (bit b: successor c[1:]+b solid, 4+b: " \
    "predecessor b+c[:-1]) and 6 bools per k-mer, the presence of b+c[1:] for the 3 " \
    "bases b other than c's first, then of c[:-1]+b for the 3 other than its last."
#define BCLPY_ARGS_DBG_FROM_OVERLAPS { "keys", "k", "masks" }

#define BCLPY_DOC_DBG_FROM_OVERLAPS_BY_HASH \
    "dbg_from_overlaps_by_hash(keys, k, masks)\n--\n\n" \
    "Return dbg_from_overlaps' (ext, sib_found) from the masks of " \
    "dbg_overlaps_by_hash's (k-1)-mers, in its order (each key's two places found " \
    "again, not stored)."
#define BCLPY_ARGS_DBG_FROM_OVERLAPS_BY_HASH { "keys", "k", "masks" }

#define BCLPY_DOC_DBG_STARTS_LOCAL \
    "dbg_starts_local(keys, ext, k, sib_found)\n--\n\n" \
    "Return (starts, index): the oriented k-mers unitig walks start from, decided " \
    "from ext and the presence of each key's 6 siblings (dbg_from_overlaps); " \
    "index: each start's position in keys."
#define BCLPY_ARGS_DBG_STARTS_LOCAL { "keys", "ext", "k", "sib_found" }

#define BCLPY_DOC_HASH_SORT \
    "hash_sort(keys, values)\n--\n\n" \
    "Return (keys, values): the uint64 keys and their uint64 values in the order of " \
    "the keys' home buckets in any pybcl.HashMap (by the top bits of the map's " \
    "hash; stable).  A large batch asked in that order sweeps the table instead of " \
    "jumping across it."
#define BCLPY_ARGS_HASH_SORT { "keys", "values" }

#define BCLPY_DOC_DW_QUERIES \
    "queries($self, /)\n--\n\n" \
    "Return a uint64 array of the canonical k-mers the walks still going need next " \
    "(empty when every walk is over); look them up and pass the results to " \
    "advance()."

#define BCLPY_DOC_DW_ADVANCE \
    "advance($self, /, values, found)\n--\n\n" \
    "Take the graph-map values of the last queries, in their order."
#define BCLPY_ARGS_DW_ADVANCE { "values", "found" }

#define BCLPY_DOC_DW_RUN \
    "run($self, /, graph)\n--\n\n" \
    "Advance every walk to its end, looking the k-mers up in graph (a HashMap of " \
    "uint64 to uint64) under the find-only promise, one-sided, all in C; return the " \
    "rounds taken.  For a map this process reads directly (shm); elsewhere, " \
    "collective rounds of queries() and advance() exchange the lookups."
#define BCLPY_ARGS_DW_RUN { "graph" }

#define BCLPY_DOC_DW_RESULTS \
    "results($self, /)\n--\n\n" \
    "Return (sequences, kmers, count_sums): the unitigs these walks own (each " \
    "unitig walked from both ends is kept by one of the two)."

#define BCLPY_DOC_DBGWALK \
    "DbgWalk(k, starts, values, limit)\n--\n\n" \
    "Unitig walks from oriented start k-mers (with their graph-map values (ext << " \
    "32) | count), advanced in rounds; a walk longer than limit k-mers is an error."
#define BCLPY_ARGS_DBGWALK { "k", "starts", "values", "limit" }

#endif /* BCLPY_DOC_DBG_H */
