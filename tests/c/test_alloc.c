/*
 * test_alloc.c -- randomized model check of the segment allocator, built with
 * ASan/UBSan by tests/c/test_c_units.py.  No MPI: the allocator is local-only.
 *
 * Invariants checked after every step: live blocks never overlap, stay in
 * range and are aligned; bytes_in_use matches the model; and once everything
 * is freed a single allocation of the whole range succeeds (coalescing works).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"

#define BEGIN 4096u
#define END (BEGIN + (1u << 20))
#define SLOTS 512

typedef struct { uint64_t off, size, rounded; } block;

static block live[SLOTS];
static int nlive;

static int fail(const char *what, unsigned step)
{
    fprintf(stderr, "FAIL at step %u: %s\n", step, what);
    return 1;
}

static uint64_t rounded(uint64_t n) { return ((n ? n : 1) + 15) & ~15ull; }

static int check(unsigned step)
{
    uint64_t in_use = 0;
    for (int i = 0; i < nlive; i++) {
        block a = live[i];
        if (a.off < BEGIN || a.off + a.rounded > END)
            return fail("block out of range", step);
        if (bcl_alloc_block_size(a.off) != a.size || !bcl_alloc_is_block(a.off))
            return fail("block size lookup", step);
        for (int j = i + 1; j < nlive; j++) {
            block b = live[j];
            if (a.off < b.off + b.rounded && b.off < a.off + a.rounded)
                return fail("overlap", step);
        }
        in_use += a.rounded;
    }
    if (in_use != bcl_alloc_bytes_in_use())
        return fail("bytes_in_use disagrees with the model", step);
    return 0;
}

int main(void)
{
    if (bcl_alloc_init(BEGIN, END) != BCL_OK)
        return fail("init", 0);
    srand(12345);
    for (unsigned step = 0; step < 200000; step++) {
        int do_alloc = nlive == 0 || (nlive < SLOTS && rand() % 100 < 55);
        if (do_alloc) {
            uint64_t size = rand() % 4 ? (uint64_t)(rand() % 300) : (uint64_t)(rand() % 20000);
            size_t align = (size_t)16 << (rand() % 4 == 0 ? rand() % 6 : 0);
            uint64_t off;
            bcl_status st = bcl_alloc(size, align, &off);
            if (st == BCL_ERR_SEGFULL)
                continue;
            if (st != BCL_OK)
                return fail(bcl_last_error(), step);
            if (off % align)
                return fail("misaligned block", step);
            memset(&live[nlive], 0, sizeof live[nlive]);
            live[nlive++] = (block){ off, size, rounded(size) };
        } else {
            int i = rand() % nlive;
            if (bcl_free(live[i].off) != BCL_OK)
                return fail("free of a live block", step);
            if (bcl_free(live[i].off) != BCL_ERR_ARG)
                return fail("double free not detected", step);
            live[i] = live[--nlive];
        }
        if (step % 97 == 0 && check(step))
            return 1;
    }
    while (nlive)
        bcl_free(live[--nlive].off);
    uint64_t off;
    if (bcl_alloc(END - BEGIN, 16, &off) != BCL_OK || off != BEGIN)
        return fail("full range not available after freeing everything", 0);
    if (bcl_free(12345) != BCL_ERR_ARG)
        return fail("free of an unknown offset accepted", 0);
    bcl_alloc_finalize();
    printf("allocator model check: ok\n");
    return 0;
}
