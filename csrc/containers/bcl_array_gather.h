/*
 * bcl_array_gather.h -- every rank reads a whole DArray at one point of the
 * program (what np.asarray(darray) means in pybcl).
 */
#ifndef BCL_ARRAY_GATHER_H
#define BCL_ARRAY_GATHER_H

#include "containers/bcl_array.h"

/* Collective.  Every rank copies all a->size elements into buf.  A barrier
 * before completes every rank's earlier puts (so all of them are seen) and
 * one after keeps any rank's later puts out of the copies still in progress.
 * A rank that has no buffer (buf == NULL: it failed to allocate one, or its
 * arguments were bad) still takes part in both barriers and returns
 * BCL_ERR_ARG, so no peer waits for it.  The read's own failure is returned
 * after the second barrier for the same reason.  `what` names the user's
 * call in the error when a peer has left instead (bcl_depart.h). */
bcl_status bcl_array_gather(const char *what, const bcl_array *a, void *buf);

#endif /* BCL_ARRAY_GATHER_H */
