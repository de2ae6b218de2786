/* bcl_error.c -- thread-local message of the last failure (see bcl_error.h). */
#include "runtime/bcl_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];   /* room for a file path */
static _Thread_local int last_os_errno;

bcl_status bcl_set_error(bcl_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

const char *bcl_last_error(void)
{
    return last_error;
}

bcl_status bcl_set_os_error(int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    last_os_errno = errnum;
    return BCL_ERR_OS;
}

int bcl_last_os_errno(void)
{
    return last_os_errno;
}
