/*
 * libFuzzer target for the saved-container reader (csrc/io/bcl_sv_read.c,
 * bcl_sv_format.c): every input is a whole file image.
 *
 * The reader must never crash or read out of bounds (ASan) whatever the
 * bytes: the descriptor is read and parsed; when that succeeds, every
 * column is read whole and in pieces (row ranges cut at every row-group
 * edge and in between, for fixed-width columns), and a msgpack column's
 * objects are delimited.  Whatever a read returns must agree with the
 * same rows read whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/bcl_sv_read.h"
#include "../tests/c/sv_image.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* Rows [r0, r1) of column c, compared with the whole column's bytes. */
static void read_piece(const bcl_sv_desc *d, const bcl_sv_source *s, int c, uint64_t r0,
                       uint64_t r1, const unsigned char *whole)
{
    uint64_t n = bcl_sv_span_bytes(d, c, r0, r1);
    if (n == UINT64_MAX)
        return;
    unsigned char *buf = malloc(n ? n : 1);
    CHECK(buf);
    if (bcl_sv_read_rows(d, s, c, r0, r1, buf) == BCL_OK && whole) {
        uint64_t at = d->col[c].width ? r0 * d->col[c].width
                                      : bcl_sv_span_bytes(d, c, 0, r0);
        CHECK(memcmp(buf, whole + at, n) == 0);
    }
    free(buf);
}

static void read_column(const bcl_sv_desc *d, const bcl_sv_source *s, int c)
{
    uint64_t n = bcl_sv_span_bytes(d, c, 0, d->entries);
    if (n > (1u << 24))
        return;
    unsigned char *whole = malloc(n ? n : 1);
    CHECK(whole);
    int ok = bcl_sv_read_rows(d, s, c, 0, d->entries, whole) == BCL_OK;
    if (ok && !d->col[c].width) {
        uint64_t *ends = NULL;
        if (bcl_sv_object_ends(whole, n, d->entries, &ends) == BCL_OK && d->entries)
            CHECK(ends[d->entries - 1] == n);
        free(ends);
    }
    /* every group edge, and a row inside each group, as range ends */
    for (uint64_t g = 0; g < d->ngroups && g < 64; g++) {
        uint64_t mid = d->first[g] + (d->first[g + 1] - d->first[g]) / 2;
        read_piece(d, s, c, d->first[g], d->first[g + 1], ok ? whole : NULL);
        read_piece(d, s, c, mid, d->entries, ok ? whole : NULL);
        read_piece(d, s, c, 0, mid + 1, ok ? whole : NULL);
    }
    free(whole);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sv_image im = { (unsigned char *)data, size };    /* read only */
    bcl_sv_source s = sv_image_source(&im, "fuzz");
    unsigned char *bytes = NULL;
    uint64_t len = 0;
    bcl_sv_desc d;
    if (bcl_sv_read_desc(&s, &bytes, &len) == BCL_OK) {
        CHECK(len <= size);
        if (bcl_sv_parse(bytes, len, size, "fuzz", &d) == BCL_OK) {
            CHECK(d.file_size == size && d.ncols >= 1 && d.first[d.ngroups] == d.entries);
            for (uint32_t c = 0; c < d.ncols; c++)
                read_column(&d, &s, (int)c);
            bcl_sv_desc_free(&d);
        }
    }
    free(bytes);
    return 0;
}
