/*
 * bcl_depart.h -- a rank that finalizes while its peers wait for it.
 *
 * Collectives only complete when every rank calls them.  A rank that leaves
 * the program early -- `raise SystemExit`, falling off the end of a branch
 * only it took, an explicit finalize() -- reaches bcl_finalize while a peer
 * waits in barrier()/allreduce()/a container constructor for it: without
 * help that peer waits forever and the job never ends.
 *
 * So finalizing is announced: bcl_depart() sends every peer a zero-byte
 * notice on a communicator of its own (bcl_rt.depart_comm, never used for
 * anything else, so nothing can match it by accident) and then waits until
 * every rank has departed (an MPI_Ibarrier on that communicator) before the
 * window is torn down.  A rank waiting in a collective of the core polls for
 * notices (bcl_departed_peer); a notice there means the collective can never
 * complete -- the departed rank will make no further call on the runtime's
 * communicator -- except in one race: the peer left the *same* collective a
 * moment ago and its completion has not reached us yet.  The waiter
 * therefore keeps polling its request for BCL_DEPART_GRACE_S seconds before
 * it gives up with an error naming the rank; uncaught, that error ends the
 * whole job with a traceback (pybcl/_abort.py).
 */
#ifndef BCL_DEPART_H
#define BCL_DEPART_H

#include <stdint.h>

#include "runtime/bcl_error.h"

/* Seconds a collective keeps waiting after a peer's departure notice. */
#define BCL_DEPART_GRACE_S 5.0

/* Announce this rank's departure and wait until every rank has departed.
 * Collective over the runtime communicator; call before bcl_finalize. */
bcl_status bcl_depart(void);

/* Rank of some peer that has departed (its notice is waiting), else -1. */
int bcl_departed_peer(void);

/* What one wait in a collective has seen of departures: start it as
 * BCL_DEPART_WATCH_INIT and poll it every so often while waiting (an Iprobe
 * costs about an MPI_Test).  BCL_OK while the wait may go on; once a peer's
 * notice is BCL_DEPART_GRACE_S seconds old, an error naming the peer and
 * `what`.  Every wait loop of a collective uses it, whatever it waits on (an
 * MPI request, or a peer's word in shared memory: bcl_agree_node.h). */
typedef struct bcl_depart_watch {
    int gone;            /* the departed peer, -1 while none  */
    double since;        /* when its notice was seen (seconds) */
    int64_t round;       /* the agreement round waited in, 0 if none: a peer
                            that stopped its cell before it ends the wait too
                            (comm/bcl_resync.h) */
} bcl_depart_watch;

#define BCL_DEPART_WATCH_INIT { -1, 0.0, 0 }

bcl_status bcl_depart_watch_poll(bcl_depart_watch *w, const char *what);

#endif /* BCL_DEPART_H */
