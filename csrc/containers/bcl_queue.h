/*
 * bcl_queue.h -- BCL's hosted queues (paper section 5.2, Tables 2 and 4).
 *
 * A queue is a ring buffer of `capacity` fixed-size slots living in the
 * segment of one rank, its host, behind a small control block of 64-bit
 * counters (each on its own cache line):
 *
 *   head        next slot to claim for popping        (fetch-and-add)
 *   tail        next slot to claim for pushing        (fetch-and-add)
 *   head_ready  slots below it are popped and free     (CircularQueue only)
 *   tail_ready  slots below it are written and readable (CircularQueue only)
 *
 * Counters only ever grow (slot = counter % capacity), so a rank's cached
 * copy of a counter is always a lower bound of the real value and is safe to
 * bound-check against: it only has to be refreshed when the check fails.
 *
 * FastQueue: pushes and pops are in phases separated by barriers, so the
 * claimed range is the readable one: head_ready aliases head, tail_ready
 * aliases tail, and an operation is one atomic plus one put/get.
 *
 * CircularQueue: a push claims slots on tail, writes them, then publishes
 * them by advancing tail_ready from its own start to its own end with a CAS
 * (so it waits for earlier pushes to publish first: a fetch-and-add could
 * mark a slower neighbour's slots readable).  Pops mirror this on
 * head/head_ready.  Promises (Table 4) relax the publication step.
 *
 * Claims, FastQueue: one fetch-and-add.  A claim that turns out not to fit
 * is given back by a CAS that moves the counter from the claim's end back to
 * its start, which only succeeds once every later claim has been given back
 * too (last in, first out).  Any later claim that does fit means ours fits
 * as well (counters are monotonic), so the waiting ends once no new claim
 * arrives on top: in a FastQueue phase every rank stops at its first refusal
 * or Empty (nothing can change before the barrier), so arrivals are bounded.
 * Nothing is ever written into a claim that is given back.  A push can be
 * refused while a concurrent, larger push_many in front of it is being
 * refused (it then retries a few times when a fresh tail shows room).
 *
 * Claims, CircularQueue: a CAS from the last counter value this rank saw to
 * that value plus what fits, retried with the value the failed CAS returns;
 * a queue that is full (empty) by the cached bounds is refused (Empty) with
 * one read of head_ready (tail_ready) and no claim at all.  So a CircularQueue
 * never over-claims and never gives back, and claim and head/tail only grow.
 * Why not the FastQueue's fetch-and-add: there pushers and poppers retry on
 * a full or empty queue while others work, and a rank whose over-claim sits
 * under the claims of ranks that keep retrying waits for a moment with none
 * above it -- 16 ranks on 2 cores over rma popping an empty CircularQueue
 * left 8 of them in that give-back loop for 10 minutes (with 15 elements
 * claimed under them, never popped).  A failed CAS means another claim
 * succeeded, so some rank always progresses (lock-free).
 *
 * Promises: within one phase every push uses the same promise (and every
 * pop): a ConProm.push publication (fetch-and-add) can step over the value
 * an in-order (CAS) publisher of the same phase waits for.
 */
#ifndef BCL_QUEUE_H
#define BCL_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "comm/bcl_comm.h"
#include "serial/bcl_msgpack.h"

typedef enum bcl_queue_kind { BCL_QUEUE_FAST = 0, BCL_QUEUE_CIRCULAR = 1 } bcl_queue_kind;

/* Concurrency promises, the bit values of pybcl.ConProm.CircularQueue. */
enum { BCL_QP_PUSH = 1, BCL_QP_POP = 2, BCL_QP_LOCAL = 4 };

typedef struct bcl_queue {
    bcl_queue_kind kind;
    int host;
    uint64_t capacity;     /* slots                                           */
    size_t slot_size;      /* bytes per slot                                  */
    int values;            /* slots hold bcl_objrefs to out-of-line values    */
                           /* the queue owns (bcl_queue_values.c)            */
    bcl_gptr block;        /* host's allocation: control block, then data     */
    bcl_gptr head, tail, head_ready, tail_ready, data;
    uint64_t cached_head;  /* lower bound of head_ready (push bound check)    */
    uint64_t cached_tail;  /* lower bound of tail_ready (pop bound check)     */
    uint64_t seen_head;    /* CircularQueue: lower bound of head (CAS guess)  */
    uint64_t seen_tail;    /* CircularQueue: lower bound of tail (CAS guess)  */
} bcl_queue;

/* Collective.  Every rank passes the same arguments (checked: a mismatch or
 * an argument another rank flagged invalid by passing capacity < 0 fails on
 * every rank with BCL_ERR_ARG).  The host allocates, the others learn where.
 * slot_size BCL_QUEUE_VALUES: a queue of variable-length values.  elem_type:
 * an id of the element type, agreed too (two types of one size must not
 * meet in one queue); 0 when the size says all. */
#define BCL_QUEUE_VALUES ((size_t)0)
bcl_status bcl_queue_create(bcl_queue *q, bcl_queue_kind kind, int host,
                            int64_t capacity, size_t slot_size, int64_t elem_type);

/* Local: the host frees the storage, and the values still in a queue of
 * values (so a queue that goes away leaks nothing).  Call it on every rank
 * once nobody uses the queue any more; with the runtime down it frees
 * nothing. */
void bcl_queue_destroy(bcl_queue *q);

/* Collective: the inboxes of the buffers (DArrayBuffer, HashMapBuffer): one
 * FastQueue per rank r, hosted by r, into q[0..nprocs), then a barrier so
 * nobody pushes before every queue exists.  *made counts the queues created;
 * a failure is the same on every rank (bcl_queue_create agrees), so all stop
 * at the same queue.  bcl_queue_destroy_n takes the first n apart. */
bcl_status bcl_queue_per_rank(bcl_queue *q, int64_t capacity, size_t slot_size, int *made);
void bcl_queue_destroy_n(bcl_queue *q, int n);

/* Push n slots from src (n * slot_size bytes).  *pushed = 1 if they were all
 * pushed, 0 if they did not fit now (nothing written); BCL_ERR_ARG if n is
 * more than the capacity (they never will).  promise: BCL_QP_* bits,
 * 0 = fully atomic; ignored by FastQueue except BCL_QP_LOCAL. */
bcl_status bcl_queue_push(bcl_queue *q, const void *src, size_t n, unsigned promise,
                          int *pushed);

/* Pop at most n slots into dst; *popped = how many (0: empty). */
bcl_status bcl_queue_pop(bcl_queue *q, void *dst, size_t n, unsigned promise,
                         size_t *popped);

/* Host only, nobody else using the queue: pop at most n with local memory
 * operations (Table 2's local_nonatomic_pop). */
bcl_status bcl_queue_local_pop(bcl_queue *q, void *dst, size_t n, size_t *popped);

/* Number of elements (exact when the queue is quiescent). */
bcl_status bcl_queue_size(bcl_queue *q, uint64_t *size);

/* Host only, nobody else using the queue: make the elements one contiguous
 * run in FIFO order and return its address and length. */
bcl_status bcl_queue_local_view(bcl_queue *q, void **addr, uint64_t *count);

/* Collective: new capacity (>= size) / new host; contents and order kept.
 * A negative new_capacity / new_host means "invalid on this rank": every
 * rank then fails with BCL_ERR_ARG and the queue is unchanged. */
bcl_status bcl_queue_resize(bcl_queue *q, int64_t new_capacity);
bcl_status bcl_queue_migrate(bcl_queue *q, int new_host);

/* ---- elements as bytes, either kind of queue (bcl_queue_values.c) -------
 * A queue of values (BCL_QUEUE_VALUES) holds bcl_objrefs in its slots to
 * out-of-line values, which it owns: it stores them on push, and a pop
 * copies their bytes out to the caller and releases them.
 *
 * Push n elements whose bytes lie back to back in `bytes`: slot_size bytes
 * each (lens unused), or value i lens[i] bytes long.  Values are stored in
 * this rank's segment and their references pushed as one block: all or
 * nothing -- when they do not fit (*pushed = 0) or anything fails, the
 * stored values are given back. */
bcl_status bcl_queue_push_elems(bcl_queue *q, const void *bytes, const size_t *lens,
                                size_t n, unsigned promise, int *pushed);

/* Pop at most n elements (lens holds n); *popped = how many (0: empty).
 * Their bytes are appended to `out` back to back, element i lens[i] bytes
 * long.  Every popped value is released, even when reading one or the pop
 * itself fails part-way: the values have left the queue either way (a value
 * that could not be read has lens[i] = 0 and the first failure is returned).
 * local: bcl_queue_local_pop's host-only nonatomic pop. */
bcl_status bcl_queue_pop_elems(bcl_queue *q, size_t n, unsigned promise, int local,
                               bcl_mp_writer *out, size_t *lens, size_t *popped);

#endif /* BCL_QUEUE_H */
