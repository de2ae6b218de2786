/* bcl_hashmap_table.c -- whole-table operations of the hash table: create,
 * destroy, owner, size, local scan, resize (protocol: bcl_hashmap.h). */
#include "containers/hashmap/bcl_hashmap_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_alloc.h"
#include "runtime/bcl_pages.h"

/* ---- creation ---------------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static void layout(bcl_hashmap *m, uint64_t capacity, size_t key_size, size_t val_size,
                   int compact)
{
    m->key_var = key_size == 0;
    m->val_var = val_size == 0;
    m->key_size = key_size;
    m->val_size = val_size;
    m->key_slot = m->key_var ? sizeof(bcl_objref) : key_size;
    m->val_slot = m->val_var ? sizeof(bcl_objref) : val_size;
    m->compact = compact;
    m->linear = compact;
    m->key_off = compact ? 0 : 8;
    m->val_off = compact ? BCL_HMC_VALUE : ALIGN8(8 + m->key_slot);
    m->bsize = ALIGN8(m->val_off + m->val_slot);
    uint64_t p = (uint64_t)bcl_rt.nprocs;
    m->block = capacity / p + (capacity % p != 0);
    if (m->block == 0)
        m->block = 1;
    m->n = m->block * p;          /* every rank owns the same number */
    m->pmask = pow2_at_least(m->n) - 1;
    m->limit = m->n / 2 + 1;
    if (m->limit > m->n)
        m->limit = m->n;
}

/* Bytes of a block (a compact one ends with its placement words). */
static uint64_t block_bytes(bcl_hashmap *m)
{
    if (m->block > UINT64_MAX / 2 / m->bsize)
        return UINT64_MAX;
    return m->compact ? bcl_hmc_block_bytes(m->block, m->bsize, &m->stripe_off)
                      : m->block * m->bsize;
}

/* Collective: allocate and zero this rank's block, learn everybody's.  A
 * fresh block's whole pages are zeroed by handing them back to the system
 * (bcl_pages.h): they cost no memory until the table writes them. */
static bcl_status alloc_blocks(bcl_hashmap *m)
{
    int p = bcl_rt.nprocs;
    m->base = calloc((size_t)p, sizeof *m->base);
    if (!m->base)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for the hash map's block table");
    uint64_t off = 0, bytes = block_bytes(m);
    bcl_status st = bytes == UINT64_MAX || bytes > SIZE_MAX ? BCL_ERR_SEGFULL
                                                            : bcl_alloc(bytes, 64, &off);
    if (st == BCL_OK)
        bcl_pages_zero(bcl_rt.local_base + off, bytes);
    m->base[bcl_rt.rank] = off;
    bcl_status rc = bcl_allreduce(m->base, (size_t)p, BCL_U64, BCL_MAX);
    int ok = 1;
    for (int r = 0; r < p; r++)
        ok &= m->base[r] != 0;
    if (rc == BCL_OK && ok)
        return bcl_barrier();     /* zeroed blocks visible before any RMA */
    if (off)
        bcl_free(off);
    free(m->base);
    m->base = NULL;
    if (rc != BCL_OK)
        return rc;
    return bcl_set_error(BCL_ERR_SEGFULL, "a hash map block of %llu buckets (%llu "
                         "bytes) does not fit in some rank's segment",
                         (unsigned long long)m->block, (unsigned long long)bytes);
}

/* How accumulate adds a value of this type: a signed 4/8-byte integer with a
 * fetch-add (its overflow check, bcl_hm_fast_old, needs a wrapped value to
 * land far from 0; unsigned sums add under the bucket's lock, exactly); a
 * float must be 4 or 8 bytes to be added at all. */
static void accumulate_kind(bcl_hashmap *m, size_t val_size, bcl_hm_num num)
{
    if (num == BCL_HM_NUM_FLOAT && val_size != 4 && val_size != 8)
        num = BCL_HM_NUM_NONE;
    if (val_size == 0)
        num = BCL_HM_NUM_NONE;
    m->num = num;
    m->val_atomic = num == BCL_HM_NUM_INT && (val_size == 4 || val_size == 8)
                        ? (int)val_size : 0;
}

/* A table of the given layout, without a side map. */
static bcl_status create_table(bcl_hashmap *m, uint64_t capacity, size_t key_size,
                               size_t val_size, bcl_hm_num num, int compact)
{
    memset(m, 0, sizeof *m);
    if (capacity == 0 || capacity > ((uint64_t)1 << 48))
        return bcl_set_error(BCL_ERR_ARG, "capacity must be in [1, 2**48], got %llu",
                             (unsigned long long)capacity);
    layout(m, capacity, key_size, val_size, compact);
    accumulate_kind(m, val_size, num);
    return alloc_blocks(m);
}

/* PYBCL_HASHMAP_LAYOUT=classic keeps every map in the classic layout (to
 * compare the two); the ranks agree on it at creation. */
static int compact_wanted(size_t key_size, size_t val_size)
{
    const char *env = getenv("PYBCL_HASHMAP_LAYOUT");
    return bcl_hmc_fits(key_size, val_size) && !(env && !strcmp(env, "classic"));
}

bcl_status bcl_hm_create(bcl_hashmap *m, uint64_t capacity, size_t key_size,
                         size_t val_size, bcl_hm_num num)
{
    BCL_REQUIRE_INIT();
    memset(m, 0, sizeof *m);
    /* compact, and the side map's memory: agreed before any block exists */
    bcl_hashmap *side = calloc(1, sizeof *side);
    int64_t want[2] = { compact_wanted(key_size, val_size), side != NULL };
    bcl_status st = bcl_allreduce(want, 2, BCL_I64, BCL_MIN);
    if (st == BCL_OK && !want[1])
        st = bcl_set_error(BCL_ERR_NOMEM, "no memory for a hash map");
    if (st == BCL_OK)
        st = create_table(m, capacity, key_size, val_size, num, (int)want[0]);
    if (st == BCL_OK && m->compact) {
        uint64_t cap = (uint64_t)BCL_HMC_SIDE_PER_RANK * (uint64_t)bcl_rt.nprocs;
        st = create_table(side, cap, key_size, val_size, num, 0);
        if (st == BCL_OK) {
            m->side = side;
            return BCL_OK;
        }
        bcl_hm_destroy(m);
    }
    free(side);
    return st;
}

/* Free this rank's block; release_refs: also the out-of-line storage its
 * buckets own (not when resize moved the references to a new table). */
static void free_block(bcl_hashmap *m, int release_refs)
{
    if (!m->base || !bcl_rt.initialized)
        return;
    /* only out-of-line keys or values hold storage of their own: a fixed-size
     * map is freed without reading (and so touching) its buckets */
    if (!m->key_var && !m->val_var)
        release_refs = 0;
    for (uint64_t i = 0; release_refs && i < m->block; i++) {
        unsigned char *b = bcl_hm_local_bucket(m, i);
        if ((bcl_hm_load_status(b) & BCL_HM_STATE) != BCL_HM_READY)
            continue;
        bcl_objref r;
        if (m->key_var && (memcpy(&r, b + 8, sizeof r), 1))
            bcl_obj_release(r);
        if (m->val_var && (memcpy(&r, b + m->val_off, sizeof r), 1))
            bcl_obj_release(r);
    }
    /* the pages go back to the system: nobody reads the block any more */
    bcl_pages_release(bcl_hm_local_bucket(m, 0), (size_t)block_bytes(m));
    bcl_free(m->base[bcl_rt.rank]);
}

void bcl_hm_destroy(bcl_hashmap *m)
{
    free_block(m, 1);
    free(m->base);
    m->base = NULL;
    if (m->side) {
        bcl_hm_destroy(m->side);
        free(m->side);
        m->side = NULL;
    }
}

uint64_t bcl_hm_capacity(const bcl_hashmap *m)
{
    return m->n + (m->compact ? BCL_HMC_SIDE_KEYS(m->key_size) : 0);
}

int bcl_hm_owner(const bcl_hashmap *m, const bcl_hm_key *k)
{
    bcl_hm_probe p;
    uint64_t idx = 0;
    bcl_hm_probe_init(m, &p, k->hash);
    bcl_hm_probe_next(m, &p, &idx);
    return (int)(idx / m->block);
}

/* ---- whole table ---------------------------------------------------------- */

bcl_status bcl_hm_size(const bcl_hashmap *m, uint64_t *size)
{
    bcl_status st = bcl_barrier();
    if (st != BCL_OK)
        return st;
    uint64_t n = bcl_hm_local_used(m);
    st = bcl_allreduce(&n, 1, BCL_U64, BCL_SUM);
    *size = n;
    return st;
}

/* Entries of this rank's block alone (not the side map's). */
static uint64_t block_used(const bcl_hashmap *m)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < m->block; i++)
        n += (uint64_t)bcl_hm_local_entry(m, bcl_hm_local_bucket(m, i));
    return n;
}

uint64_t bcl_hm_local_used(const bcl_hashmap *m)
{
    return block_used(m) + (m->side ? bcl_hm_local_used(m->side) : 0);
}

uint64_t bcl_hm_local_slots(const bcl_hashmap *m)
{
    return m->block + (m->side ? bcl_hm_local_slots(m->side) : 0);
}

/* Either layout: the key slot at key_off, the value at val_off (a compact
 * key word's first key_size bytes are the key's).  A compact map's side
 * entries come after its block's. */
void bcl_hm_local_scan(const bcl_hashmap *m, bcl_hm_visit_fn fn, void *ctx)
{
    for (uint64_t i = 0; i < m->block; i++) {
        unsigned char *b = bcl_hm_local_bucket(m, i);
        if (bcl_hm_local_entry(m, b) && fn(ctx, b + m->key_off, b + m->val_off))
            return;
    }
    if (m->side)
        bcl_hm_local_scan(m->side, fn, ctx);
}

uint64_t bcl_hm_local_copy(const bcl_hashmap *m, void *keys, void *vals, uint64_t cap)
{
    unsigned char *k = keys, *v = vals;
    uint64_t n = 0;
    for (uint64_t i = 0; i < m->block && n < cap; i++) {
        const unsigned char *b = bcl_hm_local_bucket(m, i);
        if (!bcl_hm_local_entry(m, b))
            continue;
        bcl_hm_copy_slot(k + n * m->key_size, b + m->key_off, m->key_size);
        bcl_hm_copy_slot(v + n * m->val_size, b + m->val_off, m->val_size);
        n++;
    }
    if (m->side && n < cap)
        n += bcl_hm_local_copy(m->side, k + n * m->key_size, v + n * m->val_size, cap - n);
    return n;
}

/* Resize: place one moved entry (keys are distinct: no key comparison). */
/* The hash of the key in bucket src (a variable key is loaded from its
 * out-of-line bytes). */
static bcl_status bucket_hash(const bcl_hashmap *m, const unsigned char *src, uint64_t *h)
{
    if (!m->key_var) {
        *h = bcl_hm_hash(src + 8, m->key_size);
        return BCL_OK;
    }
    bcl_objref r;
    memcpy(&r, src + 8, sizeof r);
    unsigned char small[256], *buf;
    bcl_status st = bcl_hm_scratch(small, sizeof small, r.len, &buf);
    if (st != BCL_OK)
        return st;
    if (r.len)
        st = bcl_obj_load(r, buf);
    *h = bcl_hm_hash(buf, r.len);
    bcl_hm_scratch_end(buf, small);
    return st;
}

static bcl_status place_full_error(const bcl_hashmap *m)
{
    return bcl_set_error(BCL_ERR_FULL, "resize: %llu buckets are too few for the "
                         "entries", (unsigned long long)m->n);
}

/* Bucket src's slots (its references move with them) into m, atomically:
 * any rank's block. */
static bcl_status place(const bcl_hashmap *m, const unsigned char *src)
{
    bcl_hm_probe p;
    uint64_t idx, cur, h;
    bcl_status st = bucket_hash(m, src, &h);
    if (st != BCL_OK)
        return st;
    bcl_hm_probe_init(m, &p, h);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        bcl_gptr b = bcl_hm_bucket(m, idx);
        int taken;
        if ((st = bcl_hm_claim_free(b, 0, &cur, &taken, NULL)) != BCL_OK)
            return st;
        if (!taken)
            continue;
        if ((st = bcl_put(bcl_hm_at(b, 8), src + 8, m->bsize - 8)) != BCL_OK)
            return st;
        return bcl_hm_add_status(b, PUBLISH);
    }
    return place_full_error(m);
}

/* The same with plain stores, while no other rank writes this rank's block
 * of m: *spilled when the probe sequence leaves the block first (then
 * nothing is written).  The keys are distinct and the table new, so the
 * first free bucket is the place. */
static bcl_status place_local(const bcl_hashmap *m, const unsigned char *src, int *spilled)
{
    bcl_hm_probe p;
    uint64_t idx, h, first = (uint64_t)bcl_rt.rank * m->block;
    bcl_status st = bucket_hash(m, src, &h);
    if (st != BCL_OK)
        return st;
    *spilled = 0;
    bcl_hm_probe_init(m, &p, h);
    while (bcl_hm_probe_next(m, &p, &idx)) {
        if (idx < first || idx - first >= m->block) {
            *spilled = 1;
            return BCL_OK;
        }
        unsigned char *b = bcl_hm_local_bucket(m, idx - first);
        uint64_t s = bcl_hm_load_status(b);
        if (ST(s) != BCL_HM_FREE)
            continue;
        memcpy(b + 8, src + 8, m->bsize - 8);
        __atomic_store_n((uint64_t *)b, (s & ~(uint64_t)BCL_HM_STATE) | BCL_HM_READY,
                         __ATOMIC_RELEASE);
        return BCL_OK;
    }
    return place_full_error(m);
}

/* Move this rank's entries into m2: those whose probe stays in our block
 * with plain stores (every key's home is in its old owner's block: the
 * owner is hash * P / 2^64 at any capacity), then, after a barrier, the
 * few that spill, atomically.  Every rank runs the barrier between; a
 * failure to move an entry is left in *err for the caller to agree on. */
static bcl_status move_entries(const bcl_hashmap *m, const bcl_hashmap *m2, bcl_status *err)
{
    uint64_t *spills = NULL, nspill = 0, cap = 0;
    bcl_status st = BCL_OK;
    for (uint64_t i = 0; i < m->block && st == BCL_OK; i++) {
        unsigned char *b = bcl_hm_local_bucket(m, i);
        if (ST(bcl_hm_load_status(b)) != BCL_HM_READY)
            continue;
        int spilled = 0;
        st = place_local(m2, b, &spilled);
        if (st != BCL_OK || !spilled)
            continue;
        if (nspill == cap) {
            uint64_t *ns = realloc(spills, (cap = cap ? 2 * cap : 256) * sizeof *ns);
            if (!ns) {
                st = bcl_set_error(BCL_ERR_NOMEM, "resize: no memory for the entries "
                                   "that leave this rank's block");
                break;
            }
            spills = ns;
        }
        spills[nspill++] = i;
    }
    bcl_status rc = bcl_barrier();      /* no plain store into any block after this */
    for (uint64_t j = 0; rc == BCL_OK && st == BCL_OK && j < nspill; j++)
        st = place(m2, bcl_hm_local_bucket(m, spills[j]));
    free(spills);
    *err = st;
    return rc;
}

/* A compact table's old block is handed back page by page during the move
 * when nothing can make the resize fail once it started: the entries fill
 * at most half of the new table, which therefore takes every one of them
 * (a table accepts inserts until at least half full).  Collective. */
static bcl_status release_while_moving(const bcl_hashmap *m, const bcl_hashmap *m2,
                                       int *release)
{
    uint64_t used = block_used(m);
    bcl_status st = bcl_allreduce(&used, 1, BCL_U64, BCL_SUM);
    *release = st == BCL_OK && 2 * used <= m2->n;
    return st;
}

bcl_status bcl_hm_resize(bcl_hashmap *m, uint64_t new_capacity)
{
    bcl_hashmap m2;
    bcl_status st = bcl_barrier();
    if (st != BCL_OK)
        return st;
    /* the same layout; a compact map keeps its side map */
    st = create_table(&m2, new_capacity, m->key_size, m->val_size, m->num, m->compact);
    if (st != BCL_OK)
        return st;
    m2.side = m->side;
    int release = 0;
    bcl_status rc = m->compact ? release_while_moving(m, &m2, &release) : BCL_OK;
    if (rc == BCL_OK)
        rc = m->compact ? bcl_hmc_move_entries(m, &m2, release, &st)
                        : move_entries(m, &m2, &st);
    int64_t ok = st == BCL_OK, err = st;
    if (rc == BCL_OK)
        rc = bcl_allreduce(&ok, 1, BCL_I64, BCL_MIN);
    if (rc == BCL_OK)
        rc = bcl_barrier();
    if (rc != BCL_OK)
        return rc;
    if (!ok && release) {
        /* Cannot happen (see release_while_moving) unless memory ran out
         * for the spilled entries: the old block is gone, keep the new. */
        free_block(m, 0);
        free(m->base);
        *m = m2;
        return bcl_set_error(BCL_ERR_STATE, "resize to %llu buckets failed after the old "
                             "table was given back: some entries may be lost",
                             (unsigned long long)new_capacity);
    }
    if (!ok) {
        /* The moved references still belong to the old table. */
        free_block(&m2, 0);
        free(m2.base);
        if (err == BCL_OK)
            return bcl_set_error(BCL_ERR_FULL, "resize to %llu buckets failed on another "
                                 "rank; the table is unchanged",
                                 (unsigned long long)new_capacity);
        return (bcl_status)err;
    }
    free_block(m, 0);
    free(m->base);
    *m = m2;
    return BCL_OK;
}

/* new_keys is an upper estimate, rounded up (bcl_hashmap_sketch.c), and a
 * map grown for a flush sits near half full: so a block may pass half by
 * 5 % before it grows, or every later flush of a few keys, or of known ones
 * with their estimate's margin, would double it. */
#define GROW_LOAD_NUM 21u      /* grow past 21/40 = 52.5 % of a block */
#define GROW_LOAD_DEN 40u
/* A compact block may fill further: its probes stay short well past half
 * (docs/hashmap_perf.md measures them), and a bucket costs 16 bytes, not
 * 24 -- so the compact map grows past 34/40 = 85 %. */
#define GROW_LOAD_NUM_COMPACT 34u

#define USED_SAMPLE 4096u

/* An upper bound of this rank's entries from a strided sample of its block
 * (the hash spreads entries evenly): four standard deviations above the
 * sample's share, and never below it.  Exact for small blocks. */
static uint64_t used_bound(const bcl_hashmap *m)
{
    if (m->block <= 4 * USED_SAMPLE)
        return bcl_hm_local_used(m);
    uint64_t step = m->block / USED_SAMPLE, hit = 0;
    for (uint64_t i = 0; i < USED_SAMPLE; i++)
        hit += (uint64_t)bcl_hm_local_entry(m, bcl_hm_local_bucket(m, i * step));
    double p = (double)hit / USED_SAMPLE;
    double up = p + 4.0 * sqrt(p * (1.0 - p) / USED_SAMPLE) + 1.0 / USED_SAMPLE;
    return (uint64_t)(up * (double)m->block) + (m->side ? bcl_hm_local_used(m->side) : 0);
}

int bcl_hm_room_for(const bcl_hashmap *m, uint64_t new_keys)
{
    uint64_t num = m->compact ? GROW_LOAD_NUM_COMPACT : GROW_LOAD_NUM;
    return GROW_LOAD_DEN * (used_bound(m) + new_keys) <= num * m->block;
}

/* A full block spills nearly every new key it applies, a healthy one (under
 * the growth threshold) only the few whose probes reach its end. */
#define SPILL_SHARE_DEN 8u     /* "most": more than 1/8 of those applied */

int bcl_hm_spills_wait(const bcl_hashmap *m, int grow, int refusing, uint64_t applied,
                       uint64_t spilled)
{
    return refusing || (grow && SPILL_SHARE_DEN * spilled > applied && !bcl_hm_room_for(m, 0));
}

/* Collective: resize to `cap` buckets for a HashMapBuffer's flush; a map
 * the segments cannot hold leaves BCL_ERR_SEGFULL in *err (unless an error
 * is there already) and returns BCL_OK, the entries kept. */
static bcl_status grow_to(bcl_hashmap *m, uint64_t cap, bcl_status *err)
{
    uint64_t old = m->n;
    bcl_status st = bcl_hm_resize(m, cap);
    if (st != BCL_ERR_SEGFULL && st != BCL_ERR_FULL)
        return st;
    if (*err == BCL_OK)
        *err = bcl_set_error(BCL_ERR_SEGFULL, "HashMapBuffer.flush: the map cannot grow "
                             "from %llu to %llu buckets in the segments (set "
                             "PYBCL_SEGMENT_SIZE or pybcl.init(segment_size=...) larger); "
                             "the entries are kept for the next flush()",
                             (unsigned long long)old, (unsigned long long)cap);
    return BCL_OK;
}

bcl_status bcl_hm_grow_for(bcl_hashmap *m, uint64_t new_keys, bcl_status *err)
{
    uint64_t num = m->compact ? GROW_LOAD_NUM_COMPACT : GROW_LOAD_NUM;
    uint64_t need = 0;
    if (*err == BCL_OK) {
        /* a whole-block count only when the bound comes near the limit */
        need = used_bound(m) + new_keys;
        if (GROW_LOAD_DEN * need > num * m->block)
            need = bcl_hm_local_used(m) + new_keys;
    }
    bcl_status st = bcl_allreduce(&need, 1, BCL_U64, BCL_MAX);
    if (st != BCL_OK || GROW_LOAD_DEN * need <= num * m->block)
        return st;
    uint64_t cap = 2 * m->n;
    if (cap < 2 * need * (uint64_t)bcl_rt.nprocs)
        cap = 2 * need * (uint64_t)bcl_rt.nprocs;
    return grow_to(m, cap, err);
}

bcl_status bcl_hm_grow_past(bcl_hashmap *m, uint64_t refused, bcl_status *err)
{
    uint64_t size;
    bcl_status st = bcl_hm_size(m, &size);
    if (st == BCL_OK)
        st = bcl_allreduce(&refused, 1, BCL_U64, BCL_SUM);
    if (st != BCL_OK)
        return st;
    uint64_t cap = m->n;
    while (cap < 2 * m->n || cap < 2 * (size + refused))
        cap *= 2;
    return grow_to(m, cap, err);
}

bcl_status bcl_hm_flush_agree(const bcl_hashmap *m, bcl_status err, uint64_t kept,
                              uint64_t *n_overflow, uint64_t segfull, uint64_t *kept_all)
{
    uint64_t v[4] = { kept, *n_overflow, err != BCL_OK, segfull };
    bcl_status st = bcl_allreduce(v, 4, BCL_U64, BCL_SUM);
    if (st != BCL_OK)
        return st;
    *kept_all = v[0];
    if (err != BCL_OK)
        return err;               /* this rank's own message */
    if (v[2])
        return bcl_set_error(BCL_ERR_STATE, "HashMapBuffer.flush failed on %llu other "
                             "rank(s)", (unsigned long long)v[2]);
    if (v[3])
        return bcl_set_error(BCL_ERR_SEGFULL, "HashMapBuffer.flush: %llu entries found no "
                             "room in the shared segments for their out-of-line keys or "
                             "values (%llu kept in all); they are kept for the next "
                             "flush() (free memory first, or set PYBCL_SEGMENT_SIZE "
                             "larger)", (unsigned long long)v[3],
                             (unsigned long long)v[0]);
    if (v[0])
        return bcl_set_error(BCL_ERR_FULL, "hash map full: %llu buffered entries (%llu "
                             "of them on this rank) found no free bucket; they stay in "
                             "the buffer: resize() the map and flush() again%s",
                             (unsigned long long)v[0], (unsigned long long)kept,
                             v[1] ? " (and some accumulates overflowed)" : "");
    *n_overflow = 0;              /* reported once */
    if (v[1])
        return bcl_set_error(BCL_ERR_OVERFLOW, "%llu buffered accumulates were not "
                             "applied: the sums overflow the %zu-byte integer value type",
                             (unsigned long long)v[1], m->val_size);
    return BCL_OK;
}
