/* bcl_hashmap_values.c -- this rank's integer values read in place: their
 * range, their histogram and the entries at or above a value, one pass over
 * the block each, without copying it (bcl_hashmap.h).  A k-mer counter's
 * histogram and top entries come from here. */
#include "containers/bcl_hashmap_internal.h"

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

/* One pass over this rank's entries (block, then side map): visit(ctx, key
 * slot, value).  The compact layout's 8-byte values get their own loop. */
typedef void (*value_fn)(void *ctx, const unsigned char *key, const unsigned char *val,
                         int64_t v);

static void each_value(const bcl_hashmap *m, int sgn, value_fn fn, void *ctx)
{
    const unsigned char *base = bcl_hm_local_bucket(m, 0);
    if (m->compact && m->val_size == 8) {
        for (uint64_t i = 0; i < m->block; i++) {
            const unsigned char *b = base + i * m->bsize;
            uint64_t kw;
            memcpy(&kw, b, 8);
            if (!bcl_hmc_reserved(kw))
                fn(ctx, b, b + BCL_HMC_VALUE, value_at(b + BCL_HMC_VALUE, 8, sgn));
        }
    } else {
        for (uint64_t i = 0; i < m->block; i++) {
            const unsigned char *b = base + i * m->bsize;
            if (bcl_hm_local_entry(m, b))
                fn(ctx, b + m->key_off, b + m->val_off,
                   value_at(b + m->val_off, m->val_size, sgn));
        }
    }
    if (m->side)
        each_value(m->side, sgn, fn, ctx);
}

static bcl_status not_integers(void)
{
    return bcl_set_error(BCL_ERR_TYPE, "the map's values are not integers");
}

typedef struct range_ctx {
    int64_t lo, hi;
    uint64_t n;
} range_ctx;

static void range_one(void *vc, const unsigned char *key, const unsigned char *val, int64_t v)
{
    range_ctx *c = vc;
    (void)key, (void)val;
    if (v < c->lo)
        c->lo = v;
    if (v > c->hi)
        c->hi = v;
    c->n++;
}

bcl_status bcl_hm_local_value_range(const bcl_hashmap *m, int64_t *lo, int64_t *hi,
                                    uint64_t *n)
{
    int k = int_kind(m);
    if (!k)
        return not_integers();
    range_ctx c = { INT64_MAX, INT64_MIN, 0 };
    each_value(m, k == 1, range_one, &c);
    *lo = c.lo;
    *hi = c.hi;
    *n = c.n;
    return BCL_OK;
}

typedef struct hist_ctx {
    int64_t *hist;
    uint64_t len;
} hist_ctx;

static void hist_one(void *vc, const unsigned char *key, const unsigned char *val, int64_t v)
{
    hist_ctx *c = vc;
    (void)key, (void)val;
    if (v >= 0 && (uint64_t)v < c->len)
        c->hist[v]++;
}

bcl_status bcl_hm_local_value_hist(const bcl_hashmap *m, int64_t *hist, uint64_t len)
{
    int k = int_kind(m);
    if (!k)
        return not_integers();
    hist_ctx c = { hist, len };
    each_value(m, k == 1, hist_one, &c);
    return BCL_OK;
}

typedef struct select_ctx {
    const bcl_hashmap *m;
    int64_t at_least;
    unsigned char *keys, *vals;
    uint64_t cap, n;
} select_ctx;

static void select_one(void *vc, const unsigned char *key, const unsigned char *val,
                       int64_t v)
{
    select_ctx *c = vc;
    if (v < c->at_least)
        return;
    if (c->n < c->cap) {
        memcpy(c->keys + c->n * c->m->key_size, key, c->m->key_size);
        memcpy(c->vals + c->n * c->m->val_size, val, c->m->val_size);
    }
    c->n++;
}

bcl_status bcl_hm_local_select(const bcl_hashmap *m, int64_t at_least, void *keys,
                               void *vals, uint64_t cap, uint64_t *n)
{
    int k = int_kind(m);
    if (!k)
        return not_integers();
    select_ctx c = { m, at_least, keys, vals, cap, 0 };
    each_value(m, k == 1, select_one, &c);
    *n = c.n;
    return BCL_OK;
}
