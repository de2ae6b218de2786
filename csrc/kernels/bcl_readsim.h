/*
 * bcl_readsim.h -- FASTQ reads simulated from a genome, for the k-mer and
 * contig apps' demos and tests: deterministic (PCG32), so every rank and
 * every run builds the same input without shipping a reads file.
 *
 * No MPI, no Python, no I/O.
 */
#ifndef BCL_READSIM_H
#define BCL_READSIM_H

#include <stddef.h>
#include <stdint.h>

/* Bytes bcl_simulate_reads may write for n_reads reads of `length` bases
 * (the header line is at most 48 bytes); 0 if that overflows a size_t. */
size_t bcl_readsim_bound(size_t n_reads, size_t length);

/* n_reads FASTQ records "@sim<i>:<start>:<strand>", each `length` bases of
 * `genome` from a uniform start on a random strand (minus: reverse
 * complement of ACGT, other letters kept), each base substituted with
 * probability error_rate by one of the other three; quality all 'I'.
 * Needs 1 <= length <= genome_len <= 2**32 and `out` of
 * bcl_readsim_bound bytes.  Returns the bytes written. */
size_t bcl_simulate_reads(const char *genome, size_t genome_len, size_t n_reads, size_t length,
                          double error_rate, uint64_t seed, char *out);

#endif /* BCL_READSIM_H */
