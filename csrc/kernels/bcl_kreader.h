/*
 * bcl_kreader.h -- the canonical k-mers of a sequence file, piece by piece:
 * a byte source (bcl_seqsrc.h: plain range, whole gzip stream, or a gzip
 * record range) feeding the k-mer parser (bcl_kmer.h), with an optional
 * HyperLogLog sketch of what it emits.  Also the one-shot parse of bytes in
 * memory, fed in pieces as a file would be.
 *
 * No MPI, no Python.  Every failure is a bcl_status with a message; the
 * messages of bcl_kreader_next name the file.
 */
#ifndef BCL_KREADER_H
#define BCL_KREADER_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/bcl_kmer.h"
#include "kernels/bcl_seqsrc.h"
#include "runtime/bcl_error.h"

typedef struct bcl_kreader {
    bcl_seqsrc src;
    int open;                   /* src is open                              */
    int done;                   /* the end, an error, or closed             */
    bcl_kmer_parser parser;
    char *buf;                  /* one piece of input bytes                 */
    size_t chunk;               /* its size: the most k-mers a piece yields */
    int use_hll;
    bcl_hll hll;
    uint64_t bytes_read;        /* decompressed bytes parsed                */
    char *path;                 /* for messages                             */
} bcl_kreader;

/* Where in the file a reader reads (see bcl_seqsrc_open / _open_gz_range):
 * bytes [start, end) (end = UINT64_MAX: to the end); ranged: a gzip file
 * entered at compressed offset zoff (stream offset uoff), records of
 * format fmt starting in [start, end). */
typedef struct bcl_kreader_range {
    uint64_t start, end;
    int ranged;
    uint64_t zoff, uoff;
    bcl_seqfmt fmt;
} bcl_kreader_range;

/* Configure `r` (zeroed, or a reader to reuse: its file is closed): the
 * parser (BCL_ERR_ARG for k, rank, nprocs, block_shift as bcl_kmer_init)
 * and a buffer of `chunk` bytes (BCL_ERR_NOMEM). */
bcl_status bcl_kreader_init(bcl_kreader *r, int k, int rank, int nprocs, int block_shift,
                            size_t chunk, int use_hll);

/* Open `path` for reading the range `rg`; any failure leaves it closed. */
bcl_status bcl_kreader_open(bcl_kreader *r, const char *path, const bcl_kreader_range *rg);

/* The next piece: up to r->chunk bytes read and parsed, its k-mers at `out`
 * (room for r->chunk), *nout of them; *got = bytes read, 0 at the end.  A
 * read or parse error (message prefixed with the path) ends the reader. */
bcl_status bcl_kreader_next(bcl_kreader *r, uint64_t *out, size_t *nout, size_t *got);

/* Close the file (the statistics stay); next() then reports the end. */
void bcl_kreader_close(bcl_kreader *r);

/* Close and free everything (r may then be initialised again). */
void bcl_kreader_free(bcl_kreader *r);

/* The k-mers of `n` bytes in memory, fed to `p` in pieces of `step` bytes
 * (0: one piece) and finished: `out` has room for n, *total receives how
 * many were written. */
bcl_status bcl_kmer_parse_pieces(bcl_kmer_parser *p, const char *data, size_t n, size_t step,
                                 uint64_t *out, size_t *total);

#endif /* BCL_KREADER_H */
