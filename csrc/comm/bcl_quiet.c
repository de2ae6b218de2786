/* bcl_quiet.c -- progress polls on the quiet data path (see bcl_quiet.h). */
#include "comm/bcl_quiet.h"

#include "comm/bcl_comm.h"

static unsigned quiet_ops;

void bcl_quiet_op(void)
{
    if (++quiet_ops % BCL_QUIET_PROGRESS_EVERY != 0)
        return;
    /* Best effort: a failed Iprobe here changes nothing the caller did; the
     * next blocking call reports a broken MPI, with its own context. */
    if (bcl_rt.initialized)
        (void)bcl_progress();
}

void bcl_quiet_target(int rank)
{
    if (rank == bcl_rt.rank)
        bcl_quiet_op();
}
