/* bcl_exit_guard.c -- see bcl_exit_guard.h. */
#include "runtime/bcl_exit_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    struct timespec deadline;   /* CLOCK_MONOTONIC */
    double seconds;
    int rank;
    int armed;
} G;

static void *guard_main(void *arg)
{
    (void)arg;
    /* Sleeps through signals: EINTR only repeats the wait for the same deadline. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &G.deadline, NULL) == EINTR)
        ;
    /* Still alive: MPI's teardown did not return.  stdio may be mid-write in
     * the stuck thread, so write(2) the notice and only then flush stdio. */
    char msg[256];
    int len = snprintf(msg, sizeof msg,
                       "pybcl: rank %d: MPI_Finalize did not return within %g s after "
                       "pybcl finished; ending the process (PYBCL_FINALIZE_TIMEOUT, "
                       "docs/multinode.md)\n", G.rank, G.seconds);
    if (len > 0) {
        ssize_t ignored = write(STDERR_FILENO, msg, (size_t)len);
        (void)ignored;
    }
    fflush(NULL);
    _exit(0);
    return NULL;
}

bcl_status bcl_exit_guard_arm(double seconds, int rank)
{
    if (!(seconds > 0) || seconds > 1e9)   /* also refuses NaN */
        return bcl_set_error(BCL_ERR_ARG, "exit guard: seconds must be positive, got %g",
                             seconds);
    if (G.armed)
        return BCL_OK;
    clock_gettime(CLOCK_MONOTONIC, &G.deadline);
    time_t whole = (time_t)seconds;
    G.deadline.tv_sec += whole;
    G.deadline.tv_nsec += (long)((seconds - (double)whole) * 1e9);
    if (G.deadline.tv_nsec >= 1000000000L) {
        G.deadline.tv_sec += 1;
        G.deadline.tv_nsec -= 1000000000L;
    }
    G.seconds = seconds;
    G.rank = rank;
    pthread_attr_t attr;
    pthread_t thread;
    int rc = pthread_attr_init(&attr);
    if (rc == 0)
        rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (rc == 0)
        rc = pthread_create(&thread, &attr, guard_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return bcl_set_error(BCL_ERR_STATE, "exit guard: pthread_create failed: %s",
                             strerror(rc));
    G.armed = 1;
    return BCL_OK;
}
