/* Two deliberate bugs for the sanitizer pass's self-check.
 *
 * scripts/run_sanitizers.sh copies this file into its scratch copy of the C
 * core only (never into csrc/ of the tree), so the sanitized extension holds
 * them, compiled with the same flags as the rest of the core; nothing in the
 * core calls them.  test_planted_bugs.py calls one through ctypes on one rank, mid-job,
 * and the script checks that the sanitizer reports it and the job fails
 * (rather than passing or hanging). */
#include <stdlib.h>

#define PLANTED __attribute__((visibility("default"), noinline))

/* A heap-buffer-overflow: one byte past an 8-byte allocation (ASan). */
PLANTED int bcl_planted_out_of_bounds_write(void)
{
    volatile char *volatile p = malloc(8);
    if (!p)
        return -1;
    p[8] = 1;
    int first = p[0];
    free((void *)p);
    return first;
}

/* A shift past the width of int (UBSan), for by >= 32.  (Not a signed
 * overflow: Python's own flags, which extensions are built with, include
 * -fwrapv, which defines it.) */
PLANTED int bcl_planted_oversized_shift(int by)
{
    volatile int one = 1;
    return one << by;
}
