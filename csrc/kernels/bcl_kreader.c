/*
 * bcl_kreader.c -- see bcl_kreader.h.
 */
#include "kernels/bcl_kreader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bcl_status bcl_kreader_init(bcl_kreader *r, int k, int rank, int nprocs, int block_shift,
                            size_t chunk, int use_hll)
{
    bcl_status st = bcl_kmer_init(&r->parser, k, rank, nprocs, block_shift);
    if (st != BCL_OK)
        return st;
    bcl_kreader_close(r);
    free(r->buf);
    r->buf = malloc(chunk ? chunk : 1);
    if (!r->buf)
        return bcl_set_error(BCL_ERR_NOMEM, "k-mer reader: no memory for a %zu-byte piece",
                             chunk);
    r->chunk = chunk;
    r->done = 0;
    r->use_hll = use_hll;
    memset(&r->hll, 0, sizeof r->hll);
    r->bytes_read = 0;
    return BCL_OK;
}

bcl_status bcl_kreader_open(bcl_kreader *r, const char *path, const bcl_kreader_range *rg)
{
    bcl_kreader_close(r);
    free(r->path);
    r->path = strdup(path);
    if (!r->path)
        return bcl_set_error(BCL_ERR_NOMEM, "k-mer reader: no memory");
    bcl_status st = rg->ranged
        ? bcl_seqsrc_open_gz_range(&r->src, path, rg->zoff, rg->uoff, rg->start, rg->end,
                                   rg->fmt)
        : bcl_seqsrc_open(&r->src, path, rg->start, rg->end);
    if (st != BCL_OK)
        return st;
    r->open = 1;
    r->done = 0;
    return BCL_OK;
}

/* The reader ends with `st`: the source's messages name the file already,
 * the parser's do not (it sees only bytes). */
static bcl_status fail(bcl_kreader *r, bcl_status st)
{
    char msg[512];
    r->done = 1;
    snprintf(msg, sizeof msg, "%s", bcl_last_error());
    if (strncmp(msg, r->path, strlen(r->path)) != 0)
        return bcl_set_error(st, "%s: %s", r->path, msg);
    return st;
}

bcl_status bcl_kreader_next(bcl_kreader *r, uint64_t *out, size_t *nout, size_t *got)
{
    *nout = *got = 0;
    if (!r->open || r->done)
        return BCL_OK;
    bcl_status st = bcl_seqsrc_read(&r->src, r->buf, r->chunk, got);
    if (r->bytes_read == 0)
        r->parser.offset = r->src.first;    /* messages name stream offsets */
    if (st == BCL_OK && *got > 0) {
        st = bcl_kmer_feed(&r->parser, r->buf, *got, out, nout);
        if (st == BCL_OK && r->use_hll)
            bcl_kmer_hll_add(&r->hll, out, *nout);
    } else if (st == BCL_OK) {
        st = bcl_kmer_finish(&r->parser);
    }
    if (st != BCL_OK) {
        *nout = *got = 0;
        return fail(r, st);
    }
    if (*got == 0)
        r->done = 1;
    r->bytes_read += (uint64_t)*got;
    return BCL_OK;
}

void bcl_kreader_close(bcl_kreader *r)
{
    if (r->open)
        bcl_seqsrc_close(&r->src);
    r->open = 0;
    r->done = 1;
}

void bcl_kreader_free(bcl_kreader *r)
{
    bcl_kreader_close(r);
    free(r->buf);
    free(r->path);
    r->buf = r->path = NULL;
}

bcl_status bcl_kmer_parse_pieces(bcl_kmer_parser *p, const char *data, size_t n, size_t step,
                                 uint64_t *out, size_t *total)
{
    bcl_status st = BCL_OK;
    *total = 0;
    if (step == 0)
        step = n ? n : 1;
    for (size_t off = 0; off < n && st == BCL_OK; off += step) {
        size_t len = n - off < step ? n - off : step, got = 0;
        st = bcl_kmer_feed(p, data + off, len, out + *total, &got);
        *total += got;
    }
    return st == BCL_OK ? bcl_kmer_finish(p) : st;
}
