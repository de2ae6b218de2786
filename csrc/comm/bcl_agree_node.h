/*
 * bcl_agree_node.h -- the agreement's exchange through the node's shared memory.
 *
 * Every collective of pybcl begins with the argument agreement (bcl_agree.h),
 * barrier() included, so the agreement's exchange is what a barrier costs.
 * As an MPI allreduce it cost MPICH about twice its Ibarrier on one node.
 * On the shm transport every rank maps every rank's segment, so there the
 * exchange goes through memory instead: each rank has a slot in the reserved
 * head of its own segment; it writes its record there, publishes it with a
 * release store of the round number, waits until every peer has published
 * the same round, and then reads and reduces every rank's record locally.
 * No MPI call; a rank reads one cache line per peer (two when the call
 * agrees on arguments).
 *
 * Rounds are numbered 1, 2, ... per runtime (the reserved head is zeroed at
 * init, before the barrier that ends it; bcl_agree.c keeps the count).  Every collective takes the same
 * exchange on a given runtime, so ranks in different collectives meet here
 * as they met in the allreduce, and the records' tags tell them apart.
 *
 * Each slot has two buffers, by round parity: a rank may publish round g+1
 * while a slower peer still reads its round-g record, but it cannot get past
 * round g+1 (and so write round g+2 over that record) before the slow peer
 * has published g+1, which the peer does only after it has read round g.
 *
 * The wait is a collective's wait (bcl_wait_pause: patient when ranks
 * outnumber CPUs), interruptible (bcl_interrupt.h), and a peer that
 * finalized ends it with an error after the grace period (bcl_depart.h).
 */
#ifndef BCL_AGREE_NODE_H
#define BCL_AGREE_NODE_H

#include <stdint.h>

#include "comm/bcl_agree.h"

/* Where the slot lives in every rank's segment: inside the runtime's reserved
 * head (bcl_runtime.h), clear of word 0 (the null pointer; the patient flush
 * reads it), 64-byte aligned. */
#define BCL_AGREE_NODE_OFFSET 1024u

/* One rank's part of an agreement, as exchanged (bcl_agree.c folds every
 * rank's into what the allreduce would have given). */
typedef struct bcl_agree_rec {
    int64_t failed;              /* this rank's own validation failed       */
    int64_t tag;                 /* digest of the call's name               */
    int64_t nargs;               /* vals beyond nargs read as 0             */
    int64_t life_n;              /* reclaim window (bcl_lifetime.h): length */
    int64_t life_first;          /* of the list, first number in the window */
    uint64_t life_bits;          /* bit k: window entry k dropped here      */
    int64_t vals[BCL_AGREE_MAX];
} bcl_agree_rec;

/* Whether this runtime's agreements take this exchange (the shm transport;
 * the same answer on every rank). */
int bcl_agree_node_active(void);

/* Called once per rank, this rank included, with that rank's record. */
typedef void (*bcl_agree_visit)(const bcl_agree_rec *rec, int rank, void *ctx);

/* Round `round` (bcl_agree.c counts them, 1, 2, ... per runtime): publish
 * *mine, then visit every rank's record of this round as it arrives.
 * `what` names the call in a departure error. */
bcl_status bcl_agree_node_round(const bcl_agree_rec *mine, int64_t round, const char *what,
                                bcl_agree_visit visit, void *ctx);

#endif /* BCL_AGREE_NODE_H */
