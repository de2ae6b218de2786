/* bcl_msgpack.c -- writer buffer management and the validating reader
 * (see bcl_msgpack.h). */
#include "serial/bcl_msgpack.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ writer */

void bcl_mp_writer_init(bcl_mp_writer *w)
{
    w->buf = NULL;
    w->len = 0;
    w->cap = 0;
}

void bcl_mp_writer_free(bcl_mp_writer *w)
{
    free(w->buf);
    bcl_mp_writer_init(w);
}

void bcl_mp_writer_reset(bcl_mp_writer *w)
{
    w->len = 0;
}

bcl_status bcl_mp_writer_grow(bcl_mp_writer *w, size_t extra)
{
    size_t need, cap;
    unsigned char *p;

    if (extra > SIZE_MAX - w->len)
        return bcl_set_error(BCL_ERR_NOMEM, "msgpack: buffer size overflow");
    need = w->len + extra;
    /* Doubling keeps appends amortised O(1); start at 256 so small keys need
     * a single allocation. */
    cap = w->cap ? w->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(w->buf, cap);
    if (!p)
        return bcl_set_error(BCL_ERR_NOMEM,
                             "msgpack: cannot grow buffer to %zu bytes", cap);
    w->buf = p;
    w->cap = cap;
    return BCL_OK;
}

/* ------------------------------------------------------------------ reader */

static bcl_status truncated(const bcl_mp_reader *r, size_t want)
{
    return bcl_set_error(BCL_ERR_DECODE,
                         "msgpack: truncated input: need %zu bytes at offset "
                         "%zu, only %zu remain",
                         want, r->pos, r->len - r->pos);
}

/* Big-endian fixed-size field of `n` bytes (1, 2, 4 or 8) at the cursor. */
static inline bcl_status read_be(bcl_mp_reader *r, size_t n, uint64_t *v)
{
    const unsigned char *p = r->data + r->pos;
    *v = 0;     /* defined even on error (and keeps -Wmaybe-uninitialized quiet) */
    if (r->len - r->pos < n)
        return truncated(r, n);
    *v = bcl_mp_get_be(p, n);
    r->pos += n;
    return BCL_OK;
}

/* str/bin payload of `n` bytes: checked against what remains, then skipped. */
static bcl_status take_payload(bcl_mp_reader *r, uint64_t n, bcl_mp_item *out)
{
    if (n > r->len - r->pos)
        return bcl_set_error(BCL_ERR_DECODE,
                             "msgpack: %s of %llu bytes at offset %zu but "
                             "only %zu bytes remain",
                             out->type == BCL_MP_STR ? "str" :
                             out->type == BCL_MP_EXT ? "ext" : "bin",
                             (unsigned long long)n, r->pos, r->len - r->pos);
    out->len = (uint32_t)n;
    out->ptr = r->data + r->pos;
    r->pos += (size_t)n;
    return BCL_OK;
}

/* array/map count: every item takes at least one byte, so a count larger
 * than the remaining bytes is a lie; rejecting it here lets consumers
 * pre-allocate `len` slots without trusting the input. */
static bcl_status take_count(bcl_mp_reader *r, uint64_t n, bcl_mp_item *out)
{
    uint64_t min_bytes = out->type == BCL_MP_MAP ? 2 * n : n;
    if (min_bytes > r->len - r->pos)
        return bcl_set_error(BCL_ERR_DECODE,
                             "msgpack: %s of %llu items at offset %zu but "
                             "only %zu bytes remain",
                             out->type == BCL_MP_MAP ? "map" : "array",
                             (unsigned long long)n, r->pos, r->len - r->pos);
    out->len = (uint32_t)n;
    return BCL_OK;
}

/* Length-prefixed forms: `lenbytes` big-endian length, then payload/items. */
static inline bcl_status read_sized(bcl_mp_reader *r, bcl_mp_type t, size_t lenbytes,
                             bcl_mp_item *out)
{
    uint64_t n;
    bcl_status st = read_be(r, lenbytes, &n);
    if (st != BCL_OK)
        return st;
    out->type = t;
    if (t == BCL_MP_STR || t == BCL_MP_BIN)
        return take_payload(r, n, out);
    return take_count(r, n, out);
}

/* Numbers: each caller passes a constant width, so after inlining read_be's
 * switch folds away and every type byte gets a straight-line decoder. */
static inline bcl_status read_uint(bcl_mp_reader *r, size_t n,
                                   bcl_mp_item *out)
{
    out->type = BCL_MP_UINT;
    return read_be(r, n, &out->v.u);
}

static inline bcl_status read_int(bcl_mp_reader *r, size_t n,
                                  bcl_mp_item *out)
{
    uint64_t v;
    bcl_status st = read_be(r, n, &v);
    out->type = BCL_MP_INT;
    switch (n) {        /* sign-extend from the field width */
    case 1: out->v.i = (int8_t)(uint8_t)v; break;
    case 2: out->v.i = (int16_t)(uint16_t)v; break;
    case 4: out->v.i = (int32_t)(uint32_t)v; break;
    default: out->v.i = (int64_t)v; break;
    }
    return st;
}

static inline bcl_status read_float(bcl_mp_reader *r, size_t n,
                                    bcl_mp_item *out)
{
    uint64_t v;
    bcl_status st = read_be(r, n, &v);
    out->type = BCL_MP_FLOAT;
    if (n == 4) {       /* float32: widened, like msgpack-python */
        float f;
        uint32_t u = (uint32_t)v;
        memcpy(&f, &u, sizeof f);
        out->v.f = f;
    } else {
        memcpy(&out->v.f, &v, sizeof v);
    }
    return st;
}

/* ext: a `lenbytes` length (or the fixed size `fixed`), the type byte, the
 * payload.  The consumer decides which ext types it knows (pybcl's
 * GlobalPtr); the reader only frames them. */
static bcl_status read_ext(bcl_mp_reader *r, size_t lenbytes, uint64_t fixed,
                           bcl_mp_item *out)
{
    uint64_t n = fixed, type;
    bcl_status st = lenbytes ? read_be(r, lenbytes, &n) : BCL_OK;
    if (st == BCL_OK)
        st = read_be(r, 1, &type);
    if (st != BCL_OK)
        return st;
    out->type = BCL_MP_EXT;
    out->v.i = (int8_t)(uint8_t)type;
    return take_payload(r, n, out);
}

/* Type bytes 0xc0..0xdf (everything that is not a fix-form). */
static inline bcl_status read_tagged(bcl_mp_reader *r, unsigned b, bcl_mp_item *out)
{
    switch (b) {
    case 0xc0: out->type = BCL_MP_NIL; return BCL_OK;
    case 0xc2: case 0xc3:
        out->type = BCL_MP_BOOL;
        out->v.b = b == 0xc3;
        return BCL_OK;
    case 0xc4: return read_sized(r, BCL_MP_BIN, 1, out);
    case 0xc5: return read_sized(r, BCL_MP_BIN, 2, out);
    case 0xc6: return read_sized(r, BCL_MP_BIN, 4, out);
    case 0xca: return read_float(r, 4, out);
    case 0xcb: return read_float(r, 8, out);
    case 0xcc: return read_uint(r, 1, out);
    case 0xcd: return read_uint(r, 2, out);
    case 0xce: return read_uint(r, 4, out);
    case 0xcf: return read_uint(r, 8, out);
    case 0xd0: return read_int(r, 1, out);
    case 0xd1: return read_int(r, 2, out);
    case 0xd2: return read_int(r, 4, out);
    case 0xd3: return read_int(r, 8, out);
    case 0xd9: return read_sized(r, BCL_MP_STR, 1, out);
    case 0xda: return read_sized(r, BCL_MP_STR, 2, out);
    case 0xdb: return read_sized(r, BCL_MP_STR, 4, out);
    case 0xdc: return read_sized(r, BCL_MP_ARRAY, 2, out);
    case 0xdd: return read_sized(r, BCL_MP_ARRAY, 4, out);
    case 0xde: return read_sized(r, BCL_MP_MAP, 2, out);
    case 0xdf: return read_sized(r, BCL_MP_MAP, 4, out);
    case 0xc1:
        return bcl_set_error(BCL_ERR_DECODE,
                             "msgpack: reserved type byte 0xc1 at offset %zu",
                             r->pos - 1);
    case 0xc7: return read_ext(r, 1, 0, out);
    case 0xc8: return read_ext(r, 2, 0, out);
    case 0xc9: return read_ext(r, 4, 0, out);
    default:   /* 0xd4..0xd8: fixext 1, 2, 4, 8, 16 */
        return read_ext(r, 0, (uint64_t)1 << (b - 0xd4), out);
    }
}

bcl_status bcl_mp_read_slow(bcl_mp_reader *r, bcl_mp_item *out)
{
    unsigned b;

    if (r->pos >= r->len)
        return bcl_set_error(BCL_ERR_DECODE,
                             "msgpack: truncated input: expected an object at "
                             "offset %zu",
                             r->pos);
    b = r->data[r->pos++];
    if (b <= 0x7f) {                    /* positive fixint */
        out->type = BCL_MP_UINT;
        out->v.u = b;
        return BCL_OK;
    }
    if (b >= 0xe0) {                    /* negative fixint */
        out->type = BCL_MP_INT;
        out->v.i = (int8_t)(uint8_t)b;
        return BCL_OK;
    }
    if (b <= 0x8f) {
        out->type = BCL_MP_MAP;
        return take_count(r, b & 0x0f, out);
    }
    if (b <= 0x9f) {
        out->type = BCL_MP_ARRAY;
        return take_count(r, b & 0x0f, out);
    }
    if (b <= 0xbf) {
        out->type = BCL_MP_STR;
        return take_payload(r, b & 0x1f, out);
    }
    return read_tagged(r, b, out);
}

bcl_status bcl_mp_skip(bcl_mp_reader *r)
{
    /* Iterative walk: `left` counts the items still to read at the current
     * level; stack[] holds the parents' counts.  No recursion, so the depth
     * limit is the only bound on nesting and the C stack use is fixed. */
    uint64_t stack[BCL_MP_MAX_DEPTH];
    size_t depth = 0;
    uint64_t left = 1;
    bcl_mp_item it;

    for (;;) {
        bcl_status st;
        if (left == 0) {
            if (depth == 0)
                return BCL_OK;
            left = stack[--depth];
            continue;
        }
        left--;
        st = bcl_mp_read(r, &it);
        if (st != BCL_OK)
            return st;
        if (it.type != BCL_MP_ARRAY && it.type != BCL_MP_MAP)
            continue;
        if (depth >= BCL_MP_MAX_DEPTH)
            return bcl_set_error(BCL_ERR_DECODE,
                                 "msgpack: nesting deeper than %d levels at "
                                 "offset %zu",
                                 BCL_MP_MAX_DEPTH, r->pos);
        if (it.len == 0)
            continue;
        stack[depth++] = left;
        left = it.type == BCL_MP_MAP ? 2 * (uint64_t)it.len : it.len;
    }
}

bcl_status bcl_mp_validate(const void *data, size_t len)
{
    bcl_mp_reader r;
    bcl_status st;

    bcl_mp_reader_init(&r, data, len);
    st = bcl_mp_skip(&r);
    if (st != BCL_OK)
        return st;
    if (r.pos != len)
        return bcl_set_error(BCL_ERR_DECODE,
                             "msgpack: %zu trailing bytes after the object "
                             "(offset %zu)",
                             len - r.pos, r.pos);
    return BCL_OK;
}
