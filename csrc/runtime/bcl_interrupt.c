/* bcl_interrupt.c -- the interrupt hook of the wait loops (bcl_interrupt.h). */
#include "runtime/bcl_interrupt.h"

#include <stdint.h>
#include <time.h>

static bcl_interrupt_hook hook;
static _Thread_local uint64_t last_check_ms;
static _Thread_local unsigned polls;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void bcl_set_interrupt_hook(bcl_interrupt_hook h) { hook = h; }

bcl_status bcl_interrupt_poll(void)
{
    if (!hook || (++polls & 255u) != 0)
        return BCL_OK;
    uint64_t now = now_ms();
    if (now - last_check_ms < BCL_INTERRUPT_PERIOD_MS)
        return BCL_OK;
    last_check_ms = now;
    if (!hook())
        return BCL_OK;
    return bcl_set_error(BCL_ERR_INTERRUPTED, "interrupted while waiting");
}
