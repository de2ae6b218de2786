/* bcl_alloc.c -- first-fit extent allocator with small-block bins (see bcl_alloc.h). */
#include "runtime/bcl_alloc.h"

#include <stdlib.h>
#include <string.h>

#define NBINS 64                          /* exact bins for 16 .. 1024 bytes */
#define BIN_MAX (NBINS * BCL_ALLOC_GRANULE)

typedef struct extent { uint64_t off, len; } extent;

/* A growable array of offsets: one bin of same-sized free blocks. */
typedef struct bin { uint64_t *off; size_t n, cap; } bin;

/* Live blocks: open-addressing table offset -> requested length (offset 0 = empty;
 * offset 0 is the null pointer and is never allocated). */
typedef struct live_table { uint64_t *key, *len; size_t cap, n; } live_table;

static struct {
    int ready;
    uint64_t begin, end;
    extent *ext;              /* free extents, sorted by offset, coalesced */
    size_t next, cap_ext;
    bin bins[NBINS];
    live_table live;
    size_t in_use;
} A;

static uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

static size_t live_slot(const live_table *t, uint64_t off)
{
    uint64_t h = off * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (t->cap - 1);
}

static bcl_status live_grow(live_table *t)
{
    live_table bigger = { 0 };
    bigger.cap = t->cap ? t->cap * 2 : 1024;
    bigger.key = calloc(bigger.cap, sizeof *bigger.key);
    bigger.len = calloc(bigger.cap, sizeof *bigger.len);
    if (!bigger.key || !bigger.len) {
        free(bigger.key);
        free(bigger.len);
        return bcl_set_error(BCL_ERR_NOMEM, "allocator: out of private memory");
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->key[i])
            continue;
        size_t s = live_slot(&bigger, t->key[i]);
        while (bigger.key[s])
            s = (s + 1) & (bigger.cap - 1);
        bigger.key[s] = t->key[i];
        bigger.len[s] = t->len[i];
    }
    bigger.n = t->n;
    free(t->key);
    free(t->len);
    *t = bigger;
    return BCL_OK;
}

static bcl_status live_add(uint64_t off, uint64_t len)
{
    live_table *t = &A.live;
    if (2 * (t->n + 1) > t->cap) {
        bcl_status st = live_grow(t);
        if (st != BCL_OK)
            return st;
    }
    size_t s = live_slot(t, off);
    while (t->key[s])
        s = (s + 1) & (t->cap - 1);
    t->key[s] = off;
    t->len[s] = len;
    t->n++;
    return BCL_OK;
}

static size_t live_find(uint64_t off)
{
    const live_table *t = &A.live;
    if (!t->cap || !off)
        return SIZE_MAX;
    for (size_t s = live_slot(t, off); t->key[s]; s = (s + 1) & (t->cap - 1))
        if (t->key[s] == off)
            return s;
    return SIZE_MAX;
}

/* Backward-shift deletion keeps linear probing free of tombstones. */
static void live_remove_slot(size_t s)
{
    live_table *t = &A.live;
    size_t mask = t->cap - 1, hole = s;
    for (size_t j = (s + 1) & mask; t->key[j]; j = (j + 1) & mask) {
        size_t home = live_slot(t, t->key[j]);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        int home_between = hole <= j ? (home > hole && home <= j)
                                     : (home > hole || home <= j);
        if (!home_between) {
            t->key[hole] = t->key[j];
            t->len[hole] = t->len[j];
            hole = j;
        }
    }
    t->key[hole] = 0;
    t->len[hole] = 0;
    t->n--;
}

static bcl_status ext_reserve(size_t want)
{
    if (want <= A.cap_ext)
        return BCL_OK;
    size_t cap = A.cap_ext ? A.cap_ext * 2 : 64;
    while (cap < want)
        cap *= 2;
    extent *e = realloc(A.ext, cap * sizeof *e);
    if (!e)
        return bcl_set_error(BCL_ERR_NOMEM, "allocator: out of private memory");
    A.ext = e;
    A.cap_ext = cap;
    return BCL_OK;
}

/* Index of the first extent whose offset is >= off. */
static size_t ext_lower_bound(uint64_t off)
{
    size_t lo = 0, hi = A.next;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (A.ext[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Return [off, off+len) to the extent list, merging with its neighbours. */
static bcl_status ext_insert(uint64_t off, uint64_t len)
{
    if (!len)
        return BCL_OK;
    size_t i = ext_lower_bound(off);
    int join_left = i > 0 && A.ext[i - 1].off + A.ext[i - 1].len == off;
    int join_right = i < A.next && off + len == A.ext[i].off;
    if (join_left && join_right) {
        A.ext[i - 1].len += len + A.ext[i].len;
        memmove(&A.ext[i], &A.ext[i + 1], (A.next - i - 1) * sizeof *A.ext);
        A.next--;
    } else if (join_left) {
        A.ext[i - 1].len += len;
    } else if (join_right) {
        A.ext[i].off = off;
        A.ext[i].len += len;
    } else {
        bcl_status st = ext_reserve(A.next + 1);
        if (st != BCL_OK)
            return st;
        memmove(&A.ext[i + 1], &A.ext[i], (A.next - i) * sizeof *A.ext);
        A.ext[i].off = off;
        A.ext[i].len = len;
        A.next++;
    }
    return BCL_OK;
}

/* Carve an aligned block out of the first extent that can hold it. */
static int ext_take(uint64_t len, uint64_t align, uint64_t *out)
{
    for (size_t i = 0; i < A.next; i++) {
        uint64_t start = round_up(A.ext[i].off, align);
        uint64_t end = A.ext[i].off + A.ext[i].len;
        if (start > end || end - start < len)
            continue;
        uint64_t head = start - A.ext[i].off;
        uint64_t tail_off = start + len, tail_len = end - tail_off;
        if (head) {
            A.ext[i].len = head;            /* the aligned-away head stays free */
            if (tail_len && ext_insert(tail_off, tail_len) != BCL_OK)
                return 0;                   /* out of private memory: give up   */
        } else if (tail_len) {
            A.ext[i].off = tail_off;
            A.ext[i].len = tail_len;
        } else {
            memmove(&A.ext[i], &A.ext[i + 1], (A.next - i - 1) * sizeof *A.ext);
            A.next--;
        }
        *out = start;
        return 1;
    }
    return 0;
}

static bin *bin_for(uint64_t len)
{
    return len <= BIN_MAX ? &A.bins[len / BCL_ALLOC_GRANULE - 1] : NULL;
}

/* Move every binned block back into the extents so they can coalesce. */
static bcl_status drain_bins(void)
{
    for (int b = 0; b < NBINS; b++) {
        uint64_t len = (uint64_t)(b + 1) * BCL_ALLOC_GRANULE;
        for (size_t k = 0; k < A.bins[b].n; k++) {
            bcl_status st = ext_insert(A.bins[b].off[k], len);
            if (st != BCL_OK)
                return st;
        }
        A.bins[b].n = 0;
    }
    return BCL_OK;
}

bcl_status bcl_alloc_init(uint64_t begin, uint64_t end)
{
    bcl_alloc_finalize();
    begin = round_up(begin ? begin : BCL_ALLOC_GRANULE, BCL_ALLOC_GRANULE);
    if (end <= begin)
        return bcl_set_error(BCL_ERR_ARG, "allocator: empty range");
    A.begin = begin;
    A.end = end;
    A.ready = 1;
    return ext_insert(begin, end - begin);
}

void bcl_alloc_finalize(void)
{
    free(A.ext);
    for (int b = 0; b < NBINS; b++)
        free(A.bins[b].off);
    free(A.live.key);
    free(A.live.len);
    memset(&A, 0, sizeof A);
}

bcl_status bcl_alloc(size_t size, size_t align, uint64_t *offset)
{
    if (!A.ready)
        return bcl_set_error(BCL_ERR_STATE, "pybcl is not initialised");
    if (align == 0)
        align = BCL_ALLOC_GRANULE;
    if (align & (align - 1))
        return bcl_set_error(BCL_ERR_ARG, "alignment %zu is not a power of two", align);
    if (size > A.end - A.begin)
        return bcl_set_error(BCL_ERR_SEGFULL,
                             "cannot allocate %zu bytes: the segment holds only %llu",
                             size, (unsigned long long)(A.end - A.begin));
    if (align < BCL_ALLOC_GRANULE)
        align = BCL_ALLOC_GRANULE;
    uint64_t len = round_up(size ? size : 1, BCL_ALLOC_GRANULE), off = 0;

    bin *b = bin_for(len);
    int found = 0;
    if (b && b->n && (b->off[b->n - 1] & (align - 1)) == 0) {
        off = b->off[--b->n];
        found = 1;
    }
    if (!found)
        found = ext_take(len, align, &off);
    if (!found) {
        bcl_status st = drain_bins();
        if (st != BCL_OK)
            return st;
        found = ext_take(len, align, &off);
    }
    if (!found)
        return bcl_set_error(BCL_ERR_SEGFULL,
                             "shared segment full: cannot allocate %zu bytes "
                             "(%zu of %llu bytes in use); raise segment_size or "
                             "PYBCL_SEGMENT_SIZE", size, A.in_use,
                             (unsigned long long)(A.end - A.begin));
    bcl_status st = live_add(off, size);
    if (st != BCL_OK) {
        ext_insert(off, len);
        return st;
    }
    A.in_use += len;
    *offset = off;
    return BCL_OK;
}

static bcl_status bin_push(bin *b, uint64_t off)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        uint64_t *p = realloc(b->off, cap * sizeof *p);
        if (!p)
            return bcl_set_error(BCL_ERR_NOMEM, "allocator: out of private memory");
        b->off = p;
        b->cap = cap;
    }
    b->off[b->n++] = off;
    return BCL_OK;
}

bcl_status bcl_free(uint64_t offset)
{
    size_t s = live_find(offset);
    if (s == SIZE_MAX)
        return bcl_set_error(BCL_ERR_ARG,
                             "offset %llu is not the start of a block allocated "
                             "by this rank", (unsigned long long)offset);
    uint64_t len = round_up(A.live.len[s] ? A.live.len[s] : 1, BCL_ALLOC_GRANULE);
    live_remove_slot(s);
    A.in_use -= len;
    bin *b = bin_for(len);
    if (b && bin_push(b, offset) == BCL_OK)
        return BCL_OK;
    return ext_insert(offset, len);
}

int bcl_alloc_is_block(uint64_t offset) { return live_find(offset) != SIZE_MAX; }

size_t bcl_alloc_block_size(uint64_t offset)
{
    size_t s = live_find(offset);
    return s == SIZE_MAX ? 0 : (size_t)A.live.len[s];
}

size_t bcl_alloc_bytes_in_use(void) { return A.in_use; }
