/*
 * bcl_kmer_text.h -- k-mer codes as text: arrays of codes decoded in one
 * call, and the k-mer app's "KMER<TAB>COUNT" output lines.
 *
 * No MPI, no Python, no I/O.  Encoding as bcl_kmer.h.
 */
#ifndef BCL_KMER_TEXT_H
#define BCL_KMER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* n codes -> n * k characters 'ACGT' at `out` (no terminators). */
void bcl_kmer_decode_many(const uint64_t *kmers, size_t n, int k, char *out);

/* Bytes bcl_kmer_tsv may write for n lines of k-mers of length k; 0 if
 * that overflows a size_t. */
size_t bcl_kmer_tsv_bound(size_t n, int k);

/* One line "KMER\tCOUNT\n" per (kmers[i], counts[i]) at `out` (of
 * bcl_kmer_tsv_bound bytes; 1 <= k <= 32).  Returns the bytes written. */
size_t bcl_kmer_tsv(const uint64_t *kmers, const int64_t *counts, size_t n, int k, char *out);

#endif /* BCL_KMER_TEXT_H */
