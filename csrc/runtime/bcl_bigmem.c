/* bcl_bigmem.c -- see bcl_bigmem.h. */
#include "runtime/bcl_bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* Advise the whole huge pages inside [p, p + bytes); failure only costs
 * speed (a kernel without THP says EINVAL). */
static void *advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p && bytes >= 2 * HUGE_PAGE) {
        uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return p;
}

void bcl_big_advise(void *p, size_t bytes)
{
    (void)advise(p, bytes);
}

void *bcl_big_realloc(void *p, size_t bytes)
{
    return advise(realloc(p, bytes), bytes);
}
