/*
 * bcl_pages.h -- handing whole pages of a mapped range back to the system.
 *
 * A hash map's block is most of a rank's memory.  When a table is replaced
 * (resize) its old block is read once, in order, and never again; a new
 * block must read as zero.  Both are cheaper by the page than by the byte:
 * madvise(MADV_REMOVE) frees the pages of a shared-memory mapping (the shm
 * transport's window is one), which then read as zero and cost nothing
 * until written.  A one-rank job's window is private anonymous memory
 * (MPICH maps no file for it), where madvise(MADV_DONTNEED) does the same;
 * with peers it is never used (a peer's RDMA registration of the pages
 * would go stale).  Where neither applies the calls fall back: zero with
 * memset, release does nothing.  Only the pages wholly inside a range are
 * handed back.
 */
#ifndef BCL_PAGES_H
#define BCL_PAGES_H

#include <stddef.h>

/* Make [p, p + len) read as zero, giving its whole pages back where possible
 * (and asking for transparent huge pages there, where the system allows). */
void bcl_pages_zero(void *p, size_t len);

/* The contents of [p, p + len) are no longer needed: give its whole pages
 * back where possible (else leave them as they are). */
void bcl_pages_release(void *p, size_t len);

#endif /* BCL_PAGES_H */
