/*
 * bcl_msgpack.h -- a small msgpack codec (plain C, no Python).
 *
 * Containers store keys and values as msgpack bytes in remote memory, so the
 * encoding must be canonical: the writer always picks the smallest encoding,
 * exactly like msgpack-python's packer with use_bin_type=True, which makes
 * equal objects produce equal bytes on every rank (byte-wise key compare and
 * hashing depend on that).  Floats are always float64 (use_single_float=False).
 *
 * The reader is a validating cursor over untrusted bytes (they may come from a
 * remote rank or a torn read): it never reads past the buffer, never trusts a
 * claimed length, and never allocates.  Every failure is BCL_ERR_DECODE with a
 * message naming the offset.
 */
#ifndef BCL_MSGPACK_H
#define BCL_MSGPACK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/bcl_error.h"

/* Deepest container nesting accepted by the reader (and by the binding's
 * packer), so a hostile input cannot exhaust the C stack of a recursive
 * consumer. */
#define BCL_MP_MAX_DEPTH 512

/* ------------------------------------------------------------------ writer */

/* A growable output buffer.  All zero is the empty writer (what
 * bcl_mp_writer_init sets), so zeroed memory holds empty writers. */
typedef struct {
    unsigned char *buf;
    size_t len, cap;
} bcl_mp_writer;

void bcl_mp_writer_init(bcl_mp_writer *w);
void bcl_mp_writer_free(bcl_mp_writer *w);   /* releases buf; w is re-usable */
void bcl_mp_writer_reset(bcl_mp_writer *w);  /* len = 0, keeps the capacity */

/* Make room for `extra` more bytes (slow path of bcl_mp_reserve). */
bcl_status bcl_mp_writer_grow(bcl_mp_writer *w, size_t extra);

/* The write functions are inline: the binding calls them once per Python
 * object, and a call per byte-sized header would dominate packing time. */
static inline bcl_status bcl_mp_reserve(bcl_mp_writer *w, size_t extra)
{
    if (w->cap - w->len >= extra)
        return BCL_OK;
    return bcl_mp_writer_grow(w, extra);
}

/* Big-endian stores written byte by byte: portable, and gcc folds them into a
 * bswap + store. */
static inline void bcl_mp_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static inline void bcl_mp_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline void bcl_mp_put64(unsigned char *p, uint64_t v)
{
    bcl_mp_put32(p, (uint32_t)(v >> 32));
    bcl_mp_put32(p + 4, (uint32_t)v);
}

static inline bcl_status bcl_mp_write_byte(bcl_mp_writer *w, unsigned char b)
{
    if (bcl_mp_reserve(w, 1) != BCL_OK)
        return BCL_ERR_NOMEM;
    w->buf[w->len++] = b;
    return BCL_OK;
}

static inline bcl_status bcl_mp_write_nil(bcl_mp_writer *w)
{
    return bcl_mp_write_byte(w, 0xc0);
}

static inline bcl_status bcl_mp_write_bool(bcl_mp_writer *w, int v)
{
    return bcl_mp_write_byte(w, v ? 0xc3 : 0xc2);
}

/* Non-negative integers use the uint family, as msgpack-python does. */
static inline bcl_status bcl_mp_write_uint64(bcl_mp_writer *w, uint64_t v)
{
    unsigned char *p;
    if (bcl_mp_reserve(w, 9) != BCL_OK)
        return BCL_ERR_NOMEM;
    p = w->buf + w->len;
    if (v < 0x80) {
        p[0] = (unsigned char)v;
        w->len += 1;
    } else if (v <= 0xff) {
        p[0] = 0xcc;
        p[1] = (unsigned char)v;
        w->len += 2;
    } else if (v <= 0xffff) {
        p[0] = 0xcd;
        bcl_mp_put16(p + 1, (uint16_t)v);
        w->len += 3;
    } else if (v <= 0xffffffffu) {
        p[0] = 0xce;
        bcl_mp_put32(p + 1, (uint32_t)v);
        w->len += 5;
    } else {
        p[0] = 0xcf;
        bcl_mp_put64(p + 1, v);
        w->len += 9;
    }
    return BCL_OK;
}

/* Negative integers use negative fixint / int8..int64. */
static inline bcl_status bcl_mp_write_int64(bcl_mp_writer *w, int64_t v)
{
    unsigned char *p;
    if (v >= 0)
        return bcl_mp_write_uint64(w, (uint64_t)v);
    if (bcl_mp_reserve(w, 9) != BCL_OK)
        return BCL_ERR_NOMEM;
    p = w->buf + w->len;
    if (v >= -32) {
        p[0] = (unsigned char)(int8_t)v;       /* 0xe0..0xff */
        w->len += 1;
    } else if (v >= INT8_MIN) {
        p[0] = 0xd0;
        p[1] = (unsigned char)(int8_t)v;
        w->len += 2;
    } else if (v >= INT16_MIN) {
        p[0] = 0xd1;
        bcl_mp_put16(p + 1, (uint16_t)(int16_t)v);
        w->len += 3;
    } else if (v >= INT32_MIN) {
        p[0] = 0xd2;
        bcl_mp_put32(p + 1, (uint32_t)(int32_t)v);
        w->len += 5;
    } else {
        p[0] = 0xd3;
        bcl_mp_put64(p + 1, (uint64_t)v);
        w->len += 9;
    }
    return BCL_OK;
}

static inline bcl_status bcl_mp_write_double(bcl_mp_writer *w, double v)
{
    uint64_t bits;
    if (bcl_mp_reserve(w, 9) != BCL_OK)
        return BCL_ERR_NOMEM;
    memcpy(&bits, &v, sizeof bits);
    w->buf[w->len] = 0xcb;
    bcl_mp_put64(w->buf + w->len + 1, bits);
    w->len += 9;
    return BCL_OK;
}

/* Header of a str/bin/array/map: `fix` is the fix-form base (0 if the type has
 * none), with `fixmax` items; b8/b16/b32 the type bytes (b8 == 0: no 8-bit
 * form).  Lengths above 2**32-1 cannot be represented. */
static inline bcl_status bcl_mp_write_header(bcl_mp_writer *w, size_t n,
                                             unsigned fix, size_t fixmax,
                                             unsigned b8, unsigned b16,
                                             unsigned b32)
{
    unsigned char *p;
    if (n > 0xffffffffu)
        return bcl_set_error(BCL_ERR_ARG,
                             "msgpack: length %zu exceeds 2**32-1", n);
    if (bcl_mp_reserve(w, 5) != BCL_OK)
        return BCL_ERR_NOMEM;
    p = w->buf + w->len;
    if (fix && n <= fixmax) {
        p[0] = (unsigned char)(fix | n);
        w->len += 1;
    } else if (b8 && n <= 0xff) {
        p[0] = (unsigned char)b8;
        p[1] = (unsigned char)n;
        w->len += 2;
    } else if (n <= 0xffff) {
        p[0] = (unsigned char)b16;
        bcl_mp_put16(p + 1, (uint16_t)n);
        w->len += 3;
    } else {
        p[0] = (unsigned char)b32;
        bcl_mp_put32(p + 1, (uint32_t)n);
        w->len += 5;
    }
    return BCL_OK;
}

static inline bcl_status bcl_mp_write_str_header(bcl_mp_writer *w, size_t n)
{
    return bcl_mp_write_header(w, n, 0xa0, 31, 0xd9, 0xda, 0xdb);
}

static inline bcl_status bcl_mp_write_bin_header(bcl_mp_writer *w, size_t n)
{
    return bcl_mp_write_header(w, n, 0, 0, 0xc4, 0xc5, 0xc6);
}

static inline bcl_status bcl_mp_write_array_header(bcl_mp_writer *w, size_t n)
{
    return bcl_mp_write_header(w, n, 0x90, 15, 0, 0xdc, 0xdd);
}

static inline bcl_status bcl_mp_write_map_header(bcl_mp_writer *w, size_t n)
{
    return bcl_mp_write_header(w, n, 0x80, 15, 0, 0xde, 0xdf);
}

/* Raw bytes (a payload after a str/bin header, or a pre-encoded object). */
static inline bcl_status bcl_mp_write_raw(bcl_mp_writer *w, const void *data,
                                          size_t n)
{
    if (bcl_mp_reserve(w, n) != BCL_OK)
        return BCL_ERR_NOMEM;
    if (n)
        memcpy(w->buf + w->len, data, n);
    w->len += n;
    return BCL_OK;
}

static inline bcl_status bcl_mp_write_str(bcl_mp_writer *w, const char *s,
                                          size_t n)
{
    bcl_status st = bcl_mp_write_str_header(w, n);
    return st != BCL_OK ? st : bcl_mp_write_raw(w, s, n);
}

static inline bcl_status bcl_mp_write_bin(bcl_mp_writer *w, const void *d,
                                          size_t n)
{
    bcl_status st = bcl_mp_write_bin_header(w, n);
    return st != BCL_OK ? st : bcl_mp_write_raw(w, d, n);
}

/* ext of application type `type` with n payload bytes: fixext1/2/4/8/16
 * when n fits one, else ext8/16/32, the smallest form (as msgpack-python). */
static inline bcl_status bcl_mp_write_ext(bcl_mp_writer *w, int8_t type, const void *d,
                                          size_t n)
{
    unsigned char hdr[6];
    size_t hl;
    if (n > 0xffffffffu)
        return bcl_set_error(BCL_ERR_ARG, "msgpack: ext payload of %zu bytes is too "
                             "large", n);
    if (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) {
        hdr[0] = (unsigned char)(0xd4 + (n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : 4));
        hl = 1;
    } else if (n <= 0xff) {
        hdr[0] = 0xc7;
        hdr[1] = (unsigned char)n;
        hl = 2;
    } else if (n <= 0xffff) {
        hdr[0] = 0xc8;
        bcl_mp_put16(hdr + 1, (uint16_t)n);
        hl = 3;
    } else {
        hdr[0] = 0xc9;
        bcl_mp_put32(hdr + 1, (uint32_t)n);
        hl = 5;
    }
    hdr[hl++] = (unsigned char)type;
    bcl_status st = bcl_mp_write_raw(w, hdr, hl);
    return st != BCL_OK ? st : bcl_mp_write_raw(w, d, n);
}

/* ------------------------------------------------------------------ reader */

typedef enum {
    BCL_MP_NIL,
    BCL_MP_BOOL,
    BCL_MP_INT,    /* signed encodings (negative fixint, int8..int64): v.i  */
    BCL_MP_UINT,   /* unsigned encodings (positive fixint, uint8..64): v.u  */
    BCL_MP_FLOAT,  /* float32 or float64, widened to double:          v.f  */
    BCL_MP_STR,    /* `len` bytes at `ptr` (UTF-8 is NOT checked here)      */
    BCL_MP_BIN,    /* `len` bytes at `ptr`                                  */
    BCL_MP_ARRAY,  /* `len` items follow                                    */
    BCL_MP_MAP,    /* `len` key/value pairs follow                          */
    BCL_MP_EXT     /* ext type v.i (-128..127), `len` bytes at `ptr`        */
} bcl_mp_type;

typedef struct {
    bcl_mp_type type;
    union {
        int b;
        int64_t i;
        uint64_t u;
        double f;
    } v;
    uint32_t len;               /* str/bin bytes, array items, map pairs    */
    const unsigned char *ptr;   /* str/bin payload, points into the input   */
} bcl_mp_item;

typedef struct {
    const unsigned char *data;
    size_t len;
    size_t pos;                 /* offset of the next unread byte           */
} bcl_mp_reader;

static inline void bcl_mp_reader_init(bcl_mp_reader *r, const void *data,
                                      size_t len)
{
    r->data = (const unsigned char *)data;
    r->len = len;
    r->pos = 0;
}

/* The complete decoder of one item header, with every check and error
 * message.  bcl_mp_read below returns exactly the same results; it only
 * decodes the frequent, in-bounds forms inline and falls back to this for
 * everything else (including every error). */
bcl_status bcl_mp_read_slow(bcl_mp_reader *r, bcl_mp_item *out);

/* Big-endian field of constant width n at p (the switch folds when inlined). */
static inline uint64_t bcl_mp_get_be(const unsigned char *p, size_t n)
{
    switch (n) {
    case 1: return p[0];
    case 2: return ((uint64_t)p[0] << 8) | p[1];
    case 4: return ((uint64_t)p[0] << 24) | ((uint64_t)p[1] << 16) |
                   ((uint64_t)p[2] << 8) | p[3];
    default: return (bcl_mp_get_be(p, 4) << 32) | bcl_mp_get_be(p + 4, 4);
    }
}

/* Read the next item header.  str/bin payloads are consumed (ptr points at
 * them); array/map items are NOT: they are the next reads.  A claimed
 * array/map count is rejected when the remaining bytes cannot hold that many
 * items (>= 1 byte each), so a consumer may pre-size a list of `len` items
 * safely.  After an error the reader position is unspecified.
 * Inline because unpacking calls it once per object and a call per small
 * int was a measurable share of the time. */
static inline bcl_status bcl_mp_read(bcl_mp_reader *r, bcl_mp_item *out)
{
    const unsigned char *p;
    size_t avail;   /* bytes after the type byte */
    unsigned b;
    uint64_t n;

    if (r->pos >= r->len)
        return bcl_mp_read_slow(r, out);
    p = r->data + r->pos;
    avail = r->len - r->pos - 1;
    b = *p++;
    if (b <= 0x7f) {                    /* positive fixint */
        out->type = BCL_MP_UINT;
        out->v.u = b;
        r->pos += 1;
        return BCL_OK;
    }
    if (b >= 0xe0) {                    /* negative fixint */
        out->type = BCL_MP_INT;
        out->v.i = (int8_t)(uint8_t)b;
        r->pos += 1;
        return BCL_OK;
    }
    if (b >= 0xa0 && b <= 0xbf && (b & 0x1f) <= avail) {
        out->type = BCL_MP_STR;         /* fixstr, payload present */
        out->len = b & 0x1f;
        out->ptr = p;
        r->pos += 1 + out->len;
        return BCL_OK;
    }
    switch (b) {
    case 0xc0:
        out->type = BCL_MP_NIL;
        r->pos += 1;
        return BCL_OK;
    case 0xc2: case 0xc3:
        out->type = BCL_MP_BOOL;
        out->v.b = b & 1;
        r->pos += 1;
        return BCL_OK;
    case 0xcb:
        if (avail < 8)
            break;
        out->type = BCL_MP_FLOAT;
        n = bcl_mp_get_be(p, 8);
        memcpy(&out->v.f, &n, sizeof n);
        r->pos += 9;
        return BCL_OK;
    case 0xcc: case 0xcd: case 0xce: case 0xcf: {
        size_t w = (size_t)1 << (b & 3);
        if (avail < w)
            break;
        out->type = BCL_MP_UINT;
        out->v.u = bcl_mp_get_be(p, w);
        r->pos += 1 + w;
        return BCL_OK;
    }
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        size_t w = (size_t)1 << (b & 3);
        if (avail < w)
            break;
        n = bcl_mp_get_be(p, w);
        out->type = BCL_MP_INT;         /* sign-extend from the width */
        out->v.i = w == 8 ? (int64_t)n
                          : (int64_t)(n ^ ((uint64_t)1 << (8 * w - 1))) -
                                ((int64_t)1 << (8 * w - 1));
        r->pos += 1 + w;
        return BCL_OK;
    }
    case 0xc4: case 0xd9:               /* bin8 / str8 */
        if (avail < 1 || (size_t)p[0] > avail - 1)
            break;
        out->type = b == 0xd9 ? BCL_MP_STR : BCL_MP_BIN;
        out->len = p[0];
        out->ptr = p + 1;
        r->pos += 2 + out->len;
        return BCL_OK;
    default:
        break;
    }
    return bcl_mp_read_slow(r, out);
}

/* Skip one complete object (containers included, iteratively, at most
 * BCL_MP_MAX_DEPTH deep). */
bcl_status bcl_mp_skip(bcl_mp_reader *r);

/* Check that data[0..len) is exactly one complete, well-formed object. */
bcl_status bcl_mp_validate(const void *data, size_t len);

#endif /* BCL_MSGPACK_H */
