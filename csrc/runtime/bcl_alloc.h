/*
 * bcl_alloc.h -- the allocator inside this rank's shared segment.
 *
 * Only the owner allocates in its segment, so the allocator is purely local
 * and needs no communication.  Its bookkeeping lives in private memory, never
 * in the segment itself: remote ranks write into the segment, and a stray
 * remote write must not be able to corrupt the heap's metadata.
 *
 * Layout policy:
 *  - every block is a multiple of BCL_ALLOC_GRANULE bytes and at least that
 *    aligned; larger power-of-two alignments are honoured on request;
 *  - free extents are kept sorted by offset and coalesced on insertion;
 *    allocation is first-fit over them;
 *  - small freed blocks first go to exact-size LIFO bins (the churn of
 *    variable-length values re-uses them in O(1)); the bins are merged back
 *    into the extents when a first-fit search fails.
 */
#ifndef BCL_ALLOC_H
#define BCL_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

#define BCL_ALLOC_GRANULE 16u

/* Manage the byte range [begin, end) of the local segment. */
bcl_status bcl_alloc_init(uint64_t begin, uint64_t end);
void bcl_alloc_finalize(void);

/* Allocate `size` bytes (0 is taken as 1) aligned to `align` (a power of two;
 * 0 means the granule).  Returns BCL_ERR_SEGFULL when no extent fits. */
bcl_status bcl_alloc(size_t size, size_t align, uint64_t *offset);

/* Free a block returned by bcl_alloc; BCL_ERR_ARG if `offset` is not the
 * start of a live block. */
bcl_status bcl_free(uint64_t offset);

/* Requested size in bytes of the live block at `offset`; 0 if there is none
 * (a live zero-byte block also reports 0: use bcl_alloc_is_block). */
int bcl_alloc_is_block(uint64_t offset);
size_t bcl_alloc_block_size(uint64_t offset);

/* Bytes currently handed out (for tests and diagnostics). */
size_t bcl_alloc_bytes_in_use(void);

#endif /* BCL_ALLOC_H */
