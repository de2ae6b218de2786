/*
 * bcl_gather.h -- every rank's bytes on every rank (allgather of blobs).
 *
 * The whole-container views (HashMap.items() and friends) gather every
 * rank's share on every rank.  They do it here, on pybcl's own duplicate
 * communicator and in the core's wait loop, never on the user's
 * communicator: a user's collective can then never match pybcl's, and a
 * peer that finalized, Ctrl-C or a mismatch ends the wait (bcl_comm.h).
 * Callers agree on the call first (bcl_agree.h).
 */
#ifndef BCL_GATHER_H
#define BCL_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"

/* Collective over bcl_rt.comm.  On success *out is one malloc'd block with
 * every rank's bytes in rank order, rank r's at out + offsets[r], of
 * sizes[r] bytes; *sizes (nprocs entries, malloc'd too) and the caller
 * frees both.  The total must fit MPI's int counts (< 2 GiB): every rank
 * fails alike (BCL_ERR_ARG) when it does not. */
bcl_status bcl_allgather_bytes(const void *mine, size_t n, unsigned char **out,
                               uint64_t **sizes);

#endif /* BCL_GATHER_H */
