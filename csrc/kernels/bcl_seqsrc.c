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

static bcl_status gz_setup(bcl_seqsrc *s)
{
    z_stream *z = calloc(1, sizeof *z);
    s->zin = malloc(ZIN_BYTES);
    if (!z || !s->zin || inflateInit2(z, 15 + 16) != Z_OK) {
        free(z);
        bcl_seqsrc_close(s);
        return bcl_set_error(BCL_ERR_NOMEM, "%s: cannot set up zlib", s->path);
    }
    s->zs = z;
    return BCL_OK;
}

static bcl_status open_file(bcl_seqsrc *s, const char *path)
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
    return BCL_OK;
}

static bcl_status seek_to(bcl_seqsrc *s, uint64_t off)
{
    if (off && fseeko(s->fh, (off_t)off, SEEK_SET) != 0) {
        int e = errno;
        bcl_seqsrc_close(s);
        return bcl_set_error(BCL_ERR_ARG, "%s: cannot seek to %llu: %s", s->path,
                             (unsigned long long)off, strerror(e));
    }
    return BCL_OK;
}

bcl_status bcl_seqsrc_open(bcl_seqsrc *s, const char *path, uint64_t start, uint64_t end)
{
    bcl_status st = open_file(s, path);
    if (st != BCL_OK)
        return st;
    if (s->gz) {
        if (start != 0) {
            bcl_seqsrc_close(s);
            return bcl_set_error(BCL_ERR_ARG, "%s: a gzip file is read from its start", path);
        }
        return gz_setup(s);
    }
    if ((st = seek_to(s, start)) != BCL_OK)
        return st;
    s->pos = s->first = start;
    s->end = end;
    return BCL_OK;
}

bcl_status bcl_seqsrc_open_gz_range(bcl_seqsrc *s, const char *path, uint64_t zoff,
                                    uint64_t uoff, uint64_t start, uint64_t end,
                                    bcl_seqfmt fmt)
{
    if (end < start || (start > 0 ? uoff > start - 1 : uoff != 0) ||
        (fmt != BCL_FMT_FASTA && fmt != BCL_FMT_FASTQ))
        return bcl_set_error(BCL_ERR_ARG, "%s: bad gzip range: entry at stream offset %llu "
                             "for records in [%llu, %llu)", path, (unsigned long long)uoff,
                             (unsigned long long)start, (unsigned long long)end);
    bcl_status st = open_file(s, path);
    if (st != BCL_OK)
        return st;
    if (!s->gz) {
        bcl_seqsrc_close(s);
        return bcl_set_error(BCL_ERR_ARG, "%s: not a gzip file", path);
    }
    if ((st = seek_to(s, zoff)) != BCL_OK || (st = gz_setup(s)) != BCL_OK)
        return st;
    s->in_offset = zoff;
    s->ranged = 1;
    s->fmt = fmt;
    s->uoff = s->wbase = uoff;
    s->rstart = start;
    s->rend = end;
    s->wcap = (size_t)1 << 16;
    if (!(s->win = malloc(s->wcap))) {
        bcl_seqsrc_close(s);
        return bcl_set_error(BCL_ERR_NOMEM, "%s: cannot allocate a window", path);
    }
    return BCL_OK;
}

void bcl_seqsrc_close(bcl_seqsrc *s)
{
    if (s->zs) {
        inflateEnd(s->zs);
        free(s->zs);
    }
    free(s->zin);
    free(s->win);
    if (s->fh)
        fclose(s->fh);
    s->zs = NULL;
    s->zin = NULL;
    s->win = NULL;
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
    s->uoff += *got;
    return BCL_OK;
}

/* ---- record resync ------------------------------------------------------- */

/* Start of the line after the one starting at p, or -1 if not in buf. */
static long next_line(const char *buf, long n, long p)
{
    const char *nl = memchr(buf + p, '\n', (size_t)(n - p));
    return nl ? (long)(nl - buf) + 1 : -1;
}

#define RECORD_MORE (-1)      /* a longer window could change the answer */
#define RECORD_NONE (-2)      /* none: buf runs to the end of the input  */
#define WINDOW_MAX ((size_t)1 << 30)

/* Index of the first record start in buf[1..n) -- buf[0] is the byte just
 * before the offset sought, which tells whether buf[1] starts a line --
 * or RECORD_MORE / RECORD_NONE (`whole`: buf runs to the end of the input).
 * The one definition of a record boundary, for plain files and streams. */
static long first_record(const char *buf, long n, int whole, bcl_seqfmt fmt)
{
    long p = buf[0] == '\n' ? 1 : next_line(buf, n, 0);
    while (p >= 0 && p < n) {
        if (fmt == BCL_FMT_FASTA && buf[p] == '>')
            return p;
        if (fmt == BCL_FMT_FASTQ && buf[p] == '@') {
            long l1 = next_line(buf, n, p), l2 = l1 >= 0 ? next_line(buf, n, l1) : -1;
            if (l2 >= 0 && l2 < n) {
                if (buf[l2] == '+')
                    return p;
            } else if (!whole) {
                return RECORD_MORE;                  /* runs past the window */
            }
        }
        p = next_line(buf, n, p);
    }
    return whole ? RECORD_NONE : RECORD_MORE;
}

/* ---- gzip record range: a window of inflated bytes ----------------------- *
 * Invariant: the window holds stream bytes [wbase, wbase + wlen) and
 * wbase + wlen == uoff (the next byte inflate yields). */

static void win_drop_before(bcl_seqsrc *s, uint64_t off)
{
    uint64_t end = s->wbase + s->wlen;
    if (off <= s->wbase)
        return;
    if (off > end)
        off = end;
    size_t d = (size_t)(off - s->wbase);
    memmove(s->win, s->win + d, s->wlen - d);
    s->wlen -= d;
    s->wbase = off;
}

/* Inflate more onto the window's end (*added = 0: the stream ended). */
static bcl_status win_fill(bcl_seqsrc *s, size_t *added)
{
    if (s->wlen == s->wcap) {
        size_t ncap = s->wcap ? s->wcap * 2 : (size_t)1 << 16;
        if (ncap > WINDOW_MAX)
            return bcl_set_error(BCL_ERR_DECODE, "%s: no record boundary within 1 GiB after "
                                 "stream offset %llu", s->path, (unsigned long long)s->wbase);
        char *nw = realloc(s->win, ncap);
        if (!nw)
            return bcl_set_error(BCL_ERR_NOMEM, "%s: cannot allocate %zu bytes", s->path, ncap);
        s->win = nw;
        s->wcap = ncap;
    }
    bcl_status st = gz_read(s, s->win + s->wlen, s->wcap - s->wlen, added);
    s->wlen += *added;
    return st;
}

/* The first record boundary at or after `at` (> 0): the window is moved to
 * start at byte at - 1 and grown until first_record can tell. */
static bcl_status win_resync(bcl_seqsrc *s, uint64_t at, uint64_t *out)
{
    if (s->wbase > at - 1)
        return bcl_set_error(BCL_ERR_STATE, "%s: gzip range window is past stream offset "
                             "%llu", s->path, (unsigned long long)(at - 1));
    for (;;) {
        win_drop_before(s, at - 1);
        if (s->wlen > 0 && s->wbase == at - 1) {
            long i = first_record(s->win, (long)s->wlen, s->eof, s->fmt);
            if (i != RECORD_MORE) {
                *out = i >= 0 ? s->wbase + (uint64_t)i : s->uoff;
                return BCL_OK;
            }
        } else if (s->eof) {
            *out = s->uoff;                    /* the stream ends before `at` */
            return BCL_OK;
        }
        size_t added;
        bcl_status st = win_fill(s, &added);
        if (st != BCL_OK)
            return st;
    }
}

static bcl_status ranged_read(bcl_seqsrc *s, char *out, size_t n, size_t *got)
{
    bcl_status st;
    if (!s->start_known) {
        if (s->rstart > 0 && (st = win_resync(s, s->rstart, &s->first)) != BCL_OK)
            return st;
        s->emit = s->first;                 /* resync(0) = 0 */
        s->start_known = 1;
        if (s->emit >= s->rend) {
            /* the first record is past the range's end (or the stream's): so
             * is the first boundary after the end -- nothing in this range */
            s->stop = s->emit;
            s->end_known = 1;
        }
    }
    for (;;) {
        uint64_t wend = s->wbase + s->wlen, limit = s->end_known ? s->stop : s->rend;
        if (s->emit < wend && s->emit < limit) {           /* bytes the window holds */
            uint64_t hi = wend < limit ? wend : limit;
            size_t c = hi - s->emit < n ? (size_t)(hi - s->emit) : n;
            memcpy(out, s->win + (s->emit - s->wbase), c);
            s->emit += c;
            *got = c;
            return BCL_OK;
        }
        if (s->end_known && s->emit >= s->stop)
            return BCL_OK;                                  /* the range is done */
        if (!s->end_known && s->emit >= s->rend) {
            /* the last record that started in the range ends at the next boundary */
            if ((st = win_resync(s, s->rend, &s->stop)) != BCL_OK)
                return st;
            s->end_known = 1;
            continue;
        }
        /* inside the range, window used up: inflate straight into out */
        size_t want = s->rend - s->emit < n ? (size_t)(s->rend - s->emit) : n;
        if ((st = gz_read(s, out, want, got)) != BCL_OK)
            return st;
        if (*got == 0) {                                    /* the stream ended */
            s->stop = s->emit;
            s->end_known = 1;
            return BCL_OK;
        }
        s->emit += *got;
        s->wbase = s->uoff - 1;          /* keep the last byte: does the next start a line? */
        s->win[0] = out[*got - 1];
        s->wlen = 1;
        return BCL_OK;
    }
}

bcl_status bcl_seqsrc_read(bcl_seqsrc *s, char *buf, size_t n, size_t *got)
{
    *got = 0;
    if (!s->fh)
        return bcl_set_error(BCL_ERR_STATE, "sequence source is closed");
    if (s->ranged)
        return ranged_read(s, buf, n, got);
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
        long r = first_record(buf, (long)len, from + len == size, fmt);
        if (r >= 0) {
            *out = from + (uint64_t)r;
            break;
        }
        if (r == RECORD_NONE)
            break;                                   /* no boundary before the end */
        if (want >= ((size_t)1 << 30)) {
            st = bcl_set_error(BCL_ERR_DECODE, "%s: no record boundary within 1 GiB after "
                               "offset %llu", path, (unsigned long long)offset);
            break;
        }
        want *= 4;
    }
    free(buf);
    fclose(f);
    return st;
}
