/*
 * bcl_array_gather.c -- see bcl_array_gather.h.
 */
#include "containers/bcl_array_gather.h"

bcl_status bcl_array_gather(const char *what, const bcl_array *a, void *buf)
{
    bcl_status st = bcl_barrier_named(what);
    if (st != BCL_OK)
        return st;    /* the barrier itself failed: MPI is unusable here */
    bcl_status read = BCL_OK;
    if (!buf)
        read = bcl_set_error(BCL_ERR_ARG, "array gather: no buffer on this rank");
    else if (a->size > 0)
        read = bcl_array_get(a, 0, a->size, buf);
    /* Every rank reaches this barrier whatever its read did. */
    st = bcl_barrier_named(what);
    return read != BCL_OK ? read : st;
}
