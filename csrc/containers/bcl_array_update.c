/* bcl_array_update.c -- batched atomic updates by index (see header). */
#include "containers/bcl_array_update.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_free.h"

uint64_t bcl_array_elem_offset(const bcl_array *a, uint64_t i)
{
    int r = bcl_array_owner(a, i);
    uint64_t first = a->host >= 0 ? 0 : (uint64_t)r * a->block;
    return a->offsets[r] + (i - first) * a->elem_size;
}

bcl_status bcl_array_post(const bcl_array *a, uint64_t i, bcl_atomic_op op,
                          uint64_t operand)
{
    if (i >= a->size)
        return bcl_set_error(BCL_ERR_BOUNDS, "index %llu is out of range for an array of "
                             "%llu elements", (unsigned long long)i,
                             (unsigned long long)a->size);
    return bcl_atomic_post(bcl_gptr_make(bcl_array_owner(a, i), bcl_array_elem_offset(a, i)),
                           (int)a->elem_size, op, operand);
}

/* Work space of one call: the distinct indices with their combined values,
 * then the same regrouped by owner. */
typedef struct upd_work {
    uint64_t *slot;        /* hash table: 1 + position in uidx, 0 = empty   */
    size_t mask;
    uint64_t *uidx;        /* distinct indices, first-seen order            */
    unsigned char *uval;   /* their combined values                         */
    size_t nu;
    uint64_t *off;         /* by owner: segment offsets                     */
    unsigned char *oval;   /* by owner: values                              */
    size_t *start;         /* nprocs + 1 group bounds, then nprocs cursors  */
} upd_work;

static void work_free(upd_work *w)
{
    BCL_FREE_ALL(w->slot, w->uidx, w->uval, w->off, w->oval, w->start);
}

static bcl_status work_alloc(upd_work *w, size_t n, size_t width, int P)
{
    memset(w, 0, sizeof *w);
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    w->mask = cap - 1;
    w->slot = calloc(cap, sizeof *w->slot);
    w->uidx = malloc(n * sizeof *w->uidx);
    w->uval = malloc(n * width);
    w->off = malloc(n * sizeof *w->off);
    w->oval = malloc(n * width);
    w->start = calloc(2 * (size_t)P + 1, sizeof *w->start);
    if (w->slot && w->uidx && w->uval && w->off && w->oval && w->start)
        return BCL_OK;
    work_free(w);
    return bcl_set_error(BCL_ERR_NOMEM, "out of memory for a batch of %zu updates", n);
}

/* Fold duplicate indices: one combined update per distinct element.  The
 * combination is the op itself applied locally (replace: the later value). */
static void combine(upd_work *w, const uint64_t *idx, const unsigned char *vals, size_t n,
                    size_t width, bcl_elem elem, bcl_atomic_op op)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t h = idx[i] * 0x9E3779B97F4A7C15ull;
        size_t s = (size_t)(h >> 20) & w->mask;
        while (w->slot[s] && w->uidx[w->slot[s] - 1] != idx[i])
            s = (s + 1) & w->mask;
        if (!w->slot[s]) {
            w->slot[s] = ++w->nu;
            w->uidx[w->nu - 1] = idx[i];
            memcpy(w->uval + (w->nu - 1) * width, vals + i * width, width);
        } else {
            bcl_accumulate_local(w->uval + (w->slot[s] - 1) * width, elem, op,
                                 vals + i * width);
        }
    }
}

/* Counting sort of the distinct updates by owner (start[0..P] bounds,
 * start[P+1..2P] the fill cursors). */
static void group(upd_work *w, const bcl_array *a, size_t width)
{
    int P = a->nprocs;
    size_t *cur = w->start + P + 1;
    for (size_t i = 0; i < w->nu; i++)
        w->start[bcl_array_owner(a, w->uidx[i]) + 1]++;
    for (int r = 0; r < P; r++) {
        w->start[r + 1] += w->start[r];
        cur[r] = w->start[r];
    }
    for (size_t i = 0; i < w->nu; i++) {
        size_t k = cur[bcl_array_owner(a, w->uidx[i])]++;
        w->off[k] = bcl_array_elem_offset(a, w->uidx[i]);
        memcpy(w->oval + k * width, w->uval + i * width, width);
    }
}

bcl_status bcl_array_check_indices(const bcl_array *a, const uint64_t *idx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= a->size)
            return bcl_set_error(BCL_ERR_BOUNDS, "index %llu (position %zu) is out of "
                                 "range for an array of %llu elements",
                                 (unsigned long long)idx[i], i,
                                 (unsigned long long)a->size);
    return BCL_OK;
}

/* One indexed accumulate per owner, then completion of all of them. */
static bcl_status issue(const upd_work *w, int P, size_t width, bcl_elem elem,
                        bcl_atomic_op op)
{
    bcl_status st = BCL_OK;
    int owners = 0, last = -1;
    for (int r = 0; r < P && st == BCL_OK; r++) {
        size_t lo = w->start[r], cnt = w->start[r + 1] - lo;
        if (!cnt)
            continue;
        owners++;
        last = r;
        st = bcl_accumulate_indexed_nb(r, w->off + lo, cnt, elem, op,
                                       w->oval + lo * width);
    }
    /* Complete what was issued even after a failure: the operand buffers
     * are freed by the caller. */
    bcl_status fst = owners == 1 ? bcl_flush_rank(last) : bcl_flush();
    return st != BCL_OK ? st : fst;
}

bcl_status bcl_array_update_many(const bcl_array *a, const uint64_t *idx,
                                 const void *values, size_t n, bcl_elem elem,
                                 bcl_atomic_op op)
{
    bcl_status st = bcl_array_usable(a);
    if (st == BCL_OK)
        st = bcl_accumulate_check(elem, op);
    if (st != BCL_OK)
        return st;
    size_t width = bcl_elem_size(elem);
    if (width != a->elem_size)
        return bcl_set_error(BCL_ERR_TYPE, "values of %zu bytes for elements of %zu bytes",
                             width, a->elem_size);
    if ((st = bcl_array_check_indices(a, idx, n)) != BCL_OK || n == 0)
        return st;
    if (n == 1) {   /* one element: no grouping to do */
        uint64_t off = bcl_array_elem_offset(a, idx[0]);
        int r = bcl_array_owner(a, idx[0]);
        st = bcl_accumulate_indexed_nb(r, &off, 1, elem, op, values);
        bcl_status fst = bcl_flush_rank(r);
        return st != BCL_OK ? st : fst;
    }
    upd_work w;
    if ((st = work_alloc(&w, n, width, a->nprocs)) != BCL_OK)
        return st;
    combine(&w, idx, values, n, width, elem, op);
    group(&w, a, width);
    st = issue(&w, a->nprocs, width, elem, op);
    work_free(&w);
    return st;
}
