/* bcl_pages.c -- see bcl_pages.h. */
#include "runtime/bcl_pages.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/bcl_runtime.h"

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

/* Is [lo, hi) inside one private anonymous mapping (no file behind it,
 * so MADV_DONTNEED makes it read as zero)?  The last answer is kept: the
 * calls come for ranges of the one segment. */
static int private_anonymous(uintptr_t lo, uintptr_t hi)
{
    static uintptr_t known_lo, known_hi;
    if (lo >= known_lo && hi <= known_hi)
        return 1;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int yes = 0;
    while (f && !yes && fgets(line, sizeof line, f)) {
        unsigned long a, e, off;
        char perms[8], path[256] = "";
        unsigned dmaj, dmin;
        unsigned long inode;
        if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %255s", &a, &e, perms, &off, &dmaj, &dmin,
                   &inode, path) < 7 || lo < a || hi > e)
            continue;
        yes = perms[3] == 'p' && inode == 0 && (path[0] == 0 || !strcmp(path, "[heap]"));
        if (yes) {
            known_lo = a;
            known_hi = e;
        }
        break;
    }
    if (f)
        fclose(f);
    return yes;
}

/* Hand back the whole pages inside [p, p + len) (bcl_pages.h): the range
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
    if (madvise((void *)*lo, *hi - *lo, MADV_REMOVE) == 0)
        return 1;
    return bcl_rt.nprocs == 1 && private_anonymous(*lo, *hi) &&
           madvise((void *)*lo, *hi - *lo, MADV_DONTNEED) == 0;
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
#ifdef MADV_HUGEPAGE
    /* Where the system allows it (THP "madvise" for anonymous or shared
     * memory), ask for huge pages: a table probed at random misses the TLB
     * on nearly every access with 4 KiB pages (measured: a k-mer count's
     * owner-side apply took 1.2-1.3 s of CPU instead of 1.5-1.7 s). */
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    memset(p, 0, lo - (uintptr_t)p);
    memset((void *)hi, 0, (uintptr_t)p + len - hi);
}

void bcl_pages_release(void *p, size_t len)
{
    uintptr_t lo, hi;
    remove_pages(p, len, &lo, &hi);
}
