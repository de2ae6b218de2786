/* bcl_hashmap_near.h -- what the two bucket layouts' bulk apply loops
 * (bcl_hashmap_bulk.c, bcl_hashmap_compact_local.c) share: how an entry
 * meets a value already in its bucket, settled inline near the key's home,
 * and the general path for what the inline probe leaves. */
#ifndef BCL_HASHMAP_NEAR_H
#define BCL_HASHMAP_NEAR_H

#include <string.h>

#include "containers/hashmap/bcl_hashmap_internal.h"

/* How an entry meets a value already there (8-byte values): replaced, or
 * added as a signed or unsigned 64-bit integer; -1 neither (the general
 * path's arithmetic). */
enum { BCL_HM_NEAR_REPLACE, BCL_HM_NEAR_ADD_SIGNED, BCL_HM_NEAR_ADD_UNSIGNED };

static inline int bcl_hm_near_how(const bcl_hashmap *m, int accumulate)
{
    return !accumulate ? BCL_HM_NEAR_REPLACE
         : m->num == BCL_HM_NUM_INT ? BCL_HM_NEAR_ADD_SIGNED
         : m->num == BCL_HM_NUM_UINT ? BCL_HM_NEAR_ADD_UNSIGNED : -1;
}

/* The 8-byte value at `slot` meets `val` as `how` says: 1 settled, 0 an
 * overflow, left untouched for the general path to report. */
static inline int bcl_hm_near_settle(unsigned char *slot, const unsigned char *val, int how)
{
    if (how == BCL_HM_NEAR_REPLACE) {
        memcpy(slot, val, 8);
        return 1;
    }
    uint64_t v, d;
    memcpy(&v, slot, 8);
    memcpy(&d, val, 8);
    int over = how == BCL_HM_NEAR_ADD_SIGNED
        ? __builtin_add_overflow((int64_t)v, (int64_t)d, (int64_t *)&v)
        : __builtin_add_overflow(v, d, &v);
    if (over)
        return 0;
    memcpy(slot, &v, 8);
    return 1;
}

/* The local apply of one entry to one layout's table (bcl_hm_apply_local's
 * contract), which bcl_hm_apply_general takes from its caller: each
 * layout's file passes its own, so neither calls into the other. */
typedef bcl_status (*bcl_hm_local_fn)(const bcl_hashmap *m, const bcl_hm_key *k,
                                      const void *val, int accumulate, int *spilled);

/* An entry the inline probe did not settle: `apply` (the layout's local
 * apply), and the caller's fn hears of anything but a plain success.  Out
 * of line, so the loops around the common case stay small. */
static __attribute__((noinline, unused))
bcl_status bcl_hm_apply_general(const bcl_hashmap *m, bcl_hm_local_fn apply,
                                const unsigned char *key, const unsigned char *val, int acc,
                                uint64_t h, int grow, int *refusing, bcl_hm_bulk_fn fn,
                                void *ctx)
{
    bcl_hm_key k = { key, m->key_size, h };
    int spilled = 0;
    bcl_status st = apply(m, &k, val, acc, &spilled);
    return bcl_hm_apply_heard(st, spilled, key, val, acc, grow, refusing, fn, ctx);
}

#endif
