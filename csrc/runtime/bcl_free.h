/*
 * bcl_free.h -- release a work area's buffers in one statement.
 *
 * Many structures own several malloc'd arrays that are freed together (a
 * call's work space, an engine's round).  BCL_FREE_ALL(a, b, c) frees each
 * (NULL is fine, as for free), so a new field is added to one list rather
 * than to a run of free() lines that must be kept in step by eye.
 */
#ifndef BCL_FREE_H
#define BCL_FREE_H

#include <stddef.h>
#include <stdlib.h>

static inline void bcl_free_n(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i]);
}

#define BCL_FREE_ALL(...)                                                      \
    bcl_free_n((void *const[]){ __VA_ARGS__ },                                 \
               sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif /* BCL_FREE_H */
