/*
 * docstrings/dbg.h -- docstrings of the contig app's de Bruijn graph kernels
 * (dbg_py.c) and of DbgWalk (dbg_walk_py.c).  Internal to pybcl.apps.contigs;
 * all are local (no communication).  Each BCLPY_ARGS_* name table (for
 * bclpy_parse) stands under its docstring.
 */
#ifndef BCLPY_DOC_DBG_H
#define BCLPY_DOC_DBG_H

#define BCLPY_DOC_DBG_BLOOM_ADD \
    "dbg_bloom_add(bits, keys)\n--\n\n" \
    "Add uint64 keys to a blocked Bloom filter held in bits (a writable uint64 " \
    "array, a power of two of words; filters built on different ranks combine by " \
    "OR)."
#define BCLPY_ARGS_DBG_BLOOM_ADD { "bits", "keys" }

#define BCLPY_DOC_DBG_BLOOM_TEST \
    "dbg_bloom_test(bits, keys)\n--\n\n" \
    "Return a bool array: False where a key was certainly never added to the " \
    "filter, True where it may have been."
#define BCLPY_ARGS_DBG_BLOOM_TEST { "bits", "keys" }

#define BCLPY_DOC_DBG_NEIGHBOURS \
    "dbg_neighbours(keys, k)\n--\n\n" \
    "Return a uint64 array: for each canonical k-mer, the canonical forms of its 4 " \
    "possible successors (c[1:]+b) then its 4 predecessors (b+c[:-1])."
#define BCLPY_ARGS_DBG_NEIGHBOURS { "keys", "k" }

#define BCLPY_DOC_DBG_EXT_BITS \
    "dbg_ext_bits(found)\n--\n\n" \
    "Return a uint8 array of extension bits (bit b: successor b present, bit 4+b: " \
    "predecessor b present) from 8 presence flags per k-mer."
#define BCLPY_ARGS_DBG_EXT_BITS { "found" }

#define BCLPY_DOC_DBG_SIBLINGS \
    "dbg_siblings(keys, k)\n--\n\n" \
    "Return a uint64 array, 6 per canonical k-mer c: b+c[1:] for the 3 bases b " \
    "other than c's first, then c[:-1]+b for the 3 other than its last (canonical " \
    "forms): the k-mers that would share c's successor or predecessor."
#define BCLPY_ARGS_DBG_SIBLINGS { "keys", "k" }

#define BCLPY_DOC_DBG_STARTS_LOCAL \
    "dbg_starts_local(keys, ext, k, sib_found)\n--\n\n" \
    "Return (starts, index): the oriented k-mers unitig walks start from, decided " \
    "from the presence of each key's 6 dbg_siblings (no lookup of the neighbours " \
    "themselves); index: each start's position in keys."
#define BCLPY_ARGS_DBG_STARTS_LOCAL { "keys", "ext", "k", "sib_found" }

#define BCLPY_DOC_DW_QUERIES \
    "queries($self, /)\n--\n\n" \
    "Return a uint64 array of the canonical k-mers the walks still going need next " \
    "(empty when every walk is over); look them up and pass the results to " \
    "advance()."

#define BCLPY_DOC_DW_ADVANCE \
    "advance($self, /, values, found)\n--\n\n" \
    "Take the graph-map values of the last queries, in their order."
#define BCLPY_ARGS_DW_ADVANCE { "values", "found" }

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
