/* bcl_sv_read.c -- reading a saved container's descriptor and rows
 * through a pread callback (bcl_sv_read.h). */
#include "io/bcl_sv_read.h"

#include <stdlib.h>
#include <string.h>

#include "serial/bcl_hash.h"
#include "serial/bcl_msgpack.h"

bcl_status bcl_sv_read_desc(const bcl_sv_source *s, unsigned char **bytes, uint64_t *len)
{
    unsigned char head[BCL_SV_HEAD];
    size_t n = s->size < BCL_SV_HEAD ? (size_t)s->size : BCL_SV_HEAD;
    bcl_status st = n ? s->pread(s->ctx, 0, head, n) : BCL_OK;
    if (st == BCL_OK)
        st = bcl_sv_head(head, n, s->size, s->path, len);
    if (st != BCL_OK)
        return st;
    *bytes = malloc((size_t)*len);
    if (!*bytes)
        return bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for its %llu-byte descriptor",
                             s->path, (unsigned long long)*len);
    if ((st = s->pread(s->ctx, 0, *bytes, (size_t)*len)) != BCL_OK) {
        free(*bytes);
        *bytes = NULL;
    }
    return st;
}

bcl_status bcl_sv_objects(const void *data, size_t len, uint64_t items, uint64_t *ends)
{
    /* bcl_mp_skip's walk, also refusing ext values: `left` counts the items
     * still to read at this level, stack[] the enclosing levels' counts. */
    uint64_t stack[BCL_MP_MAX_DEPTH];
    bcl_mp_reader r;
    bcl_mp_reader_init(&r, data, len);
    for (uint64_t i = 0; i < items; i++) {
        size_t depth = 0;
        uint64_t left = 1;
        while (left > 0 || depth > 0) {
            if (left == 0) {
                left = stack[--depth];
                continue;
            }
            left--;
            bcl_mp_item it;
            bcl_status st = bcl_mp_read(&r, &it);
            if (st != BCL_OK)
                return st;
            if (it.type == BCL_MP_EXT)
                return bcl_set_error(BCL_ERR_TYPE, "object %llu holds a msgpack ext "
                                     "value (a GlobalPtr)", (unsigned long long)i);
            if ((it.type != BCL_MP_ARRAY && it.type != BCL_MP_MAP) || it.len == 0)
                continue;
            if (depth >= BCL_MP_MAX_DEPTH)
                return bcl_set_error(BCL_ERR_DECODE, "msgpack: nesting deeper than %d "
                                     "levels", BCL_MP_MAX_DEPTH);
            stack[depth++] = left;
            left = it.type == BCL_MP_MAP ? 2 * (uint64_t)it.len : it.len;
        }
        if (ends)
            ends[i] = r.pos;
    }
    if (r.pos != len)
        return bcl_set_error(BCL_ERR_DECODE, "%zu bytes follow its %llu msgpack objects",
                             len - r.pos, (unsigned long long)items);
    return BCL_OK;
}

bcl_status bcl_sv_object_ends(const unsigned char *data, size_t len, uint64_t n,
                              uint64_t **ends)
{
    *ends = malloc((size_t)(n ? n : 1) * sizeof **ends);
    if (!*ends)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for %llu rows' offsets",
                             (unsigned long long)n);
    return bcl_sv_objects(data, len, n, *ends);
}

/* The part's bytes (at p) are what the table says they are. */
static bcl_status check_part(const bcl_sv_desc *d, const bcl_sv_source *s, uint64_t g, int c,
                             const unsigned char *p)
{
    const bcl_sv_part *part = bcl_sv_part_at(d, g, c);
    if (BCL_SV_CHECKSUMS && bcl_hash64(p, (size_t)part->length, 0) != part->checksum)
        return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: part %llu of column "
                             "%d fails its checksum (bytes altered)", s->path,
                             (unsigned long long)g, c);
    if (d->col[c].width)
        return BCL_OK;
    bcl_status st = bcl_sv_objects(p, (size_t)part->length, part->items, NULL);
    if (st != BCL_OK)
        return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: part %llu of column "
                             "%d: %s", s->path, (unsigned long long)g, c, bcl_last_error());
    return BCL_OK;
}

uint64_t bcl_sv_span_bytes(const bcl_sv_desc *d, int c, uint64_t r0, uint64_t r1)
{
    if (r0 >= r1)
        return 0;
    if (d->col[c].width)
        return (r1 - r0) * d->col[c].width;
    uint64_t ga = bcl_sv_group_of(d, r0), gb = bcl_sv_group_of(d, r1 - 1);
    if (d->first[ga] != r0 || d->first[gb + 1] != r1)
        return UINT64_MAX;
    const bcl_sv_part *a = bcl_sv_part_at(d, ga, c), *b = bcl_sv_part_at(d, gb, c);
    return b->offset + b->length - a->offset;
}

/* Groups [ga, gb] read whole into dst, then checked. */
static bcl_status read_groups(const bcl_sv_desc *d, const bcl_sv_source *s, int c,
                              uint64_t ga, uint64_t gb, unsigned char *dst)
{
    const bcl_sv_part *a = bcl_sv_part_at(d, ga, c), *b = bcl_sv_part_at(d, gb, c);
    bcl_status st = s->pread(s->ctx, a->offset, dst, (size_t)(b->offset + b->length -
                                                              a->offset));
    for (uint64_t g = ga; st == BCL_OK && g <= gb; g++)
        st = check_part(d, s, g, c, dst + (bcl_sv_part_at(d, g, c)->offset - a->offset));
    return st;
}

/* A group at the edge of a fixed-width range: read whole, checked, and the
 * rows of [r0, r1) it holds copied to their place in dst. */
static bcl_status read_edge(const bcl_sv_desc *d, const bcl_sv_source *s, int c, uint64_t g,
                            uint64_t r0, uint64_t r1, unsigned char *dst)
{
    const bcl_sv_part *p = bcl_sv_part_at(d, g, c);
    unsigned char *tmp = malloc((size_t)p->length);
    if (!tmp)
        return bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for a %llu-byte part", s->path,
                             (unsigned long long)p->length);
    bcl_status st = read_groups(d, s, c, g, g, tmp);
    if (st == BCL_OK) {
        uint64_t w = d->col[c].width, lo = d->first[g] > r0 ? d->first[g] : r0;
        uint64_t hi = d->first[g + 1] < r1 ? d->first[g + 1] : r1;
        memcpy(dst + (lo - r0) * w, tmp + (lo - d->first[g]) * w, (size_t)((hi - lo) * w));
    }
    free(tmp);
    return st;
}

bcl_status bcl_sv_read_rows(const bcl_sv_desc *d, const bcl_sv_source *s, int c,
                            uint64_t r0, uint64_t r1, void *dst)
{
    if (c < 0 || (uint32_t)c >= d->ncols || r0 > r1 || r1 > d->entries)
        return bcl_set_error(BCL_ERR_ARG, "%s: rows [%llu, %llu) of column %d are not in "
                             "the file", s->path, (unsigned long long)r0,
                             (unsigned long long)r1, c);
    if (r0 == r1)
        return BCL_OK;
    uint64_t ga = bcl_sv_group_of(d, r0), gb = bcl_sv_group_of(d, r1 - 1);
    if (!d->col[c].width) {
        if (bcl_sv_span_bytes(d, c, r0, r1) == UINT64_MAX)
            return bcl_set_error(BCL_ERR_ARG, "%s: rows [%llu, %llu) are not whole row "
                                 "groups", s->path, (unsigned long long)r0,
                                 (unsigned long long)r1);
        return read_groups(d, s, c, ga, gb, dst);
    }
    /* the groups wholly inside [r0, r1) go straight to their place in dst;
     * the one or two at the edges through a buffer of their own */
    unsigned char *out = dst;
    uint64_t ia = d->first[ga] == r0 ? ga : ga + 1;
    uint64_t ib = d->first[gb + 1] == r1 ? gb + 1 : gb;     /* one past */
    bcl_status st = BCL_OK;
    if (ia < ib)
        st = read_groups(d, s, c, ia, ib - 1,
                         out + (d->first[ia] - r0) * d->col[c].width);
    if (st == BCL_OK && ia != ga)
        st = read_edge(d, s, c, ga, r0, r1, out);
    if (st == BCL_OK && ib == gb && !(ia != ga && ga == gb))
        st = read_edge(d, s, c, gb, r0, r1, out);
    return st;
}
