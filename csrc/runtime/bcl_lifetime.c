/* bcl_lifetime.c -- buried containers and their collective reclaim (bcl_lifetime.h). */
#include "runtime/bcl_lifetime.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    uint64_t seq;
    void *obj;              /* NULL: this rank still holds the container */
    bcl_life_free_fn fn;
} entry;

/* Registered containers in creation order (the same numbers on every rank). */
static struct {
    entry *e;
    size_t n, cap;
    uint64_t next_seq;      /* number of the next container created        */
    uint64_t cursor;        /* the next window starts at the first seq >= it */
    entry *dead;            /* dropped everywhere, not yet freed (reap)    */
    size_t ndead, dead_cap;
} reg;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Index of `seq` in the (sorted) list, or reg.n. */
static size_t find(uint64_t seq)
{
    size_t lo = 0, hi = reg.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (reg.e[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < reg.n && reg.e[lo].seq == seq ? lo : reg.n;
}

static void remove_at(size_t i)
{
    memmove(&reg.e[i], &reg.e[i + 1], (reg.n - i - 1) * sizeof *reg.e);
    reg.n--;
}

bcl_status bcl_life_register(uint64_t *seq)
{
    pthread_mutex_lock(&lock);
    /* The number is taken even when the entry cannot be kept: numbering must
     * stay identical on every rank (a missing entry only makes this rank's
     * window headers differ, so nothing is reclaimed: a leak, not a fault). */
    *seq = reg.next_seq++;
    if (reg.n == reg.cap) {
        size_t cap = reg.cap ? 2 * reg.cap : 64;
        entry *e = realloc(reg.e, cap * sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&lock);
            return bcl_set_error(BCL_ERR_NOMEM, "no memory to register a container");
        }
        reg.e = e;
        reg.cap = cap;
    }
    reg.e[reg.n++] = (entry){ *seq, NULL, NULL };
    pthread_mutex_unlock(&lock);
    return BCL_OK;
}

bcl_status bcl_life_bury(uint64_t seq, void *obj, bcl_life_free_fn fn)
{
    pthread_mutex_lock(&lock);
    size_t i = find(seq);
    bcl_status st = BCL_OK;
    if (i == reg.n || reg.e[i].obj)
        st = bcl_set_error(BCL_ERR_ARG, "container %llu is not registered",
                           (unsigned long long)seq);
    else {
        reg.e[i].obj = obj;
        reg.e[i].fn = fn;
    }
    pthread_mutex_unlock(&lock);
    return st;
}

void bcl_life_forget(uint64_t seq)
{
    pthread_mutex_lock(&lock);
    size_t i = find(seq);
    if (i < reg.n && !reg.e[i].obj)
        remove_at(i);
    pthread_mutex_unlock(&lock);
}

/* First index of the window: the first seq >= cursor, wrapping to 0.  The
 * window then takes up to BCL_LIFE_WINDOW entries from there, wrapping
 * around the list, so every entry is looked at within n / WINDOW rounds. */
static size_t window_start(void)
{
    size_t i = 0;
    while (i < reg.n && reg.e[i].seq < reg.cursor)
        i++;
    return i == reg.n ? 0 : i;
}

static size_t window_len(void)
{
    return reg.n < BCL_LIFE_WINDOW ? reg.n : BCL_LIFE_WINDOW;
}

void bcl_life_fill_window(bcl_life_window *w)
{
    pthread_mutex_lock(&lock);
    size_t i0 = window_start(), len = window_len();
    w->n = (int64_t)reg.n;
    w->first = reg.n ? (int64_t)reg.e[i0].seq : -1;
    w->bits = 0;
    for (size_t k = 0; k < len; k++)
        if (reg.e[(i0 + k) % reg.n].obj != NULL)
            w->bits |= (uint64_t)1 << k;
    pthread_mutex_unlock(&lock);
}

void bcl_life_fill(int64_t *w)
{
    bcl_life_window win;
    bcl_life_fill_window(&win);
    w[0] = win.n;
    w[1] = -win.n;
    w[2] = win.first;
    w[3] = -win.first;
    for (size_t k = 0; k < BCL_LIFE_WINDOW; k++)
        w[BCL_LIFE_HEADER + k] = (int64_t)(win.bits >> k & 1u);
}

/* Move entry i to the dead list (the caller holds the lock).  Without room
 * there it stays buried: a leak until finalize, never a fault. */
static void kill_entry(size_t i)
{
    if (reg.ndead == reg.dead_cap) {
        size_t cap = reg.dead_cap ? 2 * reg.dead_cap : BCL_LIFE_WINDOW;
        entry *d = realloc(reg.dead, cap * sizeof *d);
        if (!d)
            return;
        reg.dead = d;
        reg.dead_cap = cap;
    }
    reg.dead[reg.ndead++] = reg.e[i];
    remove_at(i);
}

void bcl_life_apply_window(int64_t n_lo, int64_t n_hi, int64_t first_lo, int64_t first_hi,
                           uint64_t bits)
{
    uint64_t seqs[BCL_LIFE_WINDOW];
    size_t nseq = 0;
    pthread_mutex_lock(&lock);
    /* Every rank must have described the same window of the same list. */
    size_t i0 = reg.n ? window_start() : 0, len = window_len();
    int same = n_lo == n_hi && n_lo == (int64_t)reg.n && first_lo == first_hi &&
               reg.n > 0 && first_lo == (int64_t)reg.e[i0].seq;
    if (same) {
        reg.cursor = reg.e[(i0 + len - 1) % reg.n].seq + 1;
        for (size_t k = 0; k < len; k++) {
            const entry *e = &reg.e[(i0 + k) % reg.n];
            if ((bits >> k & 1u) && e->obj)
                seqs[nseq++] = e->seq;
        }
        for (size_t k = 0; k < nseq; k++)
            kill_entry(find(seqs[k]));
    }
    pthread_mutex_unlock(&lock);
}

void bcl_life_apply(const int64_t *w)
{
    /* MIN-reduced words: a bit survives only where every rank's word was 1. */
    uint64_t bits = 0;
    for (size_t k = 0; k < BCL_LIFE_WINDOW; k++)
        if (w[BCL_LIFE_HEADER + k] == 1)
            bits |= (uint64_t)1 << k;
    bcl_life_apply_window(w[0], -w[1], w[2], -w[3], bits);
}

void bcl_life_reap(void)
{
    pthread_mutex_lock(&lock);
    entry *d = reg.dead;
    size_t n = reg.ndead;
    reg.dead = NULL;
    reg.ndead = reg.dead_cap = 0;
    pthread_mutex_unlock(&lock);
    /* Every rank has dropped these: nobody reads their storage any more. */
    for (size_t k = 0; k < n; k++)
        d[k].fn(d[k].obj, 1);
    free(d);
}

void bcl_life_discard(void)
{
    pthread_mutex_lock(&lock);
    entry *e = reg.e, *d = reg.dead;
    size_t n = reg.n, nd = reg.ndead;
    memset(&reg, 0, sizeof reg);
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < n; i++)
        if (e[i].obj)
            e[i].fn(e[i].obj, 0);
    for (size_t i = 0; i < nd; i++)
        d[i].fn(d[i].obj, 0);
    free(e);
    free(d);
}
