/*
 * bcl_hmbuf_list.h -- HashMapBuffer's waiting entries, stored compactly.
 *
 * A buffer may hold every entry of a count until flush(): tens of millions
 * of them, in memory touched for the first time, which costs more than the
 * work done on it.  So a list stores entries in runs of one kind (insert or
 * accumulate) with no per-entry op byte and no padding, and a run whose
 * entries share one value (a counter's `accumulate_many(keys)`, delta 1)
 * stores the value once and then only keys: 8 bytes per uint64 k-mer
 * instead of 24.
 *
 * Run data, `off` bytes into the list:
 *   shared:     value | key key key ...
 *   not shared: key value | key value | ...
 * Entries leave a list from the front (shipping) or all at once.
 */
#ifndef BCL_HMBUF_LIST_H
#define BCL_HMBUF_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "containers/hashmap/bcl_hashmap.h"

typedef struct bcl_hmbuf_run {
    size_t off;                /* bytes into the list's data */
    size_t n;                  /* entries */
    unsigned char acc;         /* 1: accumulate, 0: insert */
    unsigned char shared;      /* one value, stored first, for all entries */
} bcl_hmbuf_run;

typedef struct bcl_hmbuf_list {
    unsigned char *e;          /* run data */
    size_t used, cap;          /* bytes */
    bcl_hmbuf_run *runs;
    size_t nruns, rcap;
    size_t n;                  /* entries in all runs */
    uint64_t tag;              /* the add call the last run was opened for */
} bcl_hmbuf_list;

/* Key and value sizes of the entries (the map's). */
typedef struct bcl_hmbuf_fmt {
    size_t ks, vs;
} bcl_hmbuf_fmt;

void bcl_hmbuf_list_free(bcl_hmbuf_list *l);

/* Make the last run take entries of this kind (shared: all with value
 * `val`), opening a new run if it does not; `tag` names the calling add
 * (one value, one kind), so the next entries of that call skip the check. */
bcl_status bcl_hmbuf_list_open(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, int acc, int shared,
                               const void *val, uint64_t tag);
/* Room for `more` more entries of any kind (a popped batch must have a
 * place before it leaves its queue). */
bcl_status bcl_hmbuf_list_reserve(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t more);

/* Append one entry to the open run (room reserved; val ignored if shared). */
static inline void bcl_hmbuf_list_put(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, const void *key,
                                      const void *val)
{
    bcl_hmbuf_run *r = &l->runs[l->nruns - 1];
    unsigned char *at = l->e + l->used;
    if (f.ks == 8) {
        __builtin_memcpy(at, key, 8);    /* a counter's: inline */
    } else {
        __builtin_memcpy(at, key, f.ks);
    }
    l->used += f.ks;
    if (!r->shared) {
        __builtin_memcpy(at + f.ks, val, f.vs);
        l->used += f.vs;
    }
    r->n++;
    l->n++;
}

/* One entry, appended in a run of its own kind (not shared). */
bcl_status bcl_hmbuf_list_add(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, const void *key,
                              const void *val, int acc);
/* Append all of src's entries, in order. */
bcl_status bcl_hmbuf_list_append(bcl_hmbuf_list *dst, bcl_hmbuf_fmt f,
                                 const bcl_hmbuf_list *src);

/* Run i as the bulk apply takes it. */
bcl_hm_run bcl_hmbuf_list_run(const bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t i);

/* Wire format, what the owners' queues carry: key | value | op byte,
 * `stride` bytes apart.  Write entries [from, from + n) there. */
void bcl_hmbuf_list_to_wire(const bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t from, size_t n,
                            unsigned char *wire, size_t stride);
/* Append n wire entries. */
bcl_status bcl_hmbuf_list_from_wire(bcl_hmbuf_list *l, bcl_hmbuf_fmt f,
                                    const unsigned char *wire, size_t n, size_t stride);
/* Drop the first n entries (they were shipped). */
void bcl_hmbuf_list_drop_front(bcl_hmbuf_list *l, bcl_hmbuf_fmt f, size_t n);

#endif /* BCL_HMBUF_LIST_H */
