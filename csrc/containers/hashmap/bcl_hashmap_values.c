/* bcl_hashmap_values.c -- this rank's integer values read in place: their
 * range, their histogram and the entries at or above a value, one pass over
 * the block each, without copying it (bcl_hashmap.h).  A k-mer counter's
 * histogram and top entries come from here, so the compact layout's 8-byte
 * values get loops of their own (no call per entry). */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <string.h>

/* Integer values: signed (1), unsigned (2), or not integers (0). */
static int int_kind(const bcl_hashmap *m)
{
    size_t w = m->val_size;
    if (m->val_var || (w != 1 && w != 2 && w != 4 && w != 8))
        return 0;
    return m->num == BCL_HM_NUM_INT ? 1
         : m->num == BCL_HM_NUM_UINT || m->num == BCL_HM_NUM_BOOL ? 2 : 0;
}

/* A value as int64; unsigned ones above INT64_MAX saturate. */
static inline int64_t value_at(const unsigned char *p, size_t w, int sgn)
{
    switch (w) {
    case 1: return sgn ? (int64_t)*(const int8_t *)p : (int64_t)*p;
    case 2: { uint16_t u; memcpy(&u, p, 2); return sgn ? (int64_t)(int16_t)u : (int64_t)u; }
    case 4: { uint32_t u; memcpy(&u, p, 4); return sgn ? (int64_t)(int32_t)u : (int64_t)u; }
    default: {
        uint64_t u;
        memcpy(&u, p, 8);
        return sgn || u <= (uint64_t)INT64_MAX ? (int64_t)u : INT64_MAX;
    }
    }
}

/* FOR_VALUES(m, sgn, every, key, v) { body }: every entry of this rank's
 * block (not the side map's) in every `every`-th bucket, its key slot `key`
 * and value `v` (int64). */
#define FOR_VALUES(m, sgn, every, key, v)                                                \
    for (uint64_t i_ = 0, fast_ = (m)->compact && (m)->val_size == 8; i_ < (m)->block;  \
         i_ += (every))                                                                  \
        for (const unsigned char *b_ = bcl_hm_local_bucket((m), 0) + i_ * (m)->bsize,    \
                                 *key = b_ + (m)->key_off;                               \
             b_ && (fast_ ? !bcl_hmc_reserved(bcl_hmc_load(b_)) : bcl_hm_local_entry((m), b_)); \
             b_ = NULL)                                                                  \
            for (int64_t v = fast_ ? value_at(b_ + BCL_HMC_VALUE, 8, (sgn))             \
                                   : value_at(b_ + (m)->val_off, (m)->val_size, (sgn)),   \
                         once_ = 1;                                                      \
                 once_; once_ = 0)

static bcl_status not_integers(void)
{
    return bcl_set_error(BCL_ERR_TYPE, "the map's values are not integers");
}

static void hist_of(const bcl_hashmap *m, int sgn, uint64_t every, int64_t *hist,
                    uint64_t len, int64_t *lo, int64_t *hi, uint64_t *n)
{
    FOR_VALUES(m, sgn, every, key, v) {
        (void)key;
        if ((uint64_t)v < len)          /* negative values wrap high: not counted */
            hist[v]++;
        if (v < *lo)
            *lo = v;
        if (v > *hi)
            *hi = v;
        ++*n;
    }
    if (m->side && every == 1)
        hist_of(m->side, sgn, 1, hist, len, lo, hi, n);
}

bcl_status bcl_hm_local_value_hist(const bcl_hashmap *m, uint64_t every, int64_t *hist,
                                   uint64_t len, int64_t *lo, int64_t *hi, uint64_t *n)
{
    int k = int_kind(m);
    if (!k)
        return not_integers();
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    *n = 0;
    hist_of(m, k == 1, every ? every : 1, hist, len, lo, hi, n);
    return BCL_OK;
}

typedef struct selection {
    const bcl_hashmap *m;      /* the map (key and value sizes) */
    int64_t at_least;
    unsigned char *keys, *vals;
    uint64_t cap, n;
} selection;

static void select_of(const bcl_hashmap *m, int sgn, selection *s)
{
    FOR_VALUES(m, sgn, 1, key, v) {
        if (v < s->at_least)
            continue;
        if (s->n < s->cap) {
            memcpy(s->keys + s->n * m->key_size, key, m->key_size);
            memcpy(s->vals + s->n * m->val_size, key - m->key_off + m->val_off, m->val_size);
        }
        s->n++;
    }
    if (m->side)
        select_of(m->side, sgn, s);
}

bcl_status bcl_hm_local_select(const bcl_hashmap *m, int64_t at_least, void *keys,
                               void *vals, uint64_t cap, uint64_t *n)
{
    int k = int_kind(m);
    if (!k)
        return not_integers();
    selection s = { m, at_least, keys, vals, cap, 0 };
    select_of(m, k == 1, &s);
    *n = s.n;
    return BCL_OK;
}
