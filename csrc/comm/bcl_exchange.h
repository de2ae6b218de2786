/*
 * bcl_exchange.h -- personalised all-to-all of byte blobs (alltoallv).
 *
 * Every rank hands one blob per destination and gets, from every rank, the
 * blob that rank addressed to it.  On pybcl's own duplicate communicator and
 * in the core's wait loop (a peer that finalized or Ctrl-C ends the wait),
 * as bcl_gather.h.  Callers agree on the call first (bcl_agree.h).
 */
#ifndef BCL_EXCHANGE_H
#define BCL_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

/* Collective over bcl_rt.comm.  send[r], sendn[r]: the bytes for rank r.
 * On success *out is one malloc'd block (the caller frees it) with the
 * bytes from every rank, in rank order; *outn its length.  What one rank
 * sends or receives in all must stay below 2 GiB (MPI's int counts): every
 * rank fails alike (BCL_ERR_ARG) otherwise -- callers ship in rounds. */
bcl_status bcl_alltoallv_bytes(const unsigned char *const *send, const size_t *sendn,
                               unsigned char **out, size_t *outn);

#endif /* BCL_EXCHANGE_H */
