/*
 * bcl_array.h -- block-distributed arrays (BCL's DArray) and arrays hosted
 * on one rank (BCL's Array), plus the collective block allocation that every
 * distributed container built from one block per rank shares.
 *
 * Layout.  A DArray of `size` elements gives rank r the elements
 * [r*block, min(size, (r+1)*block)) with block = ceil(size / nprocs); an
 * Array gives all of them to its host (block = size).  Each rank allocates
 * its block in its own segment (allocation is local-only) and the offsets
 * are exchanged once at creation, so every later access is one-sided:
 * owner(i) = i / block, and element i lives at offsets[owner] + (i % block)
 * * elem_size.  Range accesses are split by owner and the pieces pipelined
 * (_nb get/put, one flush for the whole range).
 *
 * Elements are plain data moved with get/put; a word that ranks update
 * atomically must be read with an atomic load (bcl_comm.h), not a[i].
 */
#ifndef BCL_ARRAY_H
#define BCL_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"

/* Collective.  Every rank allocates `local_bytes` (may differ per rank; 0
 * allocates nothing and gets offset 0) aligned to BCL_SEGMENT_ALIGN, zeroes
 * it, and learns every rank's offset in `offsets` (nprocs entries, caller's
 * memory).  If any rank fails, every rank frees what it got and returns the
 * same status (the failing rank's message on that rank, a message naming it
 * elsewhere), so no rank is left in a later collective. */
bcl_status bcl_block_alloc(size_t local_bytes, uint64_t *offsets);

typedef struct bcl_array {
    uint64_t size;          /* elements                                      */
    size_t elem_size;       /* bytes per element                             */
    uint64_t block;         /* elements per owner                            */
    int host;               /* Array: the host rank; DArray: -1              */
    int nprocs;
    uint64_t *offsets;      /* per rank: start of its block (0 = none)       */
    uint64_t epoch;         /* runtime epoch it was made in (bcl_runtime.h)  */
} bcl_array;

/* Collective constructors.  host in [0, nprocs). */
bcl_status bcl_darray_create(bcl_array *a, uint64_t size, size_t elem_size);
bcl_status bcl_array_create(bcl_array *a, int host, uint64_t size, size_t elem_size);

/* BCL_OK iff the array is usable (created in this runtime epoch). */
bcl_status bcl_array_usable(const bcl_array *a);

/* Frees this rank's block (local; call it on every rank, after the last
 * access by anyone -- e.g. after a barrier).  Safe on a zeroed struct; of an
 * array of an earlier runtime it frees only private memory. */
void bcl_array_destroy(bcl_array *a);

static inline int bcl_array_owner(const bcl_array *a, uint64_t i)
{
    return a->host >= 0 ? a->host : (int)(i / a->block);
}

/* Elements [first, first + count) of this rank's block (count may be 0). */
void bcl_array_local_range(const bcl_array *a, int rank, uint64_t *first,
                           uint64_t *count);

/* Global pointer to element i; BCL_ERR_BOUNDS if i >= size. */
bcl_status bcl_array_ptr(const bcl_array *a, uint64_t i, bcl_gptr *out);

/* Elements [start, start + count) to/from buf, split by owner and pipelined;
 * complete on return.  BCL_ERR_BOUNDS if the range leaves the array. */
bcl_status bcl_array_get(const bcl_array *a, uint64_t start, uint64_t count, void *buf);
bcl_status bcl_array_put(const bcl_array *a, uint64_t start, uint64_t count,
                         const void *buf);

/* Strided: elements start, start+step, ... (count of them; step may be
 * negative), one pipelined access per element, one flush. */
bcl_status bcl_array_get_strided(const bcl_array *a, int64_t start, int64_t step,
                                 uint64_t count, void *buf);
bcl_status bcl_array_put_strided(const bcl_array *a, int64_t start, int64_t step,
                                 uint64_t count, const void *buf);

#endif /* BCL_ARRAY_H */
