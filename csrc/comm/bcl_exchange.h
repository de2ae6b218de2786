/*
 * bcl_exchange.h -- personalised all-to-all: counts, and byte blobs (alltoallv).
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

/* Collective: count[r], this rank's count for rank r -> got[r], the count
 * rank r has for this rank (one uint64 each way per rank pair). */
bcl_status bcl_alltoall_u64(const uint64_t *count, uint64_t *got);

/* Collective: MPI_Alltoallv of bytes whose sizes both sides know already
 * (exchanged by bcl_alltoall_u64, or the answers to a request): sendn[r]
 * bytes from send (rank order, packed) to rank r, recvn[r] bytes from rank
 * r into recv (rank order, packed).  The caller keeps every rank's totals
 * below 2 GiB (MPI's int counts; BCL_ERR_ARG here otherwise, on that rank
 * only: size the rounds alike on every rank). */
bcl_status bcl_alltoallv_known(const unsigned char *send, const uint64_t *sendn,
                               unsigned char *recv, const uint64_t *recvn);

#endif /* BCL_EXCHANGE_H */
