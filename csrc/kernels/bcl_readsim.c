/*
 * bcl_readsim.c -- see bcl_readsim.h.
 */
#include "kernels/bcl_readsim.h"

#include <stdio.h>
#include <string.h>

#include "kernels/bcl_pcg.h"

#define HEADER_MAX 48       /* "@sim" + 20 digits + ':' + 10 digits + ":+\n" */

size_t bcl_readsim_bound(size_t n_reads, size_t length)
{
    if (length > (SIZE_MAX - HEADER_MAX - 4) / 2)
        return 0;
    size_t per = HEADER_MAX + 2 * length + 4;
    if (n_reads > (SIZE_MAX - 1) / per)
        return 0;
    return per * n_reads + 1;
}

static const char COMPLEMENT[4] = { 'T', 'G', 'C', 'A' };
static const char LETTERS[4] = { 'A', 'C', 'G', 'T' };

static int base_code(char c)
{
    return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : c == 'T' ? 3 : -1;
}

/* One read's sequence line (no newline) at `out`: the draws per base are
 * part of the stream's definition (one error draw, one shift draw when it
 * hits), so changing their order changes every demo input. */
static void one_sequence(bcl_pcg32 *rng, const char *genome, uint32_t start, int minus,
                         size_t length, double thresh, char *out)
{
    for (size_t i = 0; i < length; i++) {
        char c = minus ? genome[start + length - 1 - i] : genome[start + i];
        int code = base_code(c);
        if (minus && code >= 0) {
            c = COMPLEMENT[code];
            code = 3 - code;
        }
        if ((double)bcl_pcg32_next(rng) < thresh) {
            int shift = 1 + (int)bcl_pcg32_bounded(rng, 3);
            c = LETTERS[((code < 0 ? 0 : code) + shift) & 3];
        }
        out[i] = c;
    }
}

size_t bcl_simulate_reads(const char *genome, size_t genome_len, size_t n_reads, size_t length,
                          double error_rate, uint64_t seed, char *out)
{
    bcl_pcg32 rng;
    bcl_pcg32_seed(&rng, seed, 0x5eed);
    const uint32_t span = (uint32_t)(genome_len - length + 1);
    const double thresh = error_rate * 4294967296.0;
    size_t w = 0;
    for (size_t r = 0; r < n_reads; r++) {
        uint32_t start = bcl_pcg32_bounded(&rng, span);
        int minus = (int)(bcl_pcg32_next(&rng) & 1);
        w += (size_t)sprintf(out + w, "@sim%zu:%u:%c\n", r, start, minus ? '-' : '+');
        one_sequence(&rng, genome, start, minus, length, thresh, out + w);
        w += length;
        memcpy(out + w, "\n+\n", 3);
        w += 3;
        memset(out + w, 'I', length);
        w += length;
        out[w++] = '\n';
    }
    return w;
}
