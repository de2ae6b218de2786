/* bcl_gups.c -- HPCC RandomAccess stream and atomic update loop (see header). */
#include "kernels/bcl_gups.h"

static uint64_t next(uint64_t a)
{
    return (a << 1) ^ ((int64_t)a < 0 ? BCL_GUPS_POLY : 0);
}

/* HPCC_starts: m2[i] = x^(2^i) as a register state; square-and-multiply
 * over GF(2)[x] / POLY, walking n's bits from the top. */
uint64_t bcl_gups_starts(int64_t n)
{
    uint64_t m2[64];
    while (n < 0)
        n += BCL_GUPS_PERIOD;
    while (n > BCL_GUPS_PERIOD)
        n -= BCL_GUPS_PERIOD;
    if (n == 0)
        return 1;
    uint64_t temp = 1;
    for (int i = 0; i < 64; i++) {
        m2[i] = temp;
        temp = next(next(temp));
    }
    int i;
    for (i = 62; i >= 0; i--)
        if ((n >> i) & 1)
            break;
    uint64_t ran = 2;
    while (i > 0) {
        temp = 0;
        for (int j = 0; j < 64; j++)
            if ((ran >> j) & 1)
                temp ^= m2[j];
        ran = temp;
        i -= 1;
        if ((n >> i) & 1)
            ran = next(ran);
    }
    return ran;
}

void bcl_gups_stream(uint64_t *state, uint64_t *out, size_t n)
{
    uint64_t a = *state;
    for (size_t i = 0; i < n; i++) {
        a = next(a);
        out[i] = a;
    }
    *state = a;
}

bcl_status bcl_gups_atomic(const bcl_gups_table *t, uint64_t *state, uint64_t n)
{
    uint64_t a = *state, mask = t->size - 1;
    bcl_status st = BCL_OK;
    for (uint64_t k = 0; k < n; k++) {
        a = next(a);
        st = t->post_xor(t->table, a & mask, a);
        if (st != BCL_OK)
            break;
    }
    *state = a;
    bcl_status fst = t->complete();
    return st != BCL_OK ? st : fst;
}
