/* bcl_watchdog.c -- the job watchdog thread (see bcl_watchdog.h). */
#include "runtime/bcl_watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/bcl_runtime.h"

#define MESSAGE_MAX 1024

/* hydra forwards a rank's stderr asynchronously and MPI_Abort tears its
 * proxies down: under load a CI run lost every rank's abort line.  A short
 * pause after writing lets the launcher forward it first (pybcl/_abort.py
 * pauses the same way before a traceback's abort). */
#define ABORT_STDIO_GRACE_NS 500000000L

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;      /* signalled on every arm/disarm */
    int started;
    unsigned long generation;    /* bumped by every arm/disarm   */
    int armed;
    struct timespec report_at, abort_at;
    int reported;
    int report_signal, fd, exit_code;
    char report[MESSAGE_MAX], abort[MESSAGE_MAX];
} W = { .lock = PTHREAD_MUTEX_INITIALIZER };   /* `changed` is set up on first use */

static struct timespec deadline_in(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    time_t whole = (time_t)seconds;
    long nanos = t.tv_nsec + (long)((seconds - (double)whole) * 1e9);
    t.tv_sec += whole + nanos / 1000000000L;
    t.tv_nsec = nanos % 1000000000L;
    return t;
}

static void write_all(int fd, const char *text)
{
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t n = write(fd, text, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        text += n;
        left -= (size_t)n;
    }
}

/* Deliver `sig` to this thread now: it is blocked here otherwise. */
static void raise_here(int sig)
{
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    pthread_kill(pthread_self(), sig);   /* handled before the call returns */
    pthread_sigmask(SIG_BLOCK, &one, NULL);
}

static void *watch(void *arg)
{
    (void)arg;
    /* Signals meant for the process (SIGINT, SIGCHLD, ...) go to the other
     * threads, as they would without us. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&W.lock);
    for (;;) {
        if (!W.armed) {
            pthread_cond_wait(&W.changed, &W.lock);
            continue;
        }
        struct timespec next = W.reported ? W.abort_at : W.report_at;
        unsigned long gen = W.generation;
        int rc = pthread_cond_timedwait(&W.changed, &W.lock, &next);
        if (rc != ETIMEDOUT || gen != W.generation || !W.armed)
            continue;                    /* re-armed, disarmed, or spurious */
        if (!W.reported) {
            W.reported = 1;
            int fd = W.fd, sig = W.report_signal;
            char text[MESSAGE_MAX];
            memcpy(text, W.report, sizeof text);
            pthread_mutex_unlock(&W.lock);
            write_all(fd, text);
            if (sig > 0)
                raise_here(sig);
            pthread_mutex_lock(&W.lock);
            continue;
        }
        write_all(W.fd, W.abort);
        pthread_mutex_unlock(&W.lock);
        struct timespec grace = { 0, ABORT_STDIO_GRACE_NS };
        while (nanosleep(&grace, &grace) != 0 && errno == EINTR)
            ;
        bcl_abort(W.exit_code);
        _exit(W.exit_code);             /* not reached unless MPI_Abort returned */
    }
    return NULL;
}

static void copy_message(char *dst, const char *src)
{
    snprintf(dst, MESSAGE_MAX, "%s", src ? src : "");
}

bcl_status bcl_watchdog_arm(const bcl_watchdog_plan *plan)
{
    if (!plan || plan->abort_after <= 0 || plan->report_after > plan->abort_after)
        return bcl_set_error(BCL_ERR_ARG, "watchdog: need 0 < report_after <= abort_after");
    if (plan->fd < 0)
        return bcl_set_error(BCL_ERR_ARG, "watchdog: fd must be an open file descriptor");
    pthread_mutex_lock(&W.lock);
    if (!W.started) {
        /* Deadlines are on the monotonic clock: a clock step must not move them. */
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&W.changed, &ca);
        pthread_condattr_destroy(&ca);
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, watch, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            pthread_mutex_unlock(&W.lock);
            return bcl_set_error(BCL_ERR_STATE, "watchdog: cannot start its thread");
        }
        W.started = 1;
    }
    W.report_at = deadline_in(plan->report_after < 0 ? plan->abort_after : plan->report_after);
    W.abort_at = deadline_in(plan->abort_after);
    W.reported = plan->report_after < 0;
    W.report_signal = plan->report_signal;
    W.fd = plan->fd;
    W.exit_code = plan->exit_code;
    copy_message(W.report, plan->report);
    copy_message(W.abort, plan->abort);
    W.armed = 1;
    W.generation++;
    pthread_cond_signal(&W.changed);
    pthread_mutex_unlock(&W.lock);
    return BCL_OK;
}

void bcl_watchdog_disarm(void)
{
    pthread_mutex_lock(&W.lock);
    if (!W.started) {
        pthread_mutex_unlock(&W.lock);
        return;
    }
    W.armed = 0;
    W.generation++;
    pthread_cond_signal(&W.changed);
    pthread_mutex_unlock(&W.lock);
}
