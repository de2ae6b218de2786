/* bcl_sv_format.c -- the saved-container descriptor: encode, check, parse
 * (layout: bcl_sv_format.h; specification: docs/saving.md). */
#include "io/bcl_sv_format.h"

#include <stdlib.h>
#include <string.h>

#include "serial/bcl_hash.h"
#include "serial/bcl_msgpack.h"

enum { H_VERSION = 8, H_KIND = 12, H_RANKS = 16, H_NCOLS = 20, H_ENTRIES = 24,
       H_NGROUPS = 32, H_INFO_LEN = 40, H_DATA_OFF = 48, H_FILE_SIZE = 56,
       H_CHECKSUM = 64, H_RESERVED = 72 };

static const char *const kind_names[] = {
    NULL, "HashMap", "DArray", "Array", "BloomFilter", "FastQueue", "CircularQueue"
};

const char *bcl_sv_kind_name(uint32_t kind)
{
    return kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind] : NULL;
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint64_t align_up(uint64_t x)
{
    return (x + BCL_SV_ALIGN - 1) / BCL_SV_ALIGN * BCL_SV_ALIGN;
}

static uint64_t expected_cols(uint32_t kind)
{
    return kind == BCL_SV_HASHMAP ? 2 : 1;
}

/* ---- reading ------------------------------------------------------------- */

static bcl_status damaged(const char *path, const char *what)
{
    return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: %s", path, what);
}

bcl_status bcl_sv_head(const void *buf, size_t n, uint64_t file_size, const char *path,
                       uint64_t *desc_len)
{
    const unsigned char *h = buf;
    if (file_size == 0)
        return bcl_set_error(BCL_ERR_DECODE, "%s: not a pybcl file (it is empty)", path);
    if (n < BCL_SV_MAGIC_LEN || memcmp(h, BCL_SV_MAGIC, BCL_SV_MAGIC_LEN) != 0)
        return bcl_set_error(BCL_ERR_DECODE, "%s: not a pybcl file (it does not start "
                             "with pybcl's magic bytes \\x89PYBCL\\r\\n)", path);
    if (file_size < BCL_SV_HEAD || n < BCL_SV_HEAD)
        return bcl_set_error(BCL_ERR_DECODE, "%s: truncated pybcl file: %llu bytes, less "
                             "than its %u-byte header", path,
                             (unsigned long long)file_size, BCL_SV_HEAD);
    uint64_t version = get_le(h + H_VERSION, 4);
    if (version != BCL_SV_VERSION)
        return bcl_set_error(BCL_ERR_DECODE, "%s: pybcl file format version %llu; this "
                             "pybcl reads version %u", path, (unsigned long long)version,
                             BCL_SV_VERSION);
    uint64_t ncols = get_le(h + H_NCOLS, 4), ngroups = get_le(h + H_NGROUPS, 8);
    uint64_t info_len = get_le(h + H_INFO_LEN, 8);
    if (ncols < 1 || ncols > BCL_SV_MAX_COLS)
        return damaged(path, "its header's column count is not 1 or 2");
    /* 128-bit: the fields are not checked yet and may be anything */
    unsigned __int128 len = BCL_SV_HEAD + ((unsigned __int128)ngroups * ncols + ncols) *
                                              BCL_SV_ENTRY + info_len;
    if (len > file_size)
        return bcl_set_error(BCL_ERR_DECODE, "%s: truncated or damaged pybcl file: its "
                             "header describes more bytes of tables than the file's %llu",
                             path, (unsigned long long)file_size);
    *desc_len = (uint64_t)len;
    return BCL_OK;
}

void bcl_sv_desc_free(bcl_sv_desc *d)
{
    free(d->parts);
    free(d->first);
    free(d->info);
    d->parts = NULL;
    d->first = NULL;
    d->info = NULL;
}

static bcl_status check_checksum(const unsigned char *buf, uint64_t len, const char *path)
{
    unsigned char *copy = malloc(len);
    if (!copy)
        return bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for its %llu-byte descriptor",
                             path, (unsigned long long)len);
    memcpy(copy, buf, len);
    memset(copy + H_CHECKSUM, 0, 8);
    uint64_t sum = bcl_hash64(copy, len, 0);
    free(copy);
    if (BCL_SV_CHECKSUMS && sum != get_le(buf + H_CHECKSUM, 8))
        return damaged(path, "the checksum of its header, tables and info does not match "
                             "(altered or cut short)");
    return BCL_OK;
}

static bcl_status check_header(const bcl_sv_desc *d, const unsigned char *h,
                               uint64_t file_size, const char *path)
{
    for (unsigned i = H_RESERVED; i < BCL_SV_HEAD; i++)
        if (h[i])
            return damaged(path, "reserved header bytes are not zero");
    if (d->file_size > file_size)
        return bcl_set_error(BCL_ERR_DECODE, "%s: truncated pybcl file: %llu of its %llu "
                             "bytes", path, (unsigned long long)file_size,
                             (unsigned long long)d->file_size);
    if (d->file_size < file_size)
        return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: %llu bytes follow "
                             "the end its header states (%llu bytes)", path,
                             (unsigned long long)(file_size - d->file_size),
                             (unsigned long long)d->file_size);
    if (!bcl_sv_kind_name(d->kind))
        return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: unknown container "
                             "kind %u", path, d->kind);
    if (d->ncols != expected_cols(d->kind))
        return damaged(path, "the column count does not match the container kind");
    if (d->ranks < 1)
        return damaged(path, "it was saved by 0 ranks");
    if (d->data_off % BCL_SV_ALIGN || d->data_off < d->desc_len || d->data_off > file_size)
        return damaged(path, "its data offset is not after its tables and aligned");
    return BCL_OK;
}

static bcl_status check_columns(const bcl_sv_desc *d, const char *path)
{
    uint64_t end = d->data_off;
    for (uint32_t c = 0; c < d->ncols; c++) {
        const bcl_sv_column *col = &d->col[c];
        uint64_t size;
        if (col->items != d->entries)
            return damaged(path, "a column's row count differs from the entries");
        if (col->offset < end || col->offset % BCL_SV_ALIGN || col->offset > d->file_size ||
            col->bytes > d->file_size - col->offset)
            return damaged(path, "a column lies outside the data area or overlaps another");
        if (col->width && (__builtin_mul_overflow(col->width, col->items, &size) ||
                           size != col->bytes))
            return damaged(path, "a column's size is not its rows times its width");
        end = col->offset + col->bytes;
    }
    return BCL_OK;
}

static bcl_status check_parts(bcl_sv_desc *d, const char *path)
{
    uint64_t next[BCL_SV_MAX_COLS];
    for (uint32_t c = 0; c < d->ncols; c++)
        next[c] = d->col[c].offset;
    d->first[0] = 0;
    for (uint64_t g = 0; g < d->ngroups; g++) {
        uint64_t items = bcl_sv_part_at(d, g, 0)->items;
        if (items == 0 || items > d->entries - d->first[g])
            return damaged(path, "a row group is empty or runs past the entries");
        for (uint32_t c = 0; c < d->ncols; c++) {
            const bcl_sv_part *p = bcl_sv_part_at(d, g, (int)c);
            const bcl_sv_column *col = &d->col[c];
            if (p->items != items)
                return damaged(path, "a row group's parts hold different row counts");
            if (p->offset != next[c] || p->length > col->offset + col->bytes - next[c])
                return damaged(path, "the parts do not tile their column");
            if (col->width ? p->length != items * col->width : p->length < items)
                return damaged(path, "a part's length does not fit its rows");
            next[c] += p->length;
        }
        d->first[g + 1] = d->first[g] + items;
    }
    if (d->first[d->ngroups] != d->entries)
        return damaged(path, "the row groups do not hold all the entries");
    for (uint32_t c = 0; c < d->ncols; c++)
        if (next[c] != d->col[c].offset + d->col[c].bytes)
            return damaged(path, "the parts do not tile their column");
    return BCL_OK;
}

static bcl_status check_info(const bcl_sv_desc *d, const char *path)
{
    bcl_mp_reader r;
    bcl_mp_item it;
    bcl_mp_reader_init(&r, d->info, d->info_len);
    if (d->info_len == 0 || bcl_mp_read(&r, &it) != BCL_OK || it.type != BCL_MP_MAP ||
        bcl_mp_validate(d->info, d->info_len) != BCL_OK)
        return damaged(path, "its info block is not one msgpack map");
    return BCL_OK;
}

bcl_status bcl_sv_parse(const void *buf, size_t n, uint64_t file_size, const char *path,
                        bcl_sv_desc *d)
{
    const unsigned char *h = buf;
    uint64_t len;
    memset(d, 0, sizeof *d);
    bcl_status st = bcl_sv_head(buf, n, file_size, path, &len);
    if (st != BCL_OK)
        return st;
    if (n < len)
        return bcl_set_error(BCL_ERR_DECODE, "%s: truncated pybcl file: %zu of its "
                             "descriptor's %llu bytes", path, n, (unsigned long long)len);
    if ((st = check_checksum(h, len, path)) != BCL_OK)
        return st;
    d->version = (uint32_t)get_le(h + H_VERSION, 4);
    d->kind = (uint32_t)get_le(h + H_KIND, 4);
    d->ranks = (uint32_t)get_le(h + H_RANKS, 4);
    d->ncols = (uint32_t)get_le(h + H_NCOLS, 4);
    d->entries = get_le(h + H_ENTRIES, 8);
    d->ngroups = get_le(h + H_NGROUPS, 8);
    d->info_len = get_le(h + H_INFO_LEN, 8);
    d->data_off = get_le(h + H_DATA_OFF, 8);
    d->file_size = get_le(h + H_FILE_SIZE, 8);
    d->desc_len = len;
    if ((st = check_header(d, h, file_size, path)) != BCL_OK)
        return st;
    const unsigned char *p = h + BCL_SV_HEAD;
    for (uint32_t c = 0; c < d->ncols; c++, p += BCL_SV_ENTRY) {
        d->col[c].width = get_le(p, 8);
        d->col[c].items = get_le(p + 8, 8);
        d->col[c].offset = get_le(p + 16, 8);
        d->col[c].bytes = get_le(p + 24, 8);
    }
    if ((st = check_columns(d, path)) != BCL_OK)
        return st;
    uint64_t nparts = d->ngroups * d->ncols;     /* bounded by bcl_sv_head */
    d->parts = malloc((size_t)(nparts ? nparts : 1) * sizeof *d->parts);
    d->first = malloc((size_t)(d->ngroups + 1) * sizeof *d->first);
    d->info = malloc((size_t)(d->info_len ? d->info_len : 1));
    if (!d->parts || !d->first || !d->info) {
        bcl_sv_desc_free(d);
        return bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for its part table", path);
    }
    for (uint64_t i = 0; i < nparts; i++, p += BCL_SV_ENTRY) {
        d->parts[i].offset = get_le(p, 8);
        d->parts[i].length = get_le(p + 8, 8);
        d->parts[i].items = get_le(p + 16, 8);
        d->parts[i].checksum = get_le(p + 24, 8);
    }
    memcpy(d->info, p, (size_t)d->info_len);
    if ((st = check_parts(d, path)) != BCL_OK || (st = check_info(d, path)) != BCL_OK)
        bcl_sv_desc_free(d);
    return st;
}

uint64_t bcl_sv_group_of(const bcl_sv_desc *d, uint64_t r)
{
    uint64_t lo = 0, hi = d->ngroups;      /* first[lo] <= r < first[hi] */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (d->first[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* ---- writing ------------------------------------------------------------- */

bcl_status bcl_sv_encode(bcl_sv_desc *d, unsigned char **out)
{
    uint64_t nparts = d->ngroups * d->ncols;
    d->version = BCL_SV_VERSION;
    d->desc_len = BCL_SV_HEAD + (nparts + d->ncols) * BCL_SV_ENTRY + d->info_len;
    d->data_off = align_up(d->desc_len);
    uint64_t at = d->data_off;
    for (uint32_t c = 0; c < d->ncols; c++) {
        bcl_sv_column *col = &d->col[c];
        col->items = d->entries;
        col->offset = at = align_up(at);
        col->bytes = 0;
        for (uint64_t g = 0; g < d->ngroups; g++) {
            bcl_sv_part *p = &d->parts[g * d->ncols + c];
            p->offset = at + col->bytes;
            col->bytes += p->length;
        }
        at = col->offset + col->bytes;
    }
    d->file_size = at;
    unsigned char *b = calloc(1, (size_t)d->data_off);
    if (!b)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for a %llu-byte file descriptor",
                             (unsigned long long)d->data_off);
    memcpy(b, BCL_SV_MAGIC, BCL_SV_MAGIC_LEN);
    put_le(b + H_VERSION, d->version, 4);
    put_le(b + H_KIND, d->kind, 4);
    put_le(b + H_RANKS, d->ranks, 4);
    put_le(b + H_NCOLS, d->ncols, 4);
    put_le(b + H_ENTRIES, d->entries, 8);
    put_le(b + H_NGROUPS, d->ngroups, 8);
    put_le(b + H_INFO_LEN, d->info_len, 8);
    put_le(b + H_DATA_OFF, d->data_off, 8);
    put_le(b + H_FILE_SIZE, d->file_size, 8);
    unsigned char *p = b + BCL_SV_HEAD;
    for (uint32_t c = 0; c < d->ncols; c++, p += BCL_SV_ENTRY) {
        put_le(p, d->col[c].width, 8);
        put_le(p + 8, d->col[c].items, 8);
        put_le(p + 16, d->col[c].offset, 8);
        put_le(p + 24, d->col[c].bytes, 8);
    }
    for (uint64_t i = 0; i < nparts; i++, p += BCL_SV_ENTRY) {
        put_le(p, d->parts[i].offset, 8);
        put_le(p + 8, d->parts[i].length, 8);
        put_le(p + 16, d->parts[i].items, 8);
        put_le(p + 24, d->parts[i].checksum, 8);
    }
    memcpy(p, d->info, (size_t)d->info_len);
    put_le(b + H_CHECKSUM, bcl_hash64(b, (size_t)d->desc_len, 0), 8);
    *out = b;
    return BCL_OK;
}
