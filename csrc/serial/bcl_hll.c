/* bcl_hll.c -- the HyperLogLog estimate (bcl_hll.h). */
#include "serial/bcl_hll.h"

#include <math.h>

double bcl_hll_estimate(const bcl_hll *s)
{
    const double m = BCL_HLL_REGISTERS;
    double sum = 0.0;
    unsigned zeros = 0;
    for (unsigned j = 0; j < BCL_HLL_REGISTERS; j++) {
        sum += ldexp(1.0, -(int)s->reg[j]);
        zeros += s->reg[j] == 0;
    }
    double e = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    if (e <= 2.5 * m && zeros)
        e = m * log(m / (double)zeros);       /* small range: linear counting */
    return e;
}
