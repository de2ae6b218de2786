/* bcl_pages.c -- see bcl_pages.h. */
#include "runtime/bcl_pages.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this a memset is cheaper than a system call. */
#define PAGES_MIN ((size_t)1 << 20)

static size_t page_size(void)
{
    static size_t page;
    if (!page) {
        long v = sysconf(_SC_PAGESIZE);
        page = v > 0 ? (size_t)v : 4096;
    }
    return page;
}

/* madvise(MADV_REMOVE) of the whole pages inside [p, p + len): the range
 * handed back as [*lo, *hi), or 0 if none was. */
static int remove_pages(void *p, size_t len, uintptr_t *lo, uintptr_t *hi)
{
#ifdef MADV_REMOVE
    size_t pg = page_size();
    uintptr_t a = (uintptr_t)p, e = a + len;
    *lo = (a + pg - 1) & ~(uintptr_t)(pg - 1);
    *hi = e & ~(uintptr_t)(pg - 1);
    if (len < PAGES_MIN || *hi <= *lo)
        return 0;
    return madvise((void *)*lo, *hi - *lo, MADV_REMOVE) == 0;
#else
    (void)p, (void)len, (void)lo, (void)hi;
    return 0;
#endif
}

void bcl_pages_zero(void *p, size_t len)
{
    uintptr_t lo, hi;
    if (!remove_pages(p, len, &lo, &hi)) {
        memset(p, 0, len);
        return;
    }
    memset(p, 0, lo - (uintptr_t)p);
    memset((void *)hi, 0, (uintptr_t)p + len - hi);
}

void bcl_pages_release(void *p, size_t len)
{
    uintptr_t lo, hi;
    remove_pages(p, len, &lo, &hi);
}
