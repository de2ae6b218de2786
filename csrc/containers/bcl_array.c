/* bcl_array.c -- DArray / Array and collective block allocation (see bcl_array.h). */
#include "containers/bcl_array.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"

bcl_status bcl_array_usable(const bcl_array *a)
{
    if (a->offsets && bcl_epoch_current(a->epoch))
        return BCL_OK;
    return bcl_set_error(BCL_ERR_STATE, "the array was not created, or pybcl was "
                         "finalized since");
}

bcl_status bcl_block_alloc(size_t local_bytes, uint64_t *offsets)
{
    BCL_REQUIRE_INIT();
    int P = bcl_rt.nprocs, me = bcl_rt.rank;
    uint64_t off = 0;
    bcl_status st = BCL_OK;
    if (local_bytes > 0)
        st = bcl_alloc(local_bytes, BCL_SEGMENT_ALIGN, &off);
    /* Agree on failure: the lowest failing rank and its status. */
    int64_t fail[2] = { st != BCL_OK ? me : P, st != BCL_OK ? (int64_t)st : 0 };
    int64_t agg[2] = { fail[0], -fail[1] };
    bcl_status cst = bcl_allreduce(agg, 2, BCL_I64, BCL_MIN);
    if (cst != BCL_OK) {
        if (st == BCL_OK && off)
            bcl_free(off);
        return cst;
    }
    if (agg[0] < P) {
        if (st == BCL_OK) {
            if (off)
                bcl_free(off);
            st = (bcl_status)(-agg[1]);
            return bcl_set_error(st, "collective allocation failed on rank %lld "
                                 "(its segment had no room for its block)",
                                 (long long)agg[0]);
        }
        return st;   /* keep our own, more precise message */
    }
    if (off)
        memset(bcl_local_addr(bcl_gptr_make(me, off)), 0, local_bytes);
    memset(offsets, 0, (size_t)P * sizeof *offsets);
    offsets[me] = off;
    st = bcl_allreduce(offsets, (size_t)P, BCL_U64, BCL_SUM);
    if (st != BCL_OK) {
        if (off)
            bcl_free(off);
        return st;
    }
    return BCL_OK;
}

static bcl_status array_init(bcl_array *a, int host, uint64_t size, size_t elem_size)
{
    BCL_REQUIRE_INIT();
    memset(a, 0, sizeof *a);
    int P = bcl_rt.nprocs;
    if (elem_size == 0)
        return bcl_set_error(BCL_ERR_TYPE, "elements of 0 bytes cannot be stored");
    if (host >= P || host < -1)
        return bcl_set_error(BCL_ERR_ARG, "host %d is not a rank in [0, %d)", host, P);
    a->size = size;
    a->elem_size = elem_size;
    a->host = host;
    a->nprocs = P;
    a->block = host >= 0 ? size : (size + (uint64_t)P - 1) / (uint64_t)P;
    if (a->block == 0)
        a->block = 1;   /* owner(i) never divides by 0; no element anyway */
    uint64_t first, count;
    bcl_array_local_range(a, bcl_rt.rank, &first, &count);
    /* A block the segment cannot hold still takes part in the collective
     * allocation (asking for more than the segment: it fails, on every rank
     * alike), then reports its real size. */
    int too_big = count > (uint64_t)SIZE_MAX / elem_size ||
                  count * elem_size > bcl_rt.segment_size;
    uint64_t wanted = count;
    if (too_big)
        count = (uint64_t)bcl_rt.segment_size / elem_size + 1;
    a->offsets = calloc((size_t)P, sizeof *a->offsets);
    if (!a->offsets)
        return bcl_set_error(BCL_ERR_NOMEM, "out of memory for %d block offsets", P);
    a->epoch = bcl_rt.epoch;
    bcl_status st = bcl_block_alloc((size_t)count * elem_size, a->offsets);
    if (st != BCL_OK) {
        free(a->offsets);
        a->offsets = NULL;
    }
    if (st == BCL_ERR_SEGFULL && too_big)
        return bcl_set_error(st, "%s of %llu elements of %zu bytes: rank %d's block of "
                             "%llu elements needs %.4g bytes, but its segment holds only "
                             "%zu bytes", host >= 0 ? "Array" : "DArray",
                             (unsigned long long)size, elem_size, bcl_rt.rank,
                             (unsigned long long)wanted,
                             (double)wanted * (double)elem_size, bcl_rt.segment_size);
    return st;
}

bcl_status bcl_darray_create(bcl_array *a, uint64_t size, size_t elem_size)
{
    return array_init(a, -1, size, elem_size);
}

bcl_status bcl_array_create(bcl_array *a, int host, uint64_t size, size_t elem_size)
{
    if (host < 0) {
        memset(a, 0, sizeof *a);
        return bcl_set_error(BCL_ERR_ARG, "host %d is not a rank", host);
    }
    return array_init(a, host, size, elem_size);
}

void bcl_array_destroy(bcl_array *a)
{
    if (a->offsets && bcl_epoch_current(a->epoch)) {
        uint64_t off = a->offsets[bcl_rt.rank];
        if (off && bcl_alloc_is_block(off))
            bcl_free(off);
    }
    free(a->offsets);
    a->offsets = NULL;
}

void bcl_array_local_range(const bcl_array *a, int rank, uint64_t *first, uint64_t *count)
{
    if (a->host >= 0) {
        *first = 0;
        *count = rank == a->host ? a->size : 0;
        return;
    }
    uint64_t lo = (uint64_t)rank * a->block;
    uint64_t hi = lo + a->block;
    if (lo > a->size) lo = a->size;
    if (hi > a->size) hi = a->size;
    *first = lo;
    *count = hi - lo;
}

static bcl_gptr elem_ptr(const bcl_array *a, uint64_t i)
{
    int r = bcl_array_owner(a, i);
    uint64_t first = a->host >= 0 ? 0 : (uint64_t)r * a->block;
    return bcl_gptr_make(r, a->offsets[r] + (i - first) * a->elem_size);
}

bcl_status bcl_array_ptr(const bcl_array *a, uint64_t i, bcl_gptr *out)
{
    bcl_status st = bcl_array_usable(a);
    if (st != BCL_OK)
        return st;
    if (i >= a->size)
        return bcl_set_error(BCL_ERR_BOUNDS, "index %llu is out of range for an array "
                             "of %llu elements", (unsigned long long)i,
                             (unsigned long long)a->size);
    *out = elem_ptr(a, i);
    return BCL_OK;
}


static bcl_status check_range(const bcl_array *a, uint64_t start, uint64_t count)
{
    bcl_status st = bcl_array_usable(a);
    if (st != BCL_OK)
        return st;
    if (start > a->size || count > a->size - start)
        return bcl_set_error(BCL_ERR_BOUNDS, "range [%llu, %llu) is out of range for "
                             "an array of %llu elements", (unsigned long long)start,
                             (unsigned long long)(start + count),
                             (unsigned long long)a->size);
    return BCL_OK;
}

/* Split [start, start+count) by owner; one _nb access per piece. */
static bcl_status range_io(const bcl_array *a, uint64_t start, uint64_t count,
                           unsigned char *buf, int is_put)
{
    bcl_status st = check_range(a, start, count);
    if (st != BCL_OK || count == 0)
        return st;
    int first_owner = bcl_array_owner(a, start);
    int last_owner = bcl_array_owner(a, start + count - 1);
    uint64_t i = start, end = start + count;
    while (i < end) {
        int r = bcl_array_owner(a, i);
        uint64_t lo = a->host >= 0 ? 0 : (uint64_t)r * a->block;
        uint64_t stop = a->host >= 0 ? a->size : lo + a->block;
        if (stop > end)
            stop = end;
        size_t nbytes = (size_t)(stop - i) * a->elem_size;
        unsigned char *b = buf + (size_t)(i - start) * a->elem_size;
        bcl_gptr p = elem_ptr(a, i);
        st = is_put ? bcl_put_nb(p, b, nbytes) : bcl_get_nb(b, p, nbytes);
        if (st != BCL_OK) {
            bcl_flush();   /* buffers must not be left in flight */
            return st;
        }
        i = stop;
    }
    return first_owner == last_owner ? bcl_flush_rank(first_owner) : bcl_flush();
}

bcl_status bcl_array_get(const bcl_array *a, uint64_t start, uint64_t count, void *buf)
{
    return range_io(a, start, count, buf, 0);
}

bcl_status bcl_array_put(const bcl_array *a, uint64_t start, uint64_t count,
                         const void *buf)
{
    return range_io(a, start, count, (unsigned char *)buf, 1);
}

static bcl_status strided_io(const bcl_array *a, int64_t start, int64_t step,
                             uint64_t count, unsigned char *buf, int is_put)
{
    bcl_status ust = bcl_array_usable(a);
    if (ust != BCL_OK)
        return ust;
    if (count == 0)
        return BCL_OK;
    int64_t last = start + step * (int64_t)(count - 1);
    if (start < 0 || last < 0 || (uint64_t)start >= a->size || (uint64_t)last >= a->size)
        return bcl_set_error(BCL_ERR_BOUNDS, "strided range %lld..%lld is out of range "
                             "for an array of %llu elements", (long long)start,
                             (long long)last, (unsigned long long)a->size);
    for (uint64_t n = 0; n < count; n++) {
        bcl_gptr p = elem_ptr(a, (uint64_t)(start + step * (int64_t)n));
        unsigned char *b = buf + (size_t)n * a->elem_size;
        bcl_status st = is_put ? bcl_put_nb(p, b, a->elem_size)
                               : bcl_get_nb(b, p, a->elem_size);
        if (st != BCL_OK) {
            bcl_flush();
            return st;
        }
    }
    return bcl_flush();
}

bcl_status bcl_array_get_strided(const bcl_array *a, int64_t start, int64_t step,
                                 uint64_t count, void *buf)
{
    return strided_io(a, start, step, count, buf, 0);
}

bcl_status bcl_array_put_strided(const bcl_array *a, int64_t start, int64_t step,
                                 uint64_t count, const void *buf)
{
    return strided_io(a, start, step, count, (unsigned char *)buf, 1);
}
