/*
 * bcl_lifetime.h -- when a container's storage may be reused.
 *
 * A container's storage is spread over every rank (its blocks, the
 * out-of-line bytes its slots point to, a hosted queue's ring), and any rank
 * may read or write any of it until that rank is done with the container.
 * Dropping a handle is not collective (a Python object dies when its last
 * reference goes, at different moments on different ranks), so a rank that
 * drops a container must not free its share while a peer may still use it.
 *
 * Instead the dropped container is *buried*: its core struct moves into this
 * registry and its storage stays as it is.  Every container gets a sequence
 * number at creation; constructors are collective, so every rank numbers
 * containers alike and holds the same list of registered numbers.  Ranks
 * agree on which buried containers every rank has dropped by carrying a
 * window of that list (one word per container: "dropped here") on the
 * argument agreement every collective constructor, close() and resize()
 * already makes (comm/bcl_agree.h), reduced with MIN; a container whose word
 * comes back 1 is dropped everywhere, and each rank then frees its share.
 * The window rotates over the list, so long-lived containers never keep the
 * newer temporaries from being reclaimed.  No collective is added anywhere.
 *
 * close() (collective) frees at once and unregisters the number; finalize
 * discards the registry (the segments go away with it).  Thread-safe: a
 * handle may be dropped in one thread while another runs an agreement.
 */
#ifndef BCL_LIFETIME_H
#define BCL_LIFETIME_H

#include <stdint.h>

#include "runtime/bcl_error.h"

/* Words one agreement carries: a header, then one word per container of the
 * window. */
#define BCL_LIFE_HEADER 4
#define BCL_LIFE_WINDOW 64
#define BCL_LIFE_WORDS (BCL_LIFE_HEADER + BCL_LIFE_WINDOW)

/* Frees a buried container: with `storage` its share of the segments too
 * (every rank has dropped it), without only this process's private memory
 * (the runtime is down).  Then frees `obj` itself. */
typedef void (*bcl_life_free_fn)(void *obj, int storage);

/* A container was created (collectively, successfully): its number. */
bcl_status bcl_life_register(uint64_t *seq);

/* This rank dropped container `seq` without closing it: the registry owns
 * `obj` (malloc'd) from now on and calls `fn` once every rank has dropped it.
 * On BCL_ERR_NOMEM (or an unknown seq) the caller still owns obj. */
bcl_status bcl_life_bury(uint64_t seq, void *obj, bcl_life_free_fn fn);

/* Container `seq` was closed collectively: forget it (the caller frees). */
void bcl_life_forget(uint64_t seq);

/* Agreement: this rank's words before the MIN-allreduce, and the reduced
 * words after it (only when the reduction is known to come from the same
 * collective call on every rank).  Apply marks what every rank dropped;
 * reap frees it.  They are apart because the agreement may run beside other
 * threads (the binding releases the GIL around it) and the segment
 * allocator is not thread-safe: the binding reaps once it holds the GIL
 * again, as deallocation used to free. */
void bcl_life_fill(int64_t *words);
void bcl_life_apply(const int64_t *words);
void bcl_life_reap(void);

/* The same window packed, for an agreement that reduces it itself
 * (comm/bcl_agree_node.h): the list's length, the window's first number
 * (-1 when the list is empty), and bit k set when entry k is dropped here.
 * The words are n, -n, first, -first, then one 0/1 word per bit. */
typedef struct bcl_life_window {
    int64_t n, first;
    uint64_t bits;
} bcl_life_window;

_Static_assert(BCL_LIFE_WINDOW <= 64, "a window fits the bits of one word");

void bcl_life_fill_window(bcl_life_window *w);

/* Apply the reduction over every rank of their windows: the least and
 * greatest n and first, and the AND of the bits. */
void bcl_life_apply_window(int64_t n_lo, int64_t n_hi, int64_t first_lo, int64_t first_hi,
                           uint64_t bits);

/* The runtime went down: free every buried container's private memory,
 * forget every number, and start numbering from 0 again. */
void bcl_life_discard(void);

#endif /* BCL_LIFETIME_H */
