/*
 * finalize_guard.h -- the bound pybcl's exit guard puts on MPI's teardown
 * (csrc/runtime/bcl_exit_guard.h, docs/multinode.md), for the plain-MPI
 * reproducers in this folder.
 *
 * MPICH 4.0.2 over UCX's TCP transport can leave one rank spinning in its
 * teardown after the work and the report are done (tests/repro/teardown_loop.py).
 * A reproducer arms this once its result is printed and flushed; if the
 * process is still alive `PYBCL_FINALIZE_TIMEOUT` seconds later (default 30)
 * it writes a notice naming the guard, so a caller can tell a guard-ended
 * teardown from a failed run, and exits with the status it was armed with.
 */
#ifndef PYBCL_REPRO_FINALIZE_GUARD_H
#define PYBCL_REPRO_FINALIZE_GUARD_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char finalize_notice[160];
static volatile sig_atomic_t finalize_status;

static void finalize_timed_out(int sig)
{
    (void)sig;
    /* only async-signal-safe calls here: the text was composed when armed */
    ssize_t ignored = write(STDERR_FILENO, finalize_notice, strlen(finalize_notice));
    (void)ignored;
    _exit(finalize_status);
}

/* Arm after the result is out: `program` names the notice, `status` is the
 * exit status a guard-ended process reports (the run's own verdict). */
static void arm_finalize_guard(const char *program, int status)
{
    const char *env = getenv("PYBCL_FINALIZE_TIMEOUT");
    long seconds = env ? atol(env) : 30;
    if (seconds < 1)
        seconds = 30;
    snprintf(finalize_notice, sizeof finalize_notice,
             "%s: MPI teardown did not return in time; ending the process (exit guard)\n",
             program);
    finalize_status = status;
    fflush(stdout);
    fflush(stderr);
    signal(SIGALRM, finalize_timed_out);
    alarm((unsigned)seconds);
}

#endif /* PYBCL_REPRO_FINALIZE_GUARD_H */
