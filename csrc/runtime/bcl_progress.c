/* bcl_progress.c -- the optional progress thread (see bcl_progress.h). */
#include "runtime/bcl_progress.h"

#include <pthread.h>
#include <time.h>

#include "runtime/bcl_runtime.h"

static struct {
    pthread_t thread;
    int running;
    int stop;            /* read/written with __atomic builtins */
    unsigned interval_us;
    MPI_Comm comm;       /* private: its Iprobe can never match user traffic */
} P;

static void *progress_loop(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, (long)P.interval_us * 1000L };
    while (!__atomic_load_n(&P.stop, __ATOMIC_ACQUIRE)) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, P.comm, &flag, MPI_STATUS_IGNORE);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

bcl_status bcl_progress_thread_start(unsigned interval_us)
{
    if (P.running)
        return BCL_OK;
    int level;
    BCL_MPI_CHECK("MPI_Query_thread", MPI_Query_thread(&level));
    if (level < MPI_THREAD_MULTIPLE)
        return bcl_set_error(BCL_ERR_STATE, "PYBCL_ASYNC_PROGRESS=1 needs MPI initialised "
                             "with MPI_THREAD_MULTIPLE (mpi4py's default)");
    BCL_MPI_CHECK("MPI_Comm_dup", MPI_Comm_dup(bcl_rt.comm, &P.comm));
    P.interval_us = interval_us ? interval_us : 1;
    __atomic_store_n(&P.stop, 0, __ATOMIC_RELEASE);
    if (pthread_create(&P.thread, NULL, progress_loop, NULL) != 0) {
        MPI_Comm_free(&P.comm);
        return bcl_set_error(BCL_ERR_STATE, "cannot start the progress thread");
    }
    P.running = 1;
    return BCL_OK;
}

void bcl_progress_thread_stop(void)
{
    if (!P.running)
        return;
    __atomic_store_n(&P.stop, 1, __ATOMIC_RELEASE);
    pthread_join(P.thread, NULL);
    MPI_Comm_free(&P.comm);
    P.running = 0;
}
