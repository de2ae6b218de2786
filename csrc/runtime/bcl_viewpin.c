/* bcl_viewpin.c -- detach local() views at finalize (bcl_viewpin.h). */
#define _GNU_SOURCE
#include "runtime/bcl_viewpin.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000   /* Linux 4.17; older kernels treat it as a hint */
#endif

typedef struct {
    unsigned char *addr;
    size_t len;
    unsigned char *saved;   /* the bytes, between detach_before and _after */
    int used, attached;     /* attached: still points into a live window  */
} pin;

static pin *pins;
static int npins, cap;

int bcl_view_pin(void *addr, size_t len)
{
    for (int i = 0; i < npins; i++)        /* reuse a free slot */
        if (!pins[i].used) {
            pins[i] = (pin){ addr, len, NULL, 1, 1 };
            return i;
        }
    if (npins == cap) {
        int ncap = cap ? 2 * cap : 16;
        pin *p = realloc(pins, (size_t)ncap * sizeof *p);
        if (!p)
            return -1;
        pins = p;
        cap = ncap;
    }
    pins[npins] = (pin){ addr, len, NULL, 1, 1 };
    return npins++;
}

void bcl_view_unpin(int handle)
{
    if (handle >= 0 && handle < npins) {
        free(pins[handle].saved);
        pins[handle] = (pin){ 0 };
    }
}

void bcl_view_detach_before(void)
{
    for (int i = 0; i < npins; i++)
        if (pins[i].used && pins[i].attached && pins[i].len &&
            (pins[i].saved = malloc(pins[i].len)) != NULL)
            memcpy(pins[i].saved, pins[i].addr, pins[i].len);
}

/* Pages this detach mapped itself (another view of the same bytes finds
 * them mapped already: they are still ours to fill). */
static uintptr_t *mine;
static size_t nmine, capmine;

static int is_mine(uintptr_t p)
{
    for (size_t i = 0; i < nmine; i++)
        if (mine[i] == p)
            return 1;
    return 0;
}

static void note_mine(uintptr_t p)
{
    if (nmine == capmine) {
        size_t ncap = capmine ? 2 * capmine : 64;
        uintptr_t *m = realloc(mine, ncap * sizeof *m);
        if (!m)
            return;          /* only a later overlapping view loses its copy */
        mine = m;
        capmine = ncap;
    }
    mine[nmine++] = p;
}

/* Map private memory over [addr, addr+len) where nothing is mapped now;
 * 1 when every page of it is ours (just mapped, here or for an earlier view). */
static int remap(unsigned char *addr, size_t len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)addr & ~(page - 1);
    uintptr_t hi = ((uintptr_t)addr + len + page - 1) & ~(page - 1);
    /* A page still mapped (heap memory on rma) or mapped again by someone
     * else is left alone, and the caller then skips the copy. */
    int all = 1;
    for (uintptr_t p = lo; p < hi; p += page) {
        if (is_mine(p))
            continue;
        void *got = mmap((void *)p, page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (got == (void *)p) {
            note_mine(p);
            continue;
        }
        if (got != MAP_FAILED)          /* an old kernel took it as a hint */
            munmap(got, page);
        all = 0;
    }
    return all;
}

void bcl_view_detach_after(void)
{
    for (int i = 0; i < npins; i++) {
        if (!pins[i].used || !pins[i].attached)
            continue;
        /* Unmapped by the window's free: ours now, with the saved bytes. */
        if (pins[i].saved && remap(pins[i].addr, pins[i].len))
            memcpy(pins[i].addr, pins[i].saved, pins[i].len);
        free(pins[i].saved);
        pins[i].saved = NULL;
        pins[i].attached = 0;
    }
    free(mine);
    mine = NULL;
    nmine = capmine = 0;
}
