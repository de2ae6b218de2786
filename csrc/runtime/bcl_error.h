/*
 * bcl_error.h -- status codes and the error message of the last failure.
 *
 * Every fallible core function returns a bcl_status (BCL_OK == 0).  On failure
 * it also records a human-readable message with bcl_set_error(); the binding
 * layer turns the pair into a Python exception, so messages name the argument
 * at fault ("offset 4096 + 16 bytes is past the end of rank 1's segment").
 * The message buffer is thread-local: the core may be called from several
 * threads as long as MPI itself was initialised for that.
 */
#ifndef BCL_ERROR_H
#define BCL_ERROR_H

typedef enum bcl_status {
    BCL_OK = 0,
    BCL_ERR_ARG,        /* bad argument value            -> ValueError   */
    BCL_ERR_TYPE,       /* bad argument type / dtype      -> TypeError    */
    BCL_ERR_BOUNDS,     /* offset/index outside a region  -> IndexError / ValueError */
    BCL_ERR_SEGFULL,    /* shared segment has no room     -> pybcl.SegmentFull */
    BCL_ERR_FULL,       /* container has no room          -> pybcl.ContainerFull */
    BCL_ERR_EMPTY,      /* pop from an empty queue        -> pybcl.Empty */
    BCL_ERR_NOMEM,      /* private (malloc) memory        -> MemoryError */
    BCL_ERR_MPI,        /* an MPI call failed             -> pybcl.Error */
    BCL_ERR_STATE,      /* not initialised / finalised    -> pybcl.Error */
    BCL_ERR_DECODE,     /* malformed serialized data      -> ValueError   */
    BCL_ERR_OVERFLOW,   /* a sum does not fit its type    -> OverflowError */
    BCL_ERR_INTERRUPTED,/* a signal handler raised in a wait -> its exception */
    BCL_ERR_REENTRY,    /* would wait on a lock this thread holds -> RuntimeError */
    BCL_ERR_OS          /* a file-system call failed: bcl_last_os_errno() -> OSError */
} bcl_status;

/* Record a printf-style message for the current failure; returns `code` so
 * error paths can be written `return bcl_set_error(BCL_ERR_ARG, "...", ...);` */
bcl_status bcl_set_error(bcl_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Message of the most recent failure on this thread ("" if none). */
const char *bcl_last_error(void);

/* bcl_set_error(BCL_ERR_OS, ...) that also records `errnum` (an errno
 * value: ENOENT, EACCES, ...), which the binding turns into the matching
 * OSError subclass (FileNotFoundError, PermissionError, ...). */
bcl_status bcl_set_os_error(int errnum, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* errno of the most recent BCL_ERR_OS on this thread. */
int bcl_last_os_errno(void);

#endif /* BCL_ERROR_H */
