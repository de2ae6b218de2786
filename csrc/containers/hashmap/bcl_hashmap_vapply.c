/* bcl_hashmap_vapply.c -- one entry with variable-length key or value bytes
 * applied to this rank's own block with plain CPU operations: the owner
 * side of HashMapBuffer over bytes/str/object types (bcl_hashmap.h,
 * bcl_hm_apply_var_local; the fixed-size counterpart is bcl_hm_apply_local).
 *
 * The same rule as every local apply: during the buffer's local phase no
 * other rank touches this block, so buckets are read and written without
 * atomics and the first tombstone is reused once the key is known absent.
 * An out-of-line key or value is stored in this rank's segment; a key the
 * map already holds may live in any rank's segment (HashMap.insert stores
 * it in the writer's), read with a get unless it is ours. */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <stdlib.h>
#include <string.h>

/* Does the READY bucket b hold key k? */
static bcl_status same_key(const bcl_hashmap *m, const unsigned char *b,
                           const bcl_hm_key *k, int *eq)
{
    if (!m->key_var) {
        *eq = k->len == m->key_size && memcmp(b + 8, k->bytes, m->key_size) == 0;
        return BCL_OK;
    }
    bcl_objref r;
    memcpy(&r, b + 8, sizeof r);
    *eq = 0;
    if (r.len != k->len)
        return BCL_OK;
    if (r.rank == bcl_rt.rank) {
        *eq = memcmp(bcl_rt.local_base + r.offset, k->bytes, r.len) == 0;
        return BCL_OK;
    }
    return bcl_hm_key_equal(m, b + 8, k, eq);
}

/* The value slot's new contents: a fixed value's bytes, or a reference to
 * its bytes stored now. */
static bcl_status value_slot(const bcl_hashmap *m, const void *val, size_t vlen,
                             unsigned char *slot)
{
    if (!m->val_var) {
        if (vlen != m->val_size)
            return bcl_set_error(BCL_ERR_ARG, "a value of %zu bytes for a map of %zu-byte "
                                 "values", vlen, m->val_size);
        memcpy(slot, val, vlen);
        return BCL_OK;
    }
    bcl_objref r;
    bcl_status st = bcl_obj_store(val, vlen, &r);
    if (st == BCL_OK)
        memcpy(slot, &r, sizeof r);
    return st;
}

/* Key and value into a FREE or TOMB bucket, then READY (release store). */
static bcl_status store_fresh(const bcl_hashmap *m, unsigned char *b, const bcl_hm_key *k,
                              const void *val, size_t vlen)
{
    unsigned char kslot[sizeof(bcl_objref)];
    bcl_objref kr = { 0, 0, 0 };
    bcl_status st = BCL_OK;
    if (m->key_var) {
        if ((st = bcl_obj_store(k->bytes, k->len, &kr)) != BCL_OK)
            return st;
        memcpy(kslot, &kr, sizeof kr);
    }
    unsigned char small[256], *vslot = NULL;
    if (st == BCL_OK)
        st = bcl_hm_scratch(small, sizeof small, m->val_slot, &vslot);
    if (st == BCL_OK)
        st = value_slot(m, val, vlen, vslot);
    if (st == BCL_OK) {
        memcpy(b + 8, m->key_var ? kslot : (const unsigned char *)k->bytes, m->key_slot);
        memcpy(b + m->val_off, vslot, m->val_slot);
        uint64_t s = bcl_hm_load_status(b);
        __atomic_store_n((uint64_t *)b, (s & ~(uint64_t)BCL_HM_STATE) | BCL_HM_READY,
                         __ATOMIC_RELEASE);
    } else if (m->key_var) {
        bcl_obj_release(kr);
    }
    bcl_hm_scratch_end(vslot, small);
    return st;
}

/* The key is in bucket b: replace or add to its value. */
static bcl_status update(const bcl_hashmap *m, unsigned char *b, const void *val,
                         size_t vlen, int accumulate)
{
    if (accumulate) {
        if (m->val_var || vlen != m->val_size)
            return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
        return bcl_hm_num_add(m, b + m->val_off, val) ? bcl_hm_overflow_error(m, val)
                                                       : BCL_OK;
    }
    if (!m->val_var)
        return value_slot(m, val, vlen, b + m->val_off);
    bcl_objref old, r;
    bcl_status st = bcl_obj_store(val, vlen, &r);
    if (st != BCL_OK)
        return st;
    memcpy(&old, b + m->val_off, sizeof old);
    memcpy(b + m->val_off, &r, sizeof r);
    return bcl_obj_release(old);
}

bcl_status bcl_hm_apply_var_local(const bcl_hashmap *m, const bcl_hm_key *k,
                                  const void *val, size_t vlen, int accumulate,
                                  int *spilled)
{
    bcl_hm_local_walk w = bcl_hm_local_walk_of(m, k->hash);
    *spilled = 1;
    while (bcl_hm_local_next(m, &w, "HashMapBuffer's local apply met a bucket being "
                             "written by another rank: the phase rule was broken")) {
        int eq;
        bcl_status st = same_key(m, w.b, k, &eq);
        if (st != BCL_OK || eq) {
            *spilled = 0;
            return st != BCL_OK ? st : update(m, w.b, val, vlen, accumulate);
        }
    }
    if (w.st != BCL_OK || !w.b)
        return w.st;
    *spilled = 0;
    return store_fresh(m, w.b, k, val, vlen);
}
