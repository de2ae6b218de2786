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

#include "containers/bcl_array.h"

#define BCL_GUPS_POLY 0x0000000000000007ull
#define BCL_GUPS_PERIOD 1317624576693539401ll

/* The stream's n-th value (n may be negative or exceed the period). */
uint64_t bcl_gups_starts(int64_t n);

/* The next n values after *state into out; *state becomes the last one. */
void bcl_gups_stream(uint64_t *state, uint64_t *out, size_t n);

/* n updates of the uint64 table t (size a power of two), one posted atomic
 * XOR (bcl_atomic_post) each, continuing the stream from *state; complete
 * at their owners on return. */
bcl_status bcl_gups_atomic(const bcl_array *t, uint64_t *state, uint64_t n);

#endif /* BCL_GUPS_H */
