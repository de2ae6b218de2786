/*
 * bcl_gups.h -- HPCC RandomAccess (GUPS): the update stream and the
 * one-atomic-per-update loop.
 *
 * The stream is HPCC's: a_{k+1} = (a_k << 1) XOR (a_k < 0 as int64 ? POLY : 0)
 * with POLY = 7, a shift register over GF(2) of period PERIOD; the update
 * is T[a & (size - 1)] ^= a.  bcl_gups_starts(n) jumps to the n-th value in
 * O(log n) (HPCC_starts), so rank r starts its U updates at starts(r * U).
 */
#ifndef BCL_GUPS_H
#define BCL_GUPS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

#define BCL_GUPS_POLY 0x0000000000000007ull
#define BCL_GUPS_PERIOD 1317624576693539401ll

/* The stream's n-th value (n may be negative or exceed the period). */
uint64_t bcl_gups_starts(int64_t n);

/* The next n values after *state into out; *state becomes the last one. */
void bcl_gups_stream(uint64_t *state, uint64_t *out, size_t n);

/* The table the updates go to: `size` 64-bit words (a power of two, which
 * the caller checks) that another layer owns -- the app's DArray, reached
 * through pybcl._core's C API.  post_xor posts an atomic XOR of word i; the
 * posted updates are complete at their owners once complete() returns. */
typedef struct bcl_gups_table {
    const void *table;
    uint64_t size;
    bcl_status (*post_xor)(const void *table, uint64_t i, uint64_t value);
    bcl_status (*complete)(void);
} bcl_gups_table;

/* n updates of t, one posted atomic XOR each, continuing the stream from
 * *state; complete at their owners on return.  The first failure of t's
 * functions is returned (their layer holds its message). */
bcl_status bcl_gups_atomic(const bcl_gups_table *t, uint64_t *state, uint64_t n);

#endif /* BCL_GUPS_H */
