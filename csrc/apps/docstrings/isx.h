/*
 * docstrings/isx.h -- docstrings of the ISx kernels (isx_py.c): PCG32 and
 * ISx's key generation, bucketing and counting for pybcl.apps.isx.
 * Internal to the apps; all are local (no communication).  Each function's
 * BCLPY_ARGS_* name table (for bclpy_parse) stands under its docstring.
 */
#ifndef BCLPY_DOC_ISX_H
#define BCLPY_DOC_ISX_H

#define BCLPY_DOC_ISX_COUNT \
    "isx_count(keys, lo, width)\n--\n\n" \
    "ISx's count_local_keys: return (int32 counts[key - lo] over `width`\n" \
    "entries, number of keys outside [lo, lo + width)) for int32 keys.\n" \
    "Needs 0 <= lo <= 2**31 - 1 and 1 <= width <= 2**31."
#define BCLPY_ARGS_ISX_COUNT { "keys", "lo", "width" }

#define BCLPY_DOC_ISXKEYGEN \
    "IsxKeyGen(rank, max_key=268435456)\n--\n\n" \
    "ISx's key stream of one rank, drawn in pieces: PCG32 seeded (rank, rank),\n" \
    "pcg32_boundedrand_r(max_key), as the ISx reference's make_input."
#define BCLPY_ARGS_ISXKEYGEN { "rank", "max_key" }

#define BCLPY_DOC_IKG_TAKE \
    "take($self, n)\n--\n\n" \
    "Return the next `n` keys of the stream (int32 array)."
#define BCLPY_ARGS_IKG_TAKE { "n" }

#define BCLPY_DOC_ISX_BUCKETIZE \
    "isx_bucketize(keys, width, nbuckets)\n--\n\n" \
    "Return (keys grouped by key // width, counts per bucket) for an int32\n" \
    "key array (ISx's bucket exchange)."
#define BCLPY_ARGS_ISX_BUCKETIZE { "keys", "width", "nbuckets" }

#define BCLPY_DOC_PCG32_OUTPUTS \
    "pcg32_outputs(initstate, initseq, n)\n--\n\n" \
    "Return the first `n` outputs of pcg32_random_r (uint32 array); for\n" \
    "checking against the PCG reference."
#define BCLPY_ARGS_PCG32_OUTPUTS { "initstate", "initseq", "n" }

#define BCLPY_DOC_ISX_KEYS \
    "isx_keys(rank, n, max_key=268435456)\n--\n\n" \
    "Return ISx make_input's `n` keys of `rank` (int32 array)."
#define BCLPY_ARGS_ISX_KEYS { "rank", "n", "max_key" }

#endif /* BCLPY_DOC_ISX_H */
