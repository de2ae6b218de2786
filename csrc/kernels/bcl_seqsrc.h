/*
 * bcl_seqsrc.h -- the bytes of a sequence file for the k-mer parser: a byte
 * range of a plain file, or the whole decompressed stream of a gzip file,
 * read strictly (no silent partial input).
 *
 * gzip: every member of a multi-member file (bgzip, `cat a.gz b.gz`) is
 * decompressed in turn; the stream fails with BCL_ERR_DECODE, naming the
 * compressed offset, when the file ends inside a member ("truncated"), when
 * bytes that are not a gzip member follow one ("trailing garbage"), or when
 * zlib finds the data corrupt.  (zlib's gzread ignores the first two and
 * reports a partial count as success.)
 *
 * Plain files can be split between ranks: bcl_seqsrc_resync finds the first
 * record boundary at or after a byte offset, so rank r reads
 * [resync(r * size / P), resync((r + 1) * size / P)) and the ranks' ranges
 * tile the file on record boundaries.  FASTA: a line starting with '>'.
 * FASTQ (4-line records): a line starting with '@' whose line two further
 * on starts with '+' -- a quality line starting with '@' is followed by a
 * header and a sequence line, never by '+', so this never lands mid-record
 * in a 4-line FASTQ.  (Multi-line FASTQ is detected by the caller: a range
 * that does not end on a complete record fails bcl_kmer_finish.)
 *
 * A gzip stream can be split the same way when its members' starts are
 * known (BGZF, bcl_bgzf.h): bcl_seqsrc_open_gz_range enters the file at a
 * member start and yields the records of the decompressed stream that
 * start in [start, end) -- the same resync rule as for plain files, applied
 * to the decompressed bytes, so ranks given abutting ranges tile the
 * stream's records exactly.  A record that starts in the range is read to
 * its end, inflating into the following members as far as needed.
 */
#ifndef BCL_SEQSRC_H
#define BCL_SEQSRC_H

#include <stdint.h>
#include <stdio.h>

#include "kernels/bcl_kmer.h"
#include "runtime/bcl_error.h"

typedef struct bcl_seqsrc {
    FILE *fh;
    int gz;                     /* 1: gzip stream                           */
    void *zs;                   /* z_stream (opaque here)                   */
    unsigned char *zin;         /* compressed input buffer                  */
    int member_done;            /* between two gzip members                 */
    int eof;
    uint64_t in_offset;         /* compressed bytes consumed (messages)     */
    uint64_t pos, end;          /* plain: next byte and end of the range    */
    uint64_t first;             /* stream offset of the first byte yielded  */
    /* gzip record range (bcl_seqsrc_open_gz_range); ranged = 0 otherwise */
    int ranged;
    bcl_seqfmt fmt;
    uint64_t uoff;              /* stream offset of the next inflated byte  */
    uint64_t rstart, rend;      /* the range, before resync                 */
    int start_known, end_known; /* first / end: the resynced range          */
    uint64_t emit, stop;        /* next byte to yield; end of the records   */
    char *win;                  /* look-ahead window: stream bytes          */
    size_t wlen, wcap;          /* [wbase, wbase + wlen)                    */
    uint64_t wbase;
    char path[512];             /* for messages (truncated if longer)       */
} bcl_seqsrc;

/* Open `path`.  Plain file: the range [start, end) (end = UINT64_MAX: to the
 * end of the file).  gzip (magic 1f 8b): the whole stream; start must be 0. */
bcl_status bcl_seqsrc_open(bcl_seqsrc *s, const char *path, uint64_t start, uint64_t end);

/* gzip `path`, entered at the member starting at compressed offset `zoff`,
 * whose data begins at stream offset `uoff` (uoff <= start - 1 if start >
 * 0, else 0): the bytes of the records starting in [start, end) of the
 * decompressed stream (end = UINT64_MAX: to the end), resynced as
 * bcl_seqsrc_resync does for a plain file. */
bcl_status bcl_seqsrc_open_gz_range(bcl_seqsrc *s, const char *path, uint64_t zoff,
                                    uint64_t uoff, uint64_t start, uint64_t end,
                                    bcl_seqfmt fmt);

/* Up to n bytes into buf; *got = 0 only at the end of the input. */
bcl_status bcl_seqsrc_read(bcl_seqsrc *s, char *buf, size_t n, size_t *got);

void bcl_seqsrc_close(bcl_seqsrc *s);

/* 1 if the file starts with the gzip magic, 0 if not (-1: cannot read). */
int bcl_seqsrc_is_gzip(const char *path);

/* Offset of the first record start of format `fmt` at or after `offset` in
 * the plain file `path` of `size` bytes (size if there is none). */
bcl_status bcl_seqsrc_resync(const char *path, uint64_t size, uint64_t offset, bcl_seqfmt fmt,
                             uint64_t *out);

#endif /* BCL_SEQSRC_H */
