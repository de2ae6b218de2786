/*
 * libFuzzer target for the msgpack reader (csrc/serial/bcl_msgpack.c).
 *
 * For every input: bcl_mp_validate must not crash or read out of bounds
 * (ASan), and a manual iterative walk with bcl_mp_read must agree with it.
 * Each item is decoded twice, by the inline fast path (bcl_mp_read) and by
 * the complete decoder (bcl_mp_read_slow), which must return identical
 * results.  Valid inputs are re-encoded with the (canonical) writer; the
 * re-encoding must be valid and re-encode to itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serial/bcl_msgpack.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void same_item(const bcl_mp_item *a, const bcl_mp_item *b)
{
    CHECK(a->type == b->type);
    switch (a->type) {
    case BCL_MP_BOOL: CHECK(a->v.b == b->v.b); break;
    case BCL_MP_INT: CHECK(a->v.i == b->v.i); break;
    case BCL_MP_UINT: CHECK(a->v.u == b->v.u); break;
    case BCL_MP_FLOAT: CHECK(memcmp(&a->v.f, &b->v.f, sizeof a->v.f) == 0);
        break;
    case BCL_MP_EXT: CHECK(a->v.i == b->v.i);
        /* fall through */
    case BCL_MP_STR: case BCL_MP_BIN: CHECK(a->ptr == b->ptr);
        /* fall through */
    case BCL_MP_ARRAY: case BCL_MP_MAP: CHECK(a->len == b->len); break;
    case BCL_MP_NIL: break;
    }
}

/* Read one item both ways; touch every payload byte so ASan sees reads. */
static bcl_status read_both(bcl_mp_reader *r, bcl_mp_item *it, unsigned *sum)
{
    bcl_mp_reader r2 = *r;
    bcl_mp_item it2;
    bcl_status st = bcl_mp_read(r, it);
    bcl_status st2 = bcl_mp_read_slow(&r2, &it2);

    CHECK(st == st2);
    if (st != BCL_OK)
        return st;
    CHECK(r->pos == r2.pos && r->pos <= r->len);
    same_item(it, &it2);
    if (it->type == BCL_MP_STR || it->type == BCL_MP_BIN || it->type == BCL_MP_EXT)
        for (uint32_t i = 0; i < it->len; i++)
            *sum += it->ptr[i];
    return st;
}

/* Re-encode the item (canonical form) into w. */
static void reencode(bcl_mp_writer *w, const bcl_mp_item *it)
{
    bcl_status st = BCL_OK;
    switch (it->type) {
    case BCL_MP_NIL: st = bcl_mp_write_nil(w); break;
    case BCL_MP_BOOL: st = bcl_mp_write_bool(w, it->v.b); break;
    case BCL_MP_INT: st = bcl_mp_write_int64(w, it->v.i); break;
    case BCL_MP_UINT: st = bcl_mp_write_uint64(w, it->v.u); break;
    case BCL_MP_FLOAT: st = bcl_mp_write_double(w, it->v.f); break;
    case BCL_MP_STR: st = bcl_mp_write_str(w, (const char *)it->ptr, it->len);
        break;
    case BCL_MP_BIN: st = bcl_mp_write_bin(w, it->ptr, it->len); break;
    case BCL_MP_EXT: st = bcl_mp_write_ext(w, (int8_t)it->v.i, it->ptr, it->len); break;
    case BCL_MP_ARRAY: st = bcl_mp_write_array_header(w, it->len); break;
    case BCL_MP_MAP: st = bcl_mp_write_map_header(w, it->len); break;
    }
    CHECK(st == BCL_OK);
}

/* Same algorithm as bcl_mp_skip, written independently. */
static bcl_status walk(const uint8_t *data, size_t size, bcl_mp_writer *w,
                       unsigned *sum)
{
    static uint64_t stack[BCL_MP_MAX_DEPTH];
    size_t depth = 0;
    uint64_t left = 1;
    bcl_mp_reader r;
    bcl_mp_item it;

    bcl_mp_reader_init(&r, data, size);
    while (left > 0 || depth > 0) {
        if (left == 0) {
            left = stack[--depth];
            continue;
        }
        left--;
        if (read_both(&r, &it, sum) != BCL_OK)
            return BCL_ERR_DECODE;
        reencode(w, &it);
        if (it.type == BCL_MP_ARRAY || it.type == BCL_MP_MAP) {
            if (depth >= BCL_MP_MAX_DEPTH)
                return BCL_ERR_DECODE;
            if (it.len) {
                stack[depth++] = left;
                left = it.type == BCL_MP_MAP ? 2 * (uint64_t)it.len : it.len;
            }
        }
    }
    return r.pos == size ? BCL_OK : BCL_ERR_DECODE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bcl_mp_writer w, w2;
    unsigned sum = 0;
    bcl_status v = bcl_mp_validate(data, size);
    bcl_status m;

    bcl_mp_writer_init(&w);
    bcl_mp_writer_init(&w2);
    m = walk(data, size, &w, &sum);
    CHECK((v == BCL_OK) == (m == BCL_OK));
    if (v == BCL_OK) {
        CHECK(bcl_mp_validate(w.buf, w.len) == BCL_OK);
        CHECK(walk(w.buf, w.len, &w2, &sum) == BCL_OK);
        CHECK(w2.len == w.len && memcmp(w.buf, w2.buf, w.len) == 0);
    }
    bcl_mp_writer_free(&w);
    bcl_mp_writer_free(&w2);
    return (int)(sum & 0);
}
