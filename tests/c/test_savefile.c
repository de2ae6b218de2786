/*
 * The saved-container format and reader (csrc/io/bcl_sv_format.c,
 * bcl_sv_read.c) without MPI, under ASan/UBSan: files built with
 * bcl_sv_encode from row groups of uneven sizes are read back through an
 * in-memory pread, every row range [r0, r1) of a fixed-width column and
 * every whole-group range of a msgpack column equal to what was written;
 * a byte flipped anywhere in the descriptor or in a part makes every read
 * that covers it fail (and no other); truncated files and other versions
 * are refused with messages naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/bcl_sv_read.h"
#include "serial/bcl_hash.h"
#include "sv_image.h"

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", __FILE__, __LINE__, \
                    #c, bcl_last_error());                                       \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

/* Rows 0..n-1: column 0 is 8-byte row numbers, column 1 one msgpack
 * string of i % 7 'x's per row.  Groups of the sizes given. */
enum { NROWS = 23 };
static const uint64_t GROUPS[] = { 3, 5, 1, 7, 2, 5 };
#define NGROUPS (sizeof GROUPS / sizeof *GROUPS)

static size_t msg(unsigned char *out, uint64_t i)
{
    size_t n = i % 7;
    out[0] = (unsigned char)(0xa0 | n);        /* fixstr */
    memset(out + 1, 'x', n);
    return 1 + n;
}

static sv_image build(void)
{
    unsigned char col0[NROWS * 8], col1[NROWS * 8];
    size_t len1 = 0, starts1[NROWS + 1];
    for (uint64_t i = 0; i < NROWS; i++) {
        memcpy(col0 + 8 * i, &i, 8);
        starts1[i] = len1;
        len1 += msg(col1 + len1, i);
    }
    starts1[NROWS] = len1;
    static unsigned char info[] = { 0x81, 0xa1, 'k', 0x01 };   /* {"k": 1} */
    bcl_sv_desc d;
    memset(&d, 0, sizeof d);
    d.kind = BCL_SV_HASHMAP;
    d.ranks = 2;
    d.ncols = 2;
    d.entries = NROWS;
    d.ngroups = NGROUPS;
    d.info = info;
    d.info_len = sizeof info;
    d.col[0].width = 8;
    d.col[1].width = 0;
    bcl_sv_part parts[2 * NGROUPS];
    d.parts = parts;
    uint64_t row = 0;
    for (size_t g = 0; g < NGROUPS; g++) {
        parts[2 * g] = (bcl_sv_part){ 0, GROUPS[g] * 8, GROUPS[g],
                                      bcl_hash64(col0 + 8 * row, GROUPS[g] * 8, 0) };
        size_t a = starts1[row], b = starts1[row + GROUPS[g]];
        parts[2 * g + 1] = (bcl_sv_part){ 0, b - a, GROUPS[g], bcl_hash64(col1 + a, b - a, 0) };
        row += GROUPS[g];
    }
    CHECK(row == NROWS);
    unsigned char *desc;
    CHECK(bcl_sv_encode(&d, &desc) == BCL_OK);
    sv_image im = { calloc(1, d.file_size), d.file_size };
    memcpy(im.data, desc, d.data_off);
    memcpy(im.data + d.col[0].offset, col0, NROWS * 8);
    memcpy(im.data + d.col[1].offset, col1, len1);
    free(desc);
    return im;
}

static bcl_status open_image(sv_image *im, bcl_sv_source *s, bcl_sv_desc *d)
{
    *s = sv_image_source(im, "mem.pybcl");
    unsigned char *bytes = NULL;
    uint64_t len;
    bcl_status st = bcl_sv_read_desc(s, &bytes, &len);
    if (st == BCL_OK)
        st = bcl_sv_parse(bytes, len, im->size, "mem.pybcl", d);
    free(bytes);
    return st;
}

/* Every fixed-width range and every whole-group msgpack range reads back
 * (ok = 1) or fails exactly when it covers a damaged part. */
static void read_all(sv_image *im, int flipped_col, uint64_t flipped_group)
{
    bcl_sv_source s;
    bcl_sv_desc d;
    CHECK(open_image(im, &s, &d) == BCL_OK);
    CHECK(d.entries == NROWS && d.ngroups == NGROUPS && d.ranks == 2);
    unsigned char buf[NROWS * 8], want[8];
    for (uint64_t r0 = 0; r0 <= NROWS; r0++) {
        for (uint64_t r1 = r0; r1 <= NROWS; r1++) {
            bcl_status st = bcl_sv_read_rows(&d, &s, 0, r0, r1, buf);
            /* the parts a fixed range reads: those holding its rows */
            int bad = flipped_col == 0 && r1 > r0 &&
                      d.first[flipped_group] < r1 && d.first[flipped_group + 1] > r0;
            CHECK((st != BCL_OK) == bad);
            for (uint64_t i = r0; !bad && i < r1; i++)
                CHECK(memcmp(buf + 8 * (i - r0), &i, 8) == 0);
            uint64_t span = bcl_sv_span_bytes(&d, 1, r0, r1);
            if (span == UINT64_MAX) {
                CHECK(bcl_sv_read_rows(&d, &s, 1, r0, r1, buf) == BCL_ERR_ARG);
                continue;
            }
            st = bcl_sv_read_rows(&d, &s, 1, r0, r1, buf);
            bad = flipped_col == 1 && d.first[flipped_group] >= r0 &&
                  d.first[flipped_group + 1] <= r1 && r1 > r0;
            CHECK((st != BCL_OK) == bad);
            size_t at = 0;
            for (uint64_t i = r0; !bad && i < r1; i++) {
                size_t n = msg(want, i);
                CHECK(memcmp(buf + at, want, n) == 0);
                at += n;
            }
            CHECK(bad || at == span);
        }
    }
    bcl_sv_desc_free(&d);
}

int main(void)
{
    sv_image im = build();
    read_all(&im, -1, 0);

    /* a flipped byte in each part: only the reads covering it fail */
    bcl_sv_source s;
    bcl_sv_desc d;
    CHECK(open_image(&im, &s, &d) == BCL_OK);
    for (int c = 0; c < 2; c++) {
        for (uint64_t g = 0; g < NGROUPS; g++) {
            const bcl_sv_part *p = bcl_sv_part_at(&d, g, c);
            im.data[p->offset + p->length - 1] ^= 0x10;
            read_all(&im, c, g);
            im.data[p->offset + p->length - 1] ^= 0x10;
        }
    }
    /* a flipped byte anywhere in the descriptor: refused */
    for (uint64_t i = 0; i < d.desc_len; i++) {
        bcl_sv_desc e;
        im.data[i] ^= 0x01;
        CHECK(open_image(&im, &s, &e) != BCL_OK);
        CHECK(strstr(bcl_last_error(), "mem.pybcl") != NULL);
        im.data[i] ^= 0x01;
    }
    /* truncated anywhere: refused */
    size_t size = im.size;
    for (im.size = 0; im.size < size; im.size++) {
        bcl_sv_desc e;
        CHECK(open_image(&im, &s, &e) != BCL_OK);
    }
    /* another version: the message says so */
    im.size = size;
    im.data[8] = 2;
    bcl_sv_desc e;
    CHECK(open_image(&im, &s, &e) == BCL_ERR_DECODE &&
          strstr(bcl_last_error(), "version 2") != NULL);
    bcl_sv_desc_free(&d);
    free(im.data);
    printf("ok\n");
    return 0;
}
