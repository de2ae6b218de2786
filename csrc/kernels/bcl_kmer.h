/*
 * bcl_kmer.h -- streaming FASTA/FASTQ parser and canonical k-mer extractor.
 *
 * No MPI, no Python, no I/O: the caller feeds bytes in chunks of any size
 * (records, lines and k-mers may span chunk boundaries) and receives the
 * canonical 2-bit k-mers that end in that chunk.
 *
 * Encoding (as Jellyfish): A=0 C=1 G=2 T=3, first base in the most
 * significant bits, k <= 32 bases in the low 2k bits of a uint64.  The
 * canonical form of a k-mer is min(encoding, encoding of its reverse
 * complement).  Lowercase bases are uppercased; a k-mer containing any
 * other character (N, IUPAC codes, '.', ...) is skipped: the window restarts
 * after that character.  Line breaks (\n, \r\n) inside a FASTA or multi-line
 * FASTQ sequence do not break k-mers; record boundaries do.
 *
 * Format: detected from the first non-blank byte ('>' FASTA, '@' FASTQ).
 * FASTQ records may be multi-line: the quality string is consumed until it
 * is as long as the sequence (a longer one is a decode error).
 *
 * Work sharing: every k-mer occurrence has a "position", the offset in the
 * (decompressed) byte stream of its last base.  With nprocs > 1 a parser
 * keeps only the k-mers whose position lies in a block it owns: block
 * b = position >> block_shift belongs to rank b % nprocs.  Every rank can
 * therefore stream the whole input and the ranks' outputs partition the
 * k-mer occurrences exactly, whatever the format and record lengths (one
 * 5 Mbp genome record is shared as evenly as a million short reads).
 *
 * A HyperLogLog sketch (serial/bcl_hll.h) of the emitted k-mers can be kept
 * on the side (bcl_kmer_hll_add), to size a hash table before counting.
 */
#ifndef BCL_KMER_H
#define BCL_KMER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"
#include "serial/bcl_hll.h"

#define BCL_KMER_MAX_K 32
#define BCL_KMER_DEFAULT_BLOCK_SHIFT 20     /* 1 MiB blocks */

typedef enum bcl_seqfmt { BCL_FMT_UNKNOWN = 0, BCL_FMT_FASTA, BCL_FMT_FASTQ } bcl_seqfmt;

typedef struct bcl_kmer_parser {
    /* configuration */
    int k;
    uint64_t mask;              /* low 2k bits                            */
    int rc_shift;               /* 2(k-1)                                 */
    int rank, nprocs, block_shift;
    /* state */
    int fmt;                    /* bcl_seqfmt                             */
    int state;                  /* internal: where in a record we are     */
    int line_start;             /* next byte begins a line                */
    uint64_t fwd, rev;          /* rolling encodings                      */
    int valid;                  /* bases in the window (capped at k)      */
    uint64_t seqlen, quallen;   /* FASTQ: of the current record           */
    uint64_t offset;            /* stream offset of the next byte         */
    /* statistics */
    uint64_t records, bases, kmers_total, kmers_emitted;
} bcl_kmer_parser;

/* BCL_ERR_ARG unless 1 <= k <= 32, 0 <= rank < nprocs, 0 < block_shift < 63. */
bcl_status bcl_kmer_init(bcl_kmer_parser *p, int k, int rank, int nprocs, int block_shift);

/* Parse `n` bytes.  `out` must have room for `n` k-mers (a byte ends at
 * most one k-mer); *nout receives how many were written.  BCL_ERR_DECODE on
 * malformed input (message names the stream offset). */
bcl_status bcl_kmer_feed(bcl_kmer_parser *p, const char *buf, size_t n, uint64_t *out,
                         size_t *nout);

/* End of input: BCL_ERR_DECODE if a FASTQ record is truncated. */
bcl_status bcl_kmer_finish(bcl_kmer_parser *p);

/* Canonical encoding of one k-mer given as text (k = len); -1 if it holds a
 * non-ACGT character.  For tests and tools. */
int bcl_kmer_encode(const char *s, int k, uint64_t *out);

/* k-mer -> k characters 'ACGT' at `out` (no terminator). */
void bcl_kmer_decode(uint64_t kmer, int k, char *out);

/* Count n k-mers in the sketch s (each mixed to a 64-bit hash first). */
void bcl_kmer_hll_add(bcl_hll *s, const uint64_t *kmers, size_t n);

#endif /* BCL_KMER_H */
