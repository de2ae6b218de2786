/* bcl_hashmap_find_direct.c -- find_many: under the find-only promise on the
 * shm transport (bcl_comm_direct) this path, else the batch protocol's
 * (bcl_hm_find_protocol).  Here every rank's block is mapped into this
 * process, and the promise says no rank writes the map meanwhile, so a
 * lookup is a walk of plain loads along the key's probe sequence -- the
 * same reads the batch protocol's PH_GET step makes with one get per
 * bucket, without its per-key state machine.  Home buckets are prefetched ahead, as in the
 * bulk apply.  A probe walks the block of the rank that owns the key's
 * home, found once per key: inside it a bucket's address is an offset from
 * the block's base (bcl_hm_bucket's division per bucket cost as much as
 * the miss); a sequence that leaves the block goes on through the general
 * walk.  A key that meets a bucket being written (the promise was not
 * kept) is looked up again with the atomic protocol, so the answer is
 * always the protocol's. */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <stdlib.h>
#include <string.h>

#define PREFETCH_AHEAD 16u     /* keys between a prefetch and its lookup */

int bcl_hm_find_direct_ok(const bcl_hashmap *m, int promise)
{
    return promise == BCL_HM_P_FIND && bcl_comm_direct() &&
           !m->key_var && !m->val_var;
}

/* The block holding a key's home bucket, as mapped here. */
typedef struct home_block {
    const unsigned char *base;
    uint64_t first, end;       /* its buckets: [first, end) */
    uint64_t hash;
} home_block;

static inline home_block home_block_of(const bcl_hashmap *m, uint64_t h)
{
    uint64_t home = bcl_hm_home(m, h), r = home / m->block, first = r * m->block;
    home_block hb = { bcl_local_addr(bcl_gptr_make((int)r, m->base[r])), first,
                      first + m->block < m->n ? first + m->block : m->n, h };
    return hb;
}

/* bcl_hm_find_plain's walk within the home block. */
static inline int find_in_block(const bcl_hashmap *m, const home_block *hb,
                                const unsigned char *key, unsigned char *val)
{
    bcl_hm_probe p;
    uint64_t idx;
    bcl_hm_probe_init(m, &p, hb->hash);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        if (idx < hb->first || idx >= hb->end)
            return bcl_hm_find_plain(m, key, hb->hash, val);    /* the block's edge */
        int r = bcl_hm_plain_step(m, hb->base + (idx - hb->first) * m->bsize, key, val);
        if (r != BCL_HM_PLAIN_ON)
            return r;
    }
    return 0;
}

/* The keys a writer got in the way of, with the atomic protocol. */
static bcl_status redo(const bcl_hashmap *m, const unsigned char *keys, const size_t *which,
                       size_t n, unsigned char *vals, unsigned char *found)
{
    size_t ks = m->key_size, vs = m->val_size;
    unsigned char *k = malloc(n * ks + 1), *v = malloc(n * vs + 1), *f = malloc(n + 1);
    bcl_status st = k && v && f ? BCL_OK
                                : bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu keys", n);
    for (size_t i = 0; st == BCL_OK && i < n; i++)
        memcpy(k + i * ks, keys + which[i] * ks, ks);
    if (st == BCL_OK)
        st = bcl_hm_find_protocol(m, k, n, v, f, 0);
    for (size_t i = 0; st == BCL_OK && i < n; i++) {
        found[which[i]] = f[i];
        if (f[i])
            memcpy(vals + which[i] * vs, v + i * vs, vs);
    }
    free(k);
    free(v);
    free(f);
    return st;
}

bcl_status bcl_hm_find_direct(const bcl_hashmap *m, const void *keys, size_t n, void *vals,
                              unsigned char *found)
{
    const unsigned char *kb = keys;
    unsigned char *vb = vals;
    size_t ks = m->key_size, vs = m->val_size, *busy = NULL, nbusy = 0, cap = 0;
    home_block ring[PREFETCH_AHEAD];
    for (size_t i = 0; i < n && i < PREFETCH_AHEAD; i++)
        ring[i] = home_block_of(m, bcl_hm_hash(kb + i * ks, ks));
    for (size_t i = 0; i < n; i++) {
        home_block hb = ring[i % PREFETCH_AHEAD];
        if (i + PREFETCH_AHEAD < n) {
            home_block ahead = home_block_of(m, bcl_hm_hash(kb + (i + PREFETCH_AHEAD) * ks, ks));
            ring[i % PREFETCH_AHEAD] = ahead;
            __builtin_prefetch(ahead.base + (bcl_hm_home(m, ahead.hash) - ahead.first) * m->bsize,
                               0);
        }
        int r = find_in_block(m, &hb, kb + i * ks, vb + i * vs);
        found[i] = r == 1;
        if (r >= 0)
            continue;
        if (nbusy == cap) {
            size_t *nb = realloc(busy, (cap = cap ? 2 * cap : 64) * sizeof *nb);
            if (!nb) {
                free(busy);
                return bcl_set_error(BCL_ERR_NOMEM, "no memory for %zu keys", cap);
            }
            busy = nb;
        }
        busy[nbusy++] = i;
    }
    bcl_status st = nbusy ? redo(m, kb, busy, nbusy, vb, found) : BCL_OK;
    free(busy);
    return st;
}

bcl_status bcl_hm_find_many(const bcl_hashmap *m, const void *keys, size_t k, void *vals,
                            unsigned char *found, int promise)
{
    if (bcl_hm_find_direct_ok(m, promise))
        return bcl_hm_find_direct(m, keys, k, vals, found);
    return bcl_hm_find_protocol(m, keys, k, vals, found, promise);
}
