/*
 * bcl_kmer_text.c -- see bcl_kmer_text.h.
 */
#include "kernels/bcl_kmer_text.h"

#include <stdio.h>

#include "kernels/bcl_kmer.h"

/* a tab, at most 20 characters of an int64, a newline */
#define COUNT_MAX 22

void bcl_kmer_decode_many(const uint64_t *kmers, size_t n, int k, char *out)
{
    for (size_t i = 0; i < n; i++)
        bcl_kmer_decode(kmers[i], k, out + i * (size_t)k);
}

size_t bcl_kmer_tsv_bound(size_t n, int k)
{
    size_t per = (size_t)k + COUNT_MAX;
    if (n > (SIZE_MAX - 1) / per)
        return 0;
    return n * per + 1;
}

size_t bcl_kmer_tsv(const uint64_t *kmers, const int64_t *counts, size_t n, int k, char *out)
{
    char *w = out;
    for (size_t i = 0; i < n; i++) {
        bcl_kmer_decode(kmers[i], k, w);
        w += k;
        w += sprintf(w, "\t%lld\n", (long long)counts[i]);
    }
    return (size_t)(w - out);
}
