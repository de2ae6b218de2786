/*
 * bcl_resync.h -- a rank that stops its part of the work while its peers
 * may wait for it in a collective call, and how the ranks get back in step.
 *
 * In a script an uncaught exception on one rank ends the job
 * (pybcl/_abort.py).  In an interactive kernel -- an ipyparallel engine,
 * one per rank -- it ends only the cell: the engine lives on, idle, while
 * its peers may be waiting for it in a collective call of the same cell,
 * and would wait forever.  So a rank whose cell failed announces it
 * (bcl_resync_announce): one small message to every peer, on the departure
 * communicator, saying how many agreement rounds (bcl_agree.h: the first
 * step of every collective, numbered per runtime) it has taken part in.
 *
 * A peer waiting in round s reads the notices as it waits (with the
 * departure notices, bcl_depart.h): a rank that stopped after n < s rounds
 * will not join round s in this cell, so the waiting rank gives up with an
 * error naming that rank and what it raised.  Every rank that waited fails
 * the call, the cell ends on every rank, and nothing hangs.
 *
 * Back in step: the ranks that gave up have taken part in round s, the rank
 * that failed in n < s.  Every notice says how far its sender got, so at the
 * start of the next cell (bcl_resync_cell_start) each rank knows the
 * furthest round any rank has entered, and at its next collective call a
 * rank behind it first takes part in the missing rounds with an empty
 * record ("catching up", bcl_agree.c), which completes the rounds the
 * others left unfinished; then the ranks' calls meet in the same round again.
 *
 * Which notices count in a wait: those that arrive during the current cell.
 * A notice from an earlier cell is about work the engines have finished --
 * its sender may be on its way to this very call -- so the cell start reads
 * them only for how far their senders got.  Outside a kernel nothing calls
 * bcl_resync_cell_start or bcl_resync_announce, and none of this acts.
 */
#ifndef BCL_RESYNC_H
#define BCL_RESYNC_H

#include <stdint.h>

#include "runtime/bcl_error.h"

/* Seconds bcl_resync_announce waits for its peers to receive the notice. */
#define BCL_RESYNC_DELIVERY_S 1.0

/* This rank stopped its part of the cell after `rounds` agreement rounds;
 * `why` (e.g. "ValueError") goes into the peers' error message.  Returns
 * once every peer has received the notice, or after BCL_RESYNC_DELIVERY_S
 * (the peers that finished the cell receive it when their next starts). */
bcl_status bcl_resync_announce(int64_t rounds, const char *why);

/* A new cell begins on this rank: the notices so far only raise the round
 * every rank must reach (bcl_resync_target); they make no wait fail. */
void bcl_resync_cell_start(void);

/* The furthest round any rank announced having entered (0 if none). */
int64_t bcl_resync_target(void);

/* Read the notices that arrived; BCL_ERR_STATE, naming the rank and the
 * call `what`, when a peer stopped during this cell after fewer than
 * `round` rounds (it will not join round `round`).  round 0: read only. */
bcl_status bcl_resync_check(int64_t round, const char *what);

/* At departure: read what arrived, drop our notices no peer received (no
 * rank waits for a round any more) and forget the runtime's notices. */
void bcl_resync_finish(void);

#endif /* BCL_RESYNC_H */
