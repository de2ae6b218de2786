/*
 * bcl_watchdog.h -- end the whole job when something runs too long.
 *
 * A hang in an MPI job is silent: every rank waits for another and the job
 * sits until an outer time limit kills it, without saying where it was.
 * The watchdog is one helper thread per process that sleeps until a
 * deadline unless disarmed first.  At the report deadline it writes a
 * message to a file descriptor and raises a signal in itself (the test
 * suite registers Python's faulthandler on it, which prints every thread's
 * Python stack without needing the GIL); at the abort deadline it writes a
 * second line and calls MPI_Abort, so every rank ends and mpiexec returns.
 *
 * It is a C thread, not a Python one, because the hangs it is for may be a
 * C loop that holds the GIL: a Python timer thread would never run.
 * MPI_Abort from this thread needs MPI_THREAD_MULTIPLE, which bcl_init and
 * mpi4py request.
 */
#ifndef BCL_WATCHDOG_H
#define BCL_WATCHDOG_H

#include "runtime/bcl_error.h"

typedef struct bcl_watchdog_plan {
    double report_after;   /* seconds from now to the report; < 0: none     */
    int report_signal;     /* raised in this process after the report; 0: none */
    const char *report;    /* written to fd at the report deadline          */
    double abort_after;    /* seconds from now to MPI_Abort (>= report_after) */
    const char *abort;     /* written to fd just before MPI_Abort           */
    int fd;                /* where the lines go (a dup of the real stderr)  */
    int exit_code;         /* MPI_Abort's error code                        */
} bcl_watchdog_plan;

/* (Re)arm: replaces any plan armed before.  Messages are copied. */
bcl_status bcl_watchdog_arm(const bcl_watchdog_plan *plan);

/* Cancel the armed plan, if any (the thread stays, idle). */
void bcl_watchdog_disarm(void);

#endif /* BCL_WATCHDOG_H */
