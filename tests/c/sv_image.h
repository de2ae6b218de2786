/*
 * sv_image.h -- a saved file's whole image in memory as a source for the
 * saved-container reader (bcl_sv_source, io/bcl_sv_read.h): the reader's
 * unit test (tests/c/test_savefile.c, which damages images in place) and
 * its fuzz target (fuzz/fuzz_savefile.c) read through it.
 */
#ifndef SV_IMAGE_H
#define SV_IMAGE_H

#include <stdint.h>
#include <string.h>

#include "io/bcl_sv_read.h"

typedef struct sv_image {
    unsigned char *data;
    size_t size;
} sv_image;

/* Bytes [off, off + n) of the image; a read past its end is a decode error,
 * as a short file's is. */
static bcl_status sv_image_pread(void *ctx, uint64_t off, void *buf, size_t n)
{
    const sv_image *im = ctx;
    if (off > im->size || n > im->size - off)
        return bcl_set_error(BCL_ERR_DECODE, "read past the end of the image");
    memcpy(buf, im->data + off, n);
    return BCL_OK;
}

/* The image as a source named `name` (the reader's errors name it). */
static inline bcl_sv_source sv_image_source(sv_image *im, const char *name)
{
    return (bcl_sv_source){ sv_image_pread, im, name, im->size };
}

#endif /* SV_IMAGE_H */
