/*
 * bcl_seqsrc.c -- strict plain/gzip byte source and record resync
 * (see bcl_seqsrc.h).
 */
#define _FILE_OFFSET_BITS 64
#include "kernels/bcl_seqsrc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#define ZIN_BYTES (1u << 18)

int bcl_seqsrc_is_gzip(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char m[2];
    size_t n = fread(m, 1, 2, f);
    fclose(f);
    return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

bcl_status bcl_seqsrc_open(bcl_seqsrc *s, const char *path, uint64_t start, uint64_t end)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    int gz = bcl_seqsrc_is_gzip(path);
    if (gz < 0)
        return bcl_set_error(BCL_ERR_ARG, "%s: %s", path, strerror(errno));
    s->fh = fopen(path, "rb");
    if (!s->fh)
        return bcl_set_error(BCL_ERR_ARG, "%s: %s", path, strerror(errno));
    s->gz = gz;
    if (gz) {
        if (start != 0) {
            bcl_seqsrc_close(s);
            return bcl_set_error(BCL_ERR_ARG, "%s: a gzip file is read from its start", path);
        }
        z_stream *z = calloc(1, sizeof *z);
        s->zin = malloc(ZIN_BYTES);
        if (!z || !s->zin || inflateInit2(z, 15 + 16) != Z_OK) {
            free(z);
            bcl_seqsrc_close(s);
            return bcl_set_error(BCL_ERR_NOMEM, "%s: cannot set up zlib", path);
        }
        s->zs = z;
        return BCL_OK;
    }
    if (start && fseeko(s->fh, (off_t)start, SEEK_SET) != 0) {
        bcl_seqsrc_close(s);
        return bcl_set_error(BCL_ERR_ARG, "%s: cannot seek to %llu: %s", path,
                             (unsigned long long)start, strerror(errno));
    }
    s->pos = start;
    s->end = end;
    return BCL_OK;
}

void bcl_seqsrc_close(bcl_seqsrc *s)
{
    if (s->zs) {
        inflateEnd(s->zs);
        free(s->zs);
    }
    free(s->zin);
    if (s->fh)
        fclose(s->fh);
    s->zs = NULL;
    s->zin = NULL;
    s->fh = NULL;
}

static bcl_status fill(bcl_seqsrc *s, z_stream *z)
{
    size_t n = fread(s->zin, 1, ZIN_BYTES, s->fh);
    if (n == 0 && ferror(s->fh))
        return bcl_set_error(BCL_ERR_ARG, "%s: read failed: %s", s->path, strerror(errno));
    z->next_in = s->zin;
    z->avail_in = (uInt)n;
    return BCL_OK;
}

static bcl_status gz_read(bcl_seqsrc *s, char *buf, size_t n, size_t *got)
{
    z_stream *z = s->zs;
    z->next_out = (Bytef *)buf;
    z->avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
    while (z->avail_out > 0 && !s->eof) {
        if (z->avail_in == 0) {
            bcl_status st = fill(s, z);
            if (st != BCL_OK)
                return st;
            if (z->avail_in == 0) {                 /* end of the file */
                if (!s->member_done)
                    return bcl_set_error(BCL_ERR_DECODE,
                                         "%s: truncated gzip file (it ends inside a "
                                         "compressed member, after %llu bytes)", s->path,
                                         (unsigned long long)s->in_offset);
                s->eof = 1;
                break;
            }
        }
        if (s->member_done) {          /* another member, or garbage after the last */
            if (z->avail_in < 2) {
                /* need two bytes to tell: keep what we have, read more */
                unsigned char first = z->next_in[0];
                size_t more = fread(s->zin + 1, 1, ZIN_BYTES - 1, s->fh);
                s->zin[0] = first;
                z->next_in = s->zin;
                z->avail_in = (uInt)(1 + more);
                if (more == 0)
                    return bcl_set_error(BCL_ERR_DECODE, "%s: trailing garbage after the "
                                         "gzip data at offset %llu", s->path,
                                         (unsigned long long)s->in_offset);
            }
            if (z->next_in[0] != 0x1f || z->next_in[1] != 0x8b)
                return bcl_set_error(BCL_ERR_DECODE, "%s: trailing garbage after the gzip "
                                     "data at offset %llu (bytes 0x%02x 0x%02x)", s->path,
                                     (unsigned long long)s->in_offset, z->next_in[0],
                                     z->next_in[1]);
            inflateReset(z);
            s->member_done = 0;
        }
        uInt before = z->avail_in;
        int ret = inflate(z, Z_NO_FLUSH);
        s->in_offset += before - z->avail_in;
        if (ret == Z_STREAM_END) {
            s->member_done = 1;
        } else if (ret == Z_BUF_ERROR) {
            continue;                               /* needs input: loop refills */
        } else if (ret != Z_OK) {
            return bcl_set_error(BCL_ERR_DECODE, "%s: corrupt gzip data near offset %llu: %s",
                                 s->path, (unsigned long long)s->in_offset,
                                 z->msg ? z->msg : "inflate failed");
        }
    }
    *got = (size_t)((char *)z->next_out - buf);
    return BCL_OK;
}

bcl_status bcl_seqsrc_read(bcl_seqsrc *s, char *buf, size_t n, size_t *got)
{
    *got = 0;
    if (!s->fh)
        return bcl_set_error(BCL_ERR_STATE, "sequence source is closed");
    if (s->gz)
        return gz_read(s, buf, n, got);
    if (s->pos >= s->end)
        return BCL_OK;
    if (s->end - s->pos < n)
        n = (size_t)(s->end - s->pos);
    size_t r = fread(buf, 1, n, s->fh);
    if (r == 0 && ferror(s->fh))
        return bcl_set_error(BCL_ERR_ARG, "%s: read failed: %s", s->path, strerror(errno));
    s->pos += r;
    *got = r;
    return BCL_OK;
}

/* ---- record resync ------------------------------------------------------- */

/* Start of the line after the one starting at p, or -1 if not in buf. */
static long next_line(const char *buf, long n, long p)
{
    const char *nl = memchr(buf + p, '\n', (size_t)(n - p));
    return nl ? (long)(nl - buf) + 1 : -1;
}

bcl_status bcl_seqsrc_resync(const char *path, uint64_t size, uint64_t offset, bcl_seqfmt fmt,
                             uint64_t *out)
{
    if (offset == 0 || offset >= size) {
        *out = offset >= size ? size : 0;
        return BCL_OK;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return bcl_set_error(BCL_ERR_ARG, "%s: %s", path, strerror(errno));
    size_t want = 1 << 16;
    char *buf = NULL;
    bcl_status st = BCL_OK;
    *out = size;
    for (;;) {
        /* the window starts one byte early: is `offset` itself a line start? */
        uint64_t from = offset - 1;
        size_t len = size - from < want ? (size_t)(size - from) : want;
        char *nb = realloc(buf, len);
        if (!nb) {
            st = bcl_set_error(BCL_ERR_NOMEM, "resync: cannot allocate %zu bytes", len);
            break;
        }
        buf = nb;
        if (fseeko(f, (off_t)from, SEEK_SET) != 0 || fread(buf, 1, len, f) != len) {
            st = bcl_set_error(BCL_ERR_ARG, "%s: cannot read %zu bytes at %llu", path, len,
                               (unsigned long long)from);
            break;
        }
        int whole = from + len == size;
        long n = (long)len, p = buf[0] == '\n' ? 1 : next_line(buf, n, 0);
        while (p >= 0 && p < n) {
            if (fmt == BCL_FMT_FASTA && buf[p] == '>') {
                *out = from + (uint64_t)p;
                goto done;
            }
            if (fmt == BCL_FMT_FASTQ && buf[p] == '@') {
                long l1 = next_line(buf, n, p), l2 = l1 >= 0 ? next_line(buf, n, l1) : -1;
                if (l2 >= 0 && l2 < n) {
                    if (buf[l2] == '+') {
                        *out = from + (uint64_t)p;
                        goto done;
                    }
                } else if (!whole) {
                    break;                           /* runs past the window: widen it */
                }
            }
            p = next_line(buf, n, p);
        }
        if (whole)
            break;                                   /* no boundary before the end */
        if (want >= ((size_t)1 << 30)) {
            st = bcl_set_error(BCL_ERR_DECODE, "%s: no record boundary within 1 GiB after "
                               "offset %llu", path, (unsigned long long)offset);
            break;
        }
        want *= 4;
    }
done:
    free(buf);
    fclose(f);
    return st;
}
