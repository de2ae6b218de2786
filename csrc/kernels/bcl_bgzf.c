/*
 * bcl_bgzf.c -- the block map of a BGZF file (see bcl_bgzf.h).
 */
#define _FILE_OFFSET_BITS 64
#include "kernels/bcl_bgzf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GZ_FIXED 12             /* magic, CM, FLG, MTIME, XFL, OS, XLEN */
#define GZ_TRAILER 8            /* CRC32, ISIZE */
#define PEEK 64                 /* one read: ISIZE of a block + the next header */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Size of the block whose header is hdr[0..have) (at least GZ_FIXED bytes),
 * 0 if it is not a BGZF block; *need > 0 if the extra field runs past
 * `have` (read that many bytes and ask again). */
static uint64_t block_size(const unsigned char *hdr, size_t have, size_t *need)
{
    *need = 0;
    if (hdr[0] != 0x1f || hdr[1] != 0x8b || hdr[2] != 8 || !(hdr[3] & 4))
        return 0;
    size_t xlen = (size_t)hdr[10] | (size_t)hdr[11] << 8;
    if (GZ_FIXED + xlen > have) {
        *need = GZ_FIXED + xlen;
        return 0;
    }
    for (size_t i = GZ_FIXED; i + 4 <= GZ_FIXED + xlen;) {
        size_t slen = (size_t)hdr[i + 2] | (size_t)hdr[i + 3] << 8;
        if (hdr[i] == 'B' && hdr[i + 1] == 'C' && slen == 2 && i + 6 <= GZ_FIXED + xlen) {
            uint64_t bsize = ((uint64_t)hdr[i + 4] | (uint64_t)hdr[i + 5] << 8) + 1;
            /* a block too small for its own header and trailer is not one */
            return bsize >= GZ_FIXED + xlen + GZ_TRAILER ? bsize : 0;
        }
        i += 4 + slen;
    }
    return 0;
}

static bcl_status push(bcl_bgzf_map *m, uint64_t *cap, uint64_t c, uint64_t u)
{
    if (m->nblocks + 1 >= *cap) {
        uint64_t ncap = *cap ? *cap * 2 : 1024;
        uint64_t *nc = realloc(m->coff, ncap * sizeof *nc);
        if (nc)
            m->coff = nc;
        uint64_t *nu = nc ? realloc(m->uoff, ncap * sizeof *nu) : NULL;
        if (!nu)
            return bcl_set_error(BCL_ERR_NOMEM, "BGZF map: cannot allocate %llu entries",
                                 (unsigned long long)ncap);
        m->uoff = nu;
        *cap = ncap;
    }
    m->coff[m->nblocks] = c;
    m->uoff[m->nblocks] = u;
    return BCL_OK;
}

/* Read up to n bytes at off; how many were read (short only at the end). */
static ssize_t read_at(int fd, unsigned char *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

bcl_status bcl_bgzf_walk(const char *path, bcl_bgzf_map *map, int *is_bgzf)
{
    memset(map, 0, sizeof *map);
    *is_bgzf = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return bcl_set_error(BCL_ERR_ARG, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return bcl_set_error(BCL_ERR_ARG, "%s: %s", path, strerror(errno));
    }
    const uint64_t size = (uint64_t)sb.st_size;
    unsigned char *hdr = malloc(GZ_FIXED + 65535 + 4);
    if (!hdr) {
        close(fd);
        return bcl_set_error(BCL_ERR_NOMEM, "BGZF map: out of memory");
    }
    bcl_status st = BCL_OK;
    uint64_t cap = 0, off = 0, u = 0;
    int bgzf = size > 0;
    while (off < size) {
        ssize_t have = read_at(fd, hdr, PEEK, off);
        if (have < 0) {
            st = bcl_set_error(BCL_ERR_ARG, "%s: read failed at %llu: %s", path,
                               (unsigned long long)off, strerror(errno));
            break;
        }
        if ((have < 2 || hdr[0] != 0x1f || hdr[1] != 0x8b) && off > 0) {
            st = bcl_set_error(BCL_ERR_DECODE, "%s: trailing garbage after the gzip data at "
                               "offset %llu", path, (unsigned long long)off);
            break;
        }
        if (have < GZ_FIXED) {
            if (off > 0)
                st = bcl_set_error(BCL_ERR_DECODE, "%s: truncated gzip file (it ends inside "
                                   "a BGZF block header at offset %llu)", path,
                                   (unsigned long long)off);
            bgzf = 0;
            break;
        }
        size_t need;
        uint64_t bsize = block_size(hdr, (size_t)have, &need);
        if (need) {            /* a long extra field: read all of it */
            have = read_at(fd, hdr, need, off);
            bsize = have == (ssize_t)need ? block_size(hdr, need, &need) : 0;
        }
        if (bsize == 0) {      /* an ordinary gzip member (or none): not BGZF */
            bgzf = 0;
            break;
        }
        if (off + bsize > size) {
            st = bcl_set_error(BCL_ERR_DECODE, "%s: truncated gzip file (the BGZF block at "
                               "offset %llu needs %llu bytes, the file has %llu)", path,
                               (unsigned long long)off, (unsigned long long)bsize,
                               (unsigned long long)(size - off));
            break;
        }
        unsigned char isz[4];
        if (read_at(fd, isz, 4, off + bsize - 4) != 4) {
            st = bcl_set_error(BCL_ERR_ARG, "%s: read failed at %llu", path,
                               (unsigned long long)(off + bsize - 4));
            break;
        }
        if ((st = push(map, &cap, off, u)) != BCL_OK)
            break;
        map->nblocks++;
        u += le32(isz);
        off += bsize;
    }
    free(hdr);
    close(fd);
    if (st == BCL_OK && bgzf)
        st = push(map, &cap, size, u);        /* the end, after the last block */
    if (st != BCL_OK || !bgzf) {
        bcl_bgzf_free(map);
        return st;
    }
    *is_bgzf = 1;
    return BCL_OK;
}

void bcl_bgzf_free(bcl_bgzf_map *map)
{
    free(map->coff);
    free(map->uoff);
    memset(map, 0, sizeof *map);
}
