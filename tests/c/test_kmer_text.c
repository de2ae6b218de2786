/*
 * test_kmer_text.c -- the text kernels of the k-mer app write within the
 * bounds they announce, built with ASan/UBSan by tests/c/test_c_units.py:
 * each output buffer is allocated at exactly its bound, so one byte past it
 * is an ASan error.  No MPI, no Python.
 *
 * Checked: bcl_kmer_tsv at its widest lines (k = 32, INT64_MIN counts) and
 * its exact text; bcl_simulate_reads over 20,000 reads (five-digit read
 * numbers in the headers) and its records' shape; both bounds report
 * overflow as 0 instead of wrapping.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/bcl_kmer_text.h"
#include "kernels/bcl_readsim.h"

static int fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    return 1;
}

static int check_tsv(void)
{
    enum { N = 1000 };
    static uint64_t kmers[N];
    static int64_t counts[N];
    for (size_t i = 0; i < N; i++) {
        kmers[i] = ~(uint64_t)0 - i;            /* all 32 bases used */
        counts[i] = i % 2 ? INT64_MIN : INT64_MAX;
    }
    size_t cap = bcl_kmer_tsv_bound(N, 32);
    char *out = malloc(cap);
    if (!out)
        return fail("malloc");
    size_t n = bcl_kmer_tsv(kmers, counts, N, 32, out);
    int bad = n > cap;
    const char *first = "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT\t9223372036854775807\n";
    bad |= strncmp(out, first, strlen(first)) != 0;
    free(out);
    if (bad)
        return fail("tsv text or length");
    uint64_t one = 27;
    int64_t three = 3;
    char small[32];
    size_t m = bcl_kmer_tsv(&one, &three, 1, 4, small);
    if (m != 7 || memcmp(small, "ACGT\t3\n", 7) != 0)
        return fail("tsv of ACGT");
    if (bcl_kmer_tsv_bound(SIZE_MAX / 8, 32) != 0)
        return fail("tsv bound did not report overflow");
    return 0;
}

static int check_reads(void)
{
    const char genome[] = "ACGTNACGTTGCAAGGCTTACGATCGATCGGATCCA";
    size_t glen = sizeof genome - 1, nreads = 20000, len = glen;
    size_t cap = bcl_readsim_bound(nreads, len);
    char *out = malloc(cap);
    if (!out)
        return fail("malloc");
    size_t n = bcl_simulate_reads(genome, glen, nreads, len, 0.5, 7, out);
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += out[i] == '\n';
    int bad = n > cap || lines != 4 * nreads || memcmp(out, "@sim0:", 6) != 0;
    free(out);
    if (bad)
        return fail("simulated reads: length, line count or header");
    if (bcl_readsim_bound(SIZE_MAX / 4, 100) != 0 || bcl_readsim_bound(1, SIZE_MAX / 2) != 0)
        return fail("reads bound did not report overflow");
    return 0;
}

int main(void)
{
    if (check_tsv() || check_reads())
        return 1;
    printf("ok\n");
    return 0;
}
