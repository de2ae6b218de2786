/*
 * bcl_agree.h -- collective calls agree on their arguments before acting.
 *
 * A collective (a container constructor, resize, allreduce) whose arguments
 * are bad on one rank must not leave that rank raising while its peers wait
 * in the collective forever, and ranks passing different arguments (a
 * capacity, a value dtype) must not build inconsistent containers.  So each
 * such call first validates locally, then runs bcl_agree: ONE allreduce of
 * (lowest failing rank, every argument's min and max, a tag naming the call).
 * Then either every rank goes on, or every rank fails with a message naming
 * the call, the argument, and the ranks or values that differ.  On the shm
 * transport the same reduction is exchanged through the node's shared
 * memory instead of MPI (bcl_agree_node.h): the outcome is the same, at
 * about half the cost, and barrier() is this exchange.
 *
 * Arguments are int64 values; non-integers (dtypes) are passed as digests,
 * whose names start with '#' (the message then shows no numbers).
 */
#ifndef BCL_AGREE_H
#define BCL_AGREE_H

#include <stdint.h>

#include "runtime/bcl_error.h"

#define BCL_AGREE_MAX 8      /* arguments per call */

/* Collective over the runtime's communicator.  `local`: this rank's own
 * validation result; when it is not BCL_OK, its message is kept and returned
 * (the other ranks learn that this rank failed).  names/vals: n <= 8
 * arguments (vals ignored when local != BCL_OK). */
bcl_status bcl_agree(const char *what, bcl_status local, const char *const *names,
                     const int64_t *vals, int n);

/* While a HashMap.modify() fn runs, this rank holds a locked bucket that
 * its peers may be spinning on: any collective would deadlock.  on=1 before
 * fn, on=0 after (nested calls count); meanwhile, per thread, bcl_agree --
 * the first step of every collective -- fails at once without joining. */
void bcl_agree_forbid(int on);

/* The agreement rounds this rank has taken part in, in this runtime (every
 * collective call is one; comm/bcl_resync.h numbers them). */
int64_t bcl_agree_rounds(void);

/* FNV-1a of a string: a digest to agree on (dtype names and the like). */
int64_t bcl_agree_digest(const char *s);

#endif /* BCL_AGREE_H */
