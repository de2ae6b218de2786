/*
 * bcl_quiet.h -- keep serving peers while this rank's own operations never
 * run MPI's progress engine.
 *
 * Under some MPIs an atomic aimed at an MPI_Win_create window (the rma-node
 * transport's W_job) completes only while the target's progress engine
 * runs: Open MPI 4.1's osc/ucx and MPICH 5's ch4:ucx (the waiting peer sits
 * in UCX for the reply; an MPI_Iprobe loop at the target releases it).
 * A rank's own pybcl calls usually run the engine, but not all of them: an
 * MPI atomic aimed at this rank's own memory completes on the spot, and a
 * memcpy to a node peer makes no MPI call that progresses.  A rank whose
 * calls are all of that kind -- the host of a queue polling it with pop()
 * -- never ran the engine, and every peer pushing to or popping from that
 * queue waited inside its atomic for ever (a peer that failed meanwhile
 * never even reached its raise, so the job never ended).
 *
 * So the data path counts those "quiet" operations, and every
 * BCL_QUIET_PROGRESS_EVERY-th one also polls the engine (bcl_progress, one
 * MPI_Iprobe on the runtime's communicator).  The count is per process, a
 * plain increment: a lost update among threads only shifts the next poll.
 */
#ifndef BCL_QUIET_H
#define BCL_QUIET_H

/* A poll every 16 quiet operations: a quiet op costs ~0.3-1 us, an Iprobe
 * about as much, so the data path pays a few percent at most while a
 * peer's op waits at most ~16 of ours. */
#define BCL_QUIET_PROGRESS_EVERY 16u

/* Note one operation that completed without running MPI's progress engine
 * (an MPI op aimed at ourselves, a node peer's memcpy); every
 * BCL_QUIET_PROGRESS_EVERY-th call polls the engine.  No-op before init. */
void bcl_quiet_op(void);

/* Note an MPI operation aimed at `rank`: quiet when it is this rank. */
void bcl_quiet_target(int rank);

#endif /* BCL_QUIET_H */
