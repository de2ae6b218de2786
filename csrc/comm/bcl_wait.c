/* bcl_wait.c -- the communication layer's wait loops (bcl_wait.h). */
#include "comm/bcl_wait.h"

#include <sched.h>
#include <time.h>

#include "runtime/bcl_interrupt.h"

/* ---- waiting without starving the target ------------------------------
 * MPI's blocking calls busy-poll.  When ranks outnumber cores, a rank
 * spinning in MPI_Win_flush or MPI_Barrier holds the core the target needs
 * to make progress, and every op costs a scheduler time slice (~10 ms,
 * docs/progress.md).  In that case ("patient" mode) we wait in our own loop:
 * poll, then sched_yield(), then sleep 1 us between polls.  The constants
 * are the measured optimum of benchmarks/floor/oversub.c. */
#define WAIT_SPIN_POLLS 32u
#define WAIT_YIELD_POLLS 64u
#define RELAX_SPIN_POLLS 4u
#define RELAX_YIELD_POLLS 16u

/* The `fails`-th pause in a row: patient, spin `spin` times, yield `yield`
 * times, then sleep; otherwise an occasional sched_yield(). */
static void pause_after(unsigned fails, unsigned spin, unsigned yield)
{
    if (!bcl_patient()) {
        if (fails % 64u == 0)
            sched_yield();
        return;
    }
    if (fails <= spin)
        return;
    if (fails <= spin + yield) {
        sched_yield();
        return;
    }
    struct timespec ts = { 0, 1000 };
    nanosleep(&ts, NULL);
}

bcl_status bcl_wait(int n, MPI_Request *rq)
{
    int next = 0;   /* requests before `next` are complete */
    for (unsigned fails = 1;; fails++) {
        while (next < n) {
            int done = 0;
            BCL_MPI_CHECK("MPI_Test", MPI_Test(&rq[next], &done, MPI_STATUS_IGNORE));
            if (!done)
                break;
            next++;
        }
        if (next == n)
            return BCL_OK;
        bcl_status st = bcl_interrupt_poll();
        if (st != BCL_OK)
            return st;      /* the requests die with the job (MPI_Abort) */
        bcl_wait_pause(fails);
    }
}

void bcl_wait_pause(unsigned fails) { pause_after(fails, WAIT_SPIN_POLLS, WAIT_YIELD_POLLS); }

void bcl_relax_pause(unsigned spins) { pause_after(spins, RELAX_SPIN_POLLS, RELAX_YIELD_POLLS); }

bcl_status bcl_progress(void)
{
    BCL_REQUIRE_INIT();
    if (bcl_comm_direct())
        return BCL_OK;
    int flag;
    /* Any MPI call that polls the progress engine will do; Iprobe on our
     * private communicator is cheap and matches nothing. */
    BCL_MPI_CHECK("MPI_Iprobe", MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, bcl_rt.comm,
                                           &flag, MPI_STATUS_IGNORE));
    return BCL_OK;
}
