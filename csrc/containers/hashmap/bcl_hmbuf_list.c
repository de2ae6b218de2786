/* bcl_hmbuf_list.c -- HashMapBuffer's waiting entries (see bcl_hmbuf_list.h). */
#include "containers/hashmap/bcl_hmbuf_list.h"

#include <stdlib.h>
#include <string.h>

void bcl_hmbuf_list_free(bcl_hmbuf_list *l)
{
    free(l->e);
    free(l->runs);
    memset(l, 0, sizeof *l);
}

static size_t entry_bytes(const bcl_hmbuf_run *r, bcl_hmbuf_fmt f)
{
    return r->shared ? f.ks : f.ks + f.vs;
}

/* The first byte of run r's entries (after a shared value). */
static size_t first_entry(const bcl_hmbuf_run *r, bcl_hmbuf_fmt f)
{
    return r->off + (r->shared ? f.vs : 0);
}

static bcl_status reserve_bytes(bcl_hmbuf_list *l, size_t more)
{
    if (more <= l->cap - l->used)
        return BCL_OK;
    if (more > SIZE_MAX / 2 - l->used)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to buffer more entries");
    size_t cap = l->cap ? 2 * l->cap : 16384;
    while (cap < l->used + more)
        cap *= 2;
    unsigned char *ne = realloc(l->e, cap);
    if (!ne)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to buffer %zu more bytes of "
                             "entries for the next flush", more);
    l->e = ne;
    l->cap = cap;
    return BCL_OK;
}

bcl_status bcl_hmbuf_list_reserve(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t more)
{
    size_t each = f.ks + f.vs;           /* any kind: a key alone is less */
    if (more > SIZE_MAX / each)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to buffer %zu entries", more);
    return reserve_bytes(l, more * each);
}

static int run_takes(const bcl_hmbuf_list *l, bcl_hmbuf_fmt f, int acc, int shared,
                     const void *val)
{
    if (!l->nruns)
        return 0;
    const bcl_hmbuf_run *r = &l->runs[l->nruns - 1];
    if (r->acc != (acc != 0) || r->shared != (shared != 0))
        return 0;
    return !shared || memcmp(l->e + r->off, val, f.vs) == 0;
}

bcl_status bcl_hmbuf_list_open(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, int acc, int shared,
                               const void *val, uint64_t tag)
{
    l->tag = tag;
    if (run_takes(l, f, acc, shared, val))
        return BCL_OK;
    if (l->nruns == l->rcap) {
        size_t rcap = l->rcap ? 2 * l->rcap : 16;
        bcl_hmbuf_run *nr = realloc(l->runs, rcap * sizeof *nr);
        if (!nr) {
            l->tag = 0;
            return bcl_set_error(BCL_ERR_NOMEM, "no memory to buffer entries");
        }
        l->runs = nr;
        l->rcap = rcap;
    }
    bcl_status st = reserve_bytes(l, shared ? f.vs : 0);
    if (st != BCL_OK) {
        l->tag = 0;
        return st;
    }
    bcl_hmbuf_run *r = &l->runs[l->nruns++];
    *r = (bcl_hmbuf_run){ .off = l->used, .n = 0, .acc = acc != 0, .shared = shared != 0 };
    if (shared) {
        memcpy(l->e + l->used, val, f.vs);
        l->used += f.vs;
    }
    return BCL_OK;
}

bcl_status bcl_hmbuf_list_add(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, const void *key,
                              const void *val, int acc)
{
    bcl_status st = bcl_hmbuf_list_open(l, f, acc, 0, NULL, 0);
    if (st == BCL_OK)
        st = bcl_hmbuf_list_reserve(l, f, 1);
    if (st == BCL_OK)
        bcl_hmbuf_list_put(l, f, key, val);
    return st;
}

bcl_hm_run bcl_hmbuf_list_run(const bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t i)
{
    const bcl_hmbuf_run *r = &l->runs[i];
    const unsigned char *d = l->e + r->off;
    bcl_hm_run run = { .n = r->n, .accumulate = r->acc };
    if (r->shared) {
        run.vals = d;
        run.vstride = 0;
        run.keys = d + f.vs;
        run.kstride = f.ks;
    } else {
        run.keys = d;
        run.vals = d + f.ks;
        run.kstride = run.vstride = f.ks + f.vs;
    }
    return run;
}

bcl_status bcl_hmbuf_list_append(bcl_hmbuf_list *dst, bcl_hmbuf_fmt f,
                                 const bcl_hmbuf_list *src)
{
    for (size_t i = 0; i < src->nruns; i++) {
        bcl_hm_run run = bcl_hmbuf_list_run(src, f, i);
        int shared = run.vstride == 0;
        bcl_status st = bcl_hmbuf_list_open(dst, f, run.accumulate, shared, run.vals, 0);
        if (st == BCL_OK)
            st = bcl_hmbuf_list_reserve(dst, f, run.n);
        if (st != BCL_OK)
            return st;
        for (size_t j = 0; j < run.n; j++)
            bcl_hmbuf_list_put(dst, f, run.keys + j * run.kstride, run.vals + j * run.vstride);
    }
    dst->tag = 0;
    return BCL_OK;
}

void bcl_hmbuf_list_to_wire(const bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t from, size_t n,
                            unsigned char *wire, size_t stride)
{
    for (size_t i = 0; i < l->nruns && n; i++) {
        const bcl_hmbuf_run *r = &l->runs[i];
        if (from >= r->n) {
            from -= r->n;
            continue;
        }
        bcl_hm_run run = bcl_hmbuf_list_run(l, f, i);
        for (size_t j = from; j < r->n && n; j++, n--, wire += stride) {
            memcpy(wire, run.keys + j * run.kstride, f.ks);
            memcpy(wire + f.ks, run.vals + j * run.vstride, f.vs);
            wire[f.ks + f.vs] = r->acc;
        }
        from = 0;
    }
}

bcl_status bcl_hmbuf_list_from_wire(bcl_hmbuf_list *l, bcl_hmbuf_fmt f,
                                    const unsigned char *wire, size_t n, size_t stride)
{
    for (size_t i = 0; i < n; i++, wire += stride) {
        int acc = wire[f.ks + f.vs];
        bcl_status st = BCL_OK;
        if (!run_takes(l, f, acc, 0, NULL))
            st = bcl_hmbuf_list_open(l, f, acc, 0, NULL, 0);
        if (st == BCL_OK)
            st = bcl_hmbuf_list_reserve(l, f, n - i);
        if (st != BCL_OK)
            return st;
        bcl_hmbuf_list_put(l, f, wire, wire + f.ks);
    }
    l->tag = 0;
    return BCL_OK;
}

void bcl_hmbuf_list_drop_front(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t n)
{
    if (n >= l->n) {
        l->used = l->nruns = l->n = 0;
        l->tag = 0;
        return;
    }
    /* Whole runs first, then part of one; the rest moves to the front
     * (destinations never pass their sources: memmove in order is safe). */
    size_t i = 0;
    while (n >= l->runs[i].n) {
        n -= l->runs[i].n;
        l->n -= l->runs[i].n;
        i++;
    }
    size_t w = 0, k = 0;
    for (; i < l->nruns; i++, k++) {
        bcl_hmbuf_run r = l->runs[i];
        size_t skip = n, each = entry_bytes(&r, f);
        n = 0;
        if (r.shared) {
            memmove(l->e + w, l->e + r.off, f.vs);
            w += f.vs;
        }
        size_t from = first_entry(&r, f) + skip * each, bytes = (r.n - skip) * each;
        memmove(l->e + w, l->e + from, bytes);
        l->runs[k] = r;
        l->runs[k].off = w - (r.shared ? f.vs : 0);
        l->runs[k].n = r.n - skip;
        l->n -= skip;
        w += bytes;
    }
    l->nruns = k;
    l->used = w;
}
