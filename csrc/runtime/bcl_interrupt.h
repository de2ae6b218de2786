/*
 * bcl_interrupt.h -- let a waiting rank be interrupted (Ctrl-C).
 *
 * Every wait loop of the core (barrier, flush, the containers' spin loops)
 * calls bcl_interrupt_poll().  The binding installs a hook that runs
 * Python's pending signal handlers; when one raises (KeyboardInterrupt), the
 * wait gives up with BCL_ERR_INTERRUPTED and the exception propagates.  The
 * hook is consulted at most every BCL_INTERRUPT_PERIOD_MS, so a loop pays a
 * counter increment per poll and a clock read every 256 polls.
 *
 * An operation interrupted half-way may leave its container unusable (a
 * reservation never published); the uncaught KeyboardInterrupt ends the job.
 */
#ifndef BCL_INTERRUPT_H
#define BCL_INTERRUPT_H

#include "runtime/bcl_error.h"

#define BCL_INTERRUPT_PERIOD_MS 10

/* Returns nonzero when the wait must stop (the hook has recorded why). */
typedef int (*bcl_interrupt_hook)(void);

/* Install (or with NULL remove) the hook; not thread-safe against polls. */
void bcl_set_interrupt_hook(bcl_interrupt_hook hook);

/* BCL_OK, or BCL_ERR_INTERRUPTED (message set) once the hook fired. */
bcl_status bcl_interrupt_poll(void);

#endif /* BCL_INTERRUPT_H */
