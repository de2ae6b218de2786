/*
 * bcl_bigmem.h -- private memory for large, short-lived working arrays
 * (HashMapBuffer's waiting lists).
 *
 * Filling hundreds of MB of fresh memory costs one page fault per 4 KiB
 * page -- more than the work done on the bytes.  Asking for transparent
 * huge pages (where the kernel grants them on request, "madvise" mode)
 * makes that one fault per 2 MiB.  A plain realloc() block, so callers
 * free as usual.
 */
#ifndef BCL_BIGMEM_H
#define BCL_BIGMEM_H

#include <stddef.h>

void *bcl_big_realloc(void *p, size_t bytes);
/* Ask for huge pages on [p, p + bytes), e.g. a shared segment (granted
 * where the system allows them for shared memory). */
void bcl_big_advise(void *p, size_t bytes);

#endif /* BCL_BIGMEM_H */
