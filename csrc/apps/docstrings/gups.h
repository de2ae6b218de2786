/*
 * docstrings/gups.h -- docstrings of the GUPS kernels (gups_py.c), used by
 * pybcl.apps.gups.
 */
#ifndef BCLPY_DOC_GUPS_H
#define BCLPY_DOC_GUPS_H

#define BCLPY_DOC_GUPS_STARTS \
    "gups_starts(n)\n--\n\n" \
    "The n-th value of HPCC RandomAccess's update stream (HPCC_starts), as an\n" \
    "int in [0, 2**64)."
#define BCLPY_ARGS_GUPS_STARTS { "n" }

#define BCLPY_DOC_GUPS_STREAM \
    "gups_stream(state, n)\n--\n\n" \
    "The n stream values after `state` (uint64 array) and the new state (the\n" \
    "last value): a_{k+1} = (a_k << 1) ^ (7 if a_k's top bit is set else 0)."
#define BCLPY_ARGS_GUPS_STREAM { "state", "n" }

#define BCLPY_DOC_GUPS_ATOMIC \
    "gups_atomic(table, state, n)\n--\n\n" \
    "n RandomAccess updates table[a & (size-1)] ^= a of a uint64 DArray whose\n" \
    "size is a power of two, continuing the stream from `state`, one posted\n" \
    "atomic XOR per update (complete on return).  Returns the new state."
#define BCLPY_ARGS_GUPS_ATOMIC { "table", "state", "n" }

#endif /* BCLPY_DOC_GUPS_H */
