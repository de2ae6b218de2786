/* bcl_error.c -- thread-local message of the last failure (see bcl_error.h). */
#include "runtime/bcl_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

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
