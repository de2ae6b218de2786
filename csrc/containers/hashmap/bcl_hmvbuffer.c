/* bcl_hmvbuffer.c -- HashMapBuffer over variable-length keys or values
 * (see bcl_hmvbuffer.h). */
#include "containers/hashmap/bcl_hmvbuffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm/bcl_exchange.h"

/* ---- records ------------------------------------------------------------- */

typedef struct rec {
    uint64_t hash;
    uint32_t klen, vlen;
    unsigned op;
    const unsigned char *key, *val;
    size_t size;              /* header + key + value bytes */
} rec;

static void rec_read(const unsigned char *p, rec *r)
{
    memcpy(&r->hash, p, 8);
    memcpy(&r->klen, p + 8, 4);
    memcpy(&r->vlen, p + 12, 4);
    r->op = p[16];
    r->key = p + BCL_HMV_HEAD;
    r->val = r->key + r->klen;
    r->size = BCL_HMV_HEAD + (size_t)r->klen + r->vlen;
}

static bcl_status rec_append(bcl_mp_writer *w, uint64_t hash, const void *key, size_t klen,
                             const void *val, size_t vlen, unsigned op)
{
    if (klen > UINT32_MAX || vlen > UINT32_MAX)
        return bcl_set_error(BCL_ERR_ARG, "HashMapBuffer: a key or value of %zu bytes is "
                             "over the 4 GiB a record holds", klen > vlen ? klen : vlen);
    size_t n = BCL_HMV_HEAD + klen + vlen;
    bcl_status st = bcl_mp_reserve(w, n);
    if (st != BCL_OK)
        return st;
    unsigned char *p = w->buf + w->len;
    uint32_t k32 = (uint32_t)klen, v32 = (uint32_t)vlen;
    memcpy(p, &hash, 8);
    memcpy(p + 8, &k32, 4);
    memcpy(p + 12, &v32, 4);
    p[16] = (unsigned char)op;
    memcpy(p + BCL_HMV_HEAD, key, klen);
    if (vlen)
        memcpy(p + BCL_HMV_HEAD + klen, val, vlen);
    w->len += n;
    return BCL_OK;
}

/* Append a record as it is. */
static bcl_status rec_copy(bcl_mp_writer *w, const rec *r)
{
    return rec_append(w, r->hash, r->key, r->klen, r->val, r->vlen, r->op);
}

/* ---- create / destroy ------------------------------------------------------ */

bcl_status bcl_hmvbuf_create(bcl_hmvbuf *b, bcl_hashmap *m, size_t queue_size,
                             size_t message_size)
{
    BCL_REQUIRE_INIT();
    memset(b, 0, sizeof *b);
    if (queue_size == 0 || message_size == 0)
        return bcl_set_error(BCL_ERR_ARG, "queue_size and message_size must be positive");
    b->m = m;
    bcl_mp_writer_init(&b->arena);
    bcl_mp_writer_init(&b->kept);
    return bcl_barrier();
}

static void table_clear(bcl_hmvbuf *b)
{
    free(b->slots);
    b->slots = NULL;
    b->nslots = b->used = b->live = 0;
    bcl_mp_writer_reset(&b->arena);
}

void bcl_hmvbuf_destroy(bcl_hmvbuf *b)
{
    free(b->slots);
    bcl_mp_writer_free(&b->arena);
    bcl_mp_writer_free(&b->kept);
    memset(b, 0, sizeof *b);
}

uint64_t bcl_hmvbuf_pending(const bcl_hmvbuf *b)
{
    return b->live + b->kept_n;
}

/* ---- adding: the combining table ------------------------------------------ */

static bcl_status table_grow(bcl_hmvbuf *b)
{
    uint64_t n = b->nslots ? 2 * b->nslots : 1024;
    bcl_hmv_slot *s = calloc(n, sizeof *s);
    if (!s)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for HashMapBuffer's table of %llu "
                             "keys", (unsigned long long)b->used);
    for (uint64_t i = 0; i < b->nslots; i++) {
        if (!b->slots[i].at)
            continue;
        uint64_t j = b->slots[i].hash & (n - 1);
        while (s[j].at)
            j = (j + 1) & (n - 1);
        s[j] = b->slots[i];
    }
    free(b->slots);
    b->slots = s;
    b->nslots = n;
    return BCL_OK;
}

/* A new record at the arena's end, pointed to by slot s. */
static bcl_status add_record(bcl_hmvbuf *b, bcl_hmv_slot *s, uint64_t h, const void *key,
                             size_t klen, const void *val, size_t vlen, int acc)
{
    uint64_t at = b->arena.len;
    bcl_status st = rec_append(&b->arena, h, key, klen, val, vlen, acc != 0);
    if (st != BCL_OK)
        return st;
    s->hash = h;
    s->at = at + 1;
    b->live++;
    return BCL_OK;
}

/* An accumulate whose delta is not of the map's numeric value type. */
static int bad_delta(const bcl_hashmap *m, size_t vlen)
{
    return m->val_var || vlen != m->val_size || m->num == BCL_HM_NUM_NONE;
}

/* value += delta in the map's numeric type; 1 (value unchanged) if the sum
 * overflows.  64-bit signed integers, a counter's, inline. */
static inline int add_delta(const bcl_hashmap *m, unsigned char *value, const void *delta,
                            size_t vlen)
{
    if (m->num == BCL_HM_NUM_INT && vlen == 8) {
        int64_t a, d;
        memcpy(&a, value, 8);
        memcpy(&d, delta, 8);
        if (__builtin_add_overflow(a, d, &a))
            return 1;
        memcpy(value, &a, 8);
        return 0;
    }
    unsigned char sum[16];
    if (vlen > sizeof sum)
        return 1;
    memcpy(sum, value, vlen);
    if (bcl_hm_num_add(m, sum, delta))
        return 1;
    memcpy(value, sum, vlen);
    return 0;
}

/* The entry into the combining table (acc: a delta of the numeric value
 * type, checked by the caller). */
static bcl_status add_hashed(bcl_hmvbuf *b, uint64_t h, const void *key, size_t klen,
                             const void *val, size_t vlen, int acc)
{
    if (2 * (b->used + 1) > b->nslots) {
        bcl_status st = table_grow(b);
        if (st != BCL_OK)
            return st;
    }
    uint64_t mask = b->nslots - 1, i = h & mask;
    for (;; i = (i + 1) & mask) {
        bcl_hmv_slot *s = &b->slots[i];
        if (!s->at) {
            bcl_status st = add_record(b, s, h, key, klen, val, vlen, acc);
            b->used += st == BCL_OK;
            return st;
        }
        if (s->hash != h)
            continue;
        unsigned char *p = b->arena.buf + s->at - 1;
        rec r;
        rec_read(p, &r);
        if (r.klen != klen || memcmp(r.key, key, klen) != 0)
            continue;
        unsigned char *v = p + BCL_HMV_HEAD + klen;
        if (!acc && r.vlen == vlen) {            /* the later insert wins */
            memcpy(v, val, vlen);
            p[16] = 0;
            return BCL_OK;
        }
        if (!acc) {                              /* a value of another size */
            p[16] |= BCL_HMV_DEAD;
            b->live--;
            return add_record(b, s, h, key, klen, val, vlen, 0);
        }
        if (!add_delta(b->m, v, val, vlen))
            return BCL_OK;
        if (r.op == 0) {             /* insert + delta overflows: not applied */
            b->n_overflow++;
            return BCL_OK;
        }
        /* Two deltas whose sum overflows: both travel, in order. */
        return add_record(b, s, h, key, klen, val, vlen, 1);
    }
}

static bcl_status delta_error(void)
{
    return bcl_set_error(BCL_ERR_TYPE, "accumulate needs a numeric value type");
}

bcl_status bcl_hmvbuf_add(bcl_hmvbuf *b, const void *key, size_t klen, const void *val,
                          size_t vlen, int acc)
{
    if (acc && bad_delta(b->m, vlen))
        return delta_error();
    return add_hashed(b, bcl_hm_hash(key, klen), key, klen, val, vlen, acc);
}

/* A batch is a stream of dependent misses: the key's slot, then the record
 * it points to (a counter's keys are mostly repeats, so most entries end
 * at a record).  So keys are hashed and their slots prefetched SLOT_AHEAD
 * entries ahead, and RECORD_AHEAD entries ahead the slot, by then in
 * cache, is read and its record prefetched. */
#define SLOT_AHEAD 16u
#define RECORD_AHEAD 8u

static inline void prefetch_record(const bcl_hmvbuf *b, uint64_t h)
{
    const bcl_hmv_slot *s = &b->slots[h & (b->nslots - 1)];
    if (s->at)                       /* a hint: never faults, even if stale */
        __builtin_prefetch(b->arena.buf + s->at - 1);
}

static uint64_t hash_at(const bcl_hmvbuf *b, const unsigned char *keys, const size_t *koff,
                        size_t i)
{
    size_t len;
    const unsigned char *k = bcl_hm_batch_key(b->m->key_size, keys, koff, i, &len);
    return bcl_hm_hash(k, len);
}

bcl_status bcl_hmvbuf_add_many(bcl_hmvbuf *b, const unsigned char *keys, const size_t *koff,
                               size_t n, const unsigned char *vals, const size_t *voff,
                               size_t vstep, size_t vlen, int acc)
{
    if (n && acc && bad_delta(b->m, vlen))
        return delta_error();
    uint64_t ring[SLOT_AHEAD];
    bcl_status st = BCL_OK;
    for (size_t i = 0; i < n && i < SLOT_AHEAD; i++)
        ring[i] = hash_at(b, keys, koff, i);
    for (size_t i = 0; i < n && st == BCL_OK; i++) {
        uint64_t h = ring[i % SLOT_AHEAD];
        if (i + SLOT_AHEAD < n) {
            uint64_t ahead = hash_at(b, keys, koff, i + SLOT_AHEAD);
            ring[i % SLOT_AHEAD] = ahead;
            if (b->nslots)
                __builtin_prefetch(&b->slots[ahead & (b->nslots - 1)]);
        }
        if (i + RECORD_AHEAD < n && b->nslots)
            prefetch_record(b, ring[(i + RECORD_AHEAD) % SLOT_AHEAD]);
        const unsigned char *v = voff ? vals + voff[i] : vals + i * vstep;
        size_t len = voff ? voff[i + 1] - voff[i] : vlen, klen;
        const unsigned char *k = bcl_hm_batch_key(b->m->key_size, keys, koff, i, &klen);
        st = add_hashed(b, h, k, klen, v, len, acc);
    }
    return st;
}

/* ---- flush: the atomic path ------------------------------------------------ */

typedef struct outcome {
    bcl_hmvbuf *b;
    bcl_mp_writer spill;
} outcome;

/* What happened to record r (st from an apply): kept, counted or fatal. */
static bcl_status settle(bcl_hmvbuf *b, const rec *r, bcl_status st)
{
    switch (st) {
    case BCL_OK:
        return BCL_OK;
    case BCL_ERR_SEGFULL:
        b->n_segfull++;
        /* fall through */
    case BCL_ERR_FULL:
        b->kept_n++;
        return rec_copy(&b->kept, r);
    case BCL_ERR_OVERFLOW:
        b->n_overflow++;
        return BCL_OK;
    default:
        return st;
    }
}

/* Records applied with the map's atomic operations, in order. */
static bcl_status apply_atomic(bcl_hmvbuf *b, const unsigned char *p, size_t n)
{
    bcl_status st = BCL_OK;
    for (size_t at = 0; at < n && st == BCL_OK;) {
        rec r;
        rec_read(p + at, &r);
        at += r.size;
        bcl_hm_key k = { r.key, r.klen, r.hash };
        st = r.op ? bcl_hm_accumulate(b->m, &k, r.val)
                  : bcl_hm_insert(b->m, &k, r.val, r.vlen, 0);
        st = settle(b, &r, st);
    }
    return st;
}

/* ---- flush: routing and exchange ------------------------------------------- */

/* The arena's live records into one writer per owner (ours: the inbox). */
static bcl_status route(bcl_hmvbuf *b, bcl_mp_writer *to)
{
    bcl_status st = BCL_OK;
    for (size_t at = 0; at < b->arena.len && st == BCL_OK;) {
        rec r;
        rec_read(b->arena.buf + at, &r);
        at += r.size;
        if (r.op & BCL_HMV_DEAD)
            continue;
        bcl_hm_key k = { r.key, r.klen, r.hash };
        st = rec_copy(&to[bcl_hm_owner(b->m, &k)], &r);
    }
    return st;
}

/* Bytes of whole records from p[0..n) that make one round's piece. */
static size_t piece(const unsigned char *p, size_t n, size_t limit)
{
    size_t at = 0;
    while (at < n) {
        rec r;
        rec_read(p + at, &r);
        if (at && at + r.size > limit)
            break;
        at += r.size;
    }
    return at;
}

typedef struct chunks {       /* what the owner applies: blocks of records */
    unsigned char **p;
    size_t *n;
    int k, cap;
} chunks;

static bcl_status chunk_add(chunks *c, unsigned char *p, size_t n)
{
    if (c->k == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        unsigned char **np = realloc(c->p, (size_t)cap * sizeof *np);
        if (np)
            c->p = np;
        size_t *nn = np ? realloc(c->n, (size_t)cap * sizeof *nn) : NULL;
        if (!nn) {
            free(p);
            return bcl_set_error(BCL_ERR_NOMEM, "no memory for HashMapBuffer's inbox");
        }
        c->n = nn;
        c->cap = cap;
    }
    c->p[c->k] = p;
    c->n[c->k++] = n;
    return BCL_OK;
}

static void chunks_free(chunks *c)
{
    for (int i = 0; i < c->k; i++)
        free(c->p[i]);
    free(c->p);
    free(c->n);
    memset(c, 0, sizeof *c);
}

/* Rounds of alltoallv until no rank has records left; what arrives is
 * added to the chunks.  A rank that failed sends nothing more but takes
 * part in every round. */
static bcl_status exchange(bcl_mp_writer *to, chunks *in, bcl_status *err)
{
    int p = bcl_rt.nprocs, me = bcl_rt.rank;
    size_t limit = (size_t)INT32_MAX / 2 / (size_t)p;
    if (limit > BCL_HMV_ROUND)
        limit = BCL_HMV_ROUND;
    size_t *done = calloc((size_t)p, sizeof *done), *n = calloc((size_t)p, sizeof *n);
    const unsigned char **send = calloc((size_t)p, sizeof *send);
    if (!done || !n || !send) {
        free(done);
        free(n);
        free(send);
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for HashMapBuffer's exchange");
    }
    bcl_status st;
    for (;;) {
        uint64_t left = 0;
        for (int r = 0; r < p; r++) {
            n[r] = 0;
            send[r] = to[r].buf ? to[r].buf + done[r] : NULL;
            if (r != me && *err == BCL_OK && to[r].buf)
                n[r] = piece(to[r].buf + done[r], to[r].len - done[r], limit);
        }
        unsigned char *got = NULL;
        size_t gotn = 0;
        st = bcl_alltoallv_bytes(send, n, &got, &gotn);
        if (st != BCL_OK)
            break;
        if (gotn && *err == BCL_OK)
            *err = chunk_add(in, got, gotn);
        else
            free(got);
        for (int r = 0; r < p; r++) {
            done[r] += n[r];
            left += r == me || *err != BCL_OK ? 0 : to[r].len - done[r];
        }
        if ((st = bcl_allreduce(&left, 1, BCL_U64, BCL_SUM)) != BCL_OK || !left)
            break;
    }
    free(done);
    free(n);
    free(send);
    return st;
}

/* ---- flush: the local phase ------------------------------------------------ */

/* grow: estimate the distinct keys received (HyperLogLog above 2^15
 * records) and let the map grow for them. */
static bcl_status grow_for(bcl_hmvbuf *b, const chunks *in, bcl_status *err)
{
    uint64_t n = 0;
    bcl_hll *s = NULL;
    for (int i = 0; i < in->k; i++)
        for (size_t at = 0; at < in->n[i];) {
            rec r;
            rec_read(in->p[i] + at, &r);
            at += r.size;
            n++;
        }
    if (n >= 2 * BCL_HLL_REGISTERS && (s = calloc(1, sizeof *s)) != NULL)
        for (int i = 0; i < in->k; i++)
            for (size_t at = 0; at < in->n[i];) {
                rec r;
                rec_read(in->p[i] + at, &r);
                at += r.size;
                bcl_hll_add(s, r.hash);
            }
    uint64_t need = s ? bcl_hm_distinct_bound(s, n) : n;
    free(s);
    return bcl_hm_grow_for(b->m, need, err);
}

/* Apply the chunks to our block, in order; spills into *spill, their
 * number into *n_spilled, the records' into *applied. */
static bcl_status apply_local(bcl_hmvbuf *b, const chunks *in, bcl_mp_writer *spill,
                              uint64_t *applied, uint64_t *n_spilled)
{
    for (int i = 0; i < in->k; i++)
        for (size_t at = 0; at < in->n[i];) {
            rec r;
            rec_read(in->p[i] + at, &r);
            at += r.size;
            ++*applied;
            bcl_status st = BCL_ERR_FULL;
            int spilled = 0;
            if (!b->refusing) {
                bcl_hm_key k = { r.key, r.klen, r.hash };
                st = bcl_hm_apply_var_local(b->m, &k, r.val, r.vlen, r.op, &spilled);
            }
            if (st == BCL_OK && spilled) {
                st = rec_copy(spill, &r);
                ++*n_spilled;
            }
            else {
                if (st == BCL_ERR_FULL && b->grow)
                    b->refusing = 1;   /* grown before the next try: stop probing */
                st = settle(b, &r, st);
            }
            if (st != BCL_OK)
                return st;
        }
    return BCL_OK;
}

/* Keep every record of the chunks (nothing applied: an error came first). */
static bcl_status keep_all(bcl_hmvbuf *b, const chunks *in)
{
    bcl_status st = BCL_OK;
    for (int i = 0; i < in->k && st == BCL_OK; i++)
        for (size_t at = 0; at < in->n[i] && st == BCL_OK;) {
            rec r;
            rec_read(in->p[i] + at, &r);
            at += r.size;
            b->kept_n++;
            st = rec_copy(&b->kept, &r);
        }
    return st;
}

/* ---- flush ------------------------------------------------------------------ */

static void keep_first(bcl_status *first, bcl_status st)
{
    if (*first == BCL_OK)
        *first = st;
}

bcl_status bcl_hmvbuf_flush(bcl_hmvbuf *b)
{
    int p = bcl_rt.nprocs, me = bcl_rt.rank;
    bcl_status err = BCL_OK, st = BCL_OK;
    bcl_mp_writer spill, *to = calloc((size_t)p, sizeof *to);
    chunks in = { 0 };
    uint64_t applied = 0, n_spilled = 0;
    bcl_mp_writer_init(&spill);
    if (!to)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for HashMapBuffer.flush");
    for (int r = 0; r < p; r++)
        bcl_mp_writer_init(&to[r]);
    b->refusing = 0;
    /* Every rank's kept records first, atomically, then a barrier. */
    if (b->kept_all) {
        bcl_mp_writer old = b->kept;
        bcl_mp_writer_init(&b->kept);
        b->kept_n = 0;
        err = apply_atomic(b, old.buf, old.len);
        bcl_mp_writer_free(&old);
        if ((st = bcl_barrier()) != BCL_OK)
            goto out;
    }
    b->kept_all = 0;
    if (err == BCL_OK && (err = route(b, to)) == BCL_OK)
        table_clear(b);                  /* the records travel now */
    /* Ours need no exchange: they are the inbox's first chunk. */
    if (err == BCL_OK && to[me].len) {
        err = chunk_add(&in, to[me].buf, to[me].len);
        bcl_mp_writer_init(&to[me]);
    }
    /* Every path below runs every collective step, so an error never
     * strands peers. */
    if ((st = exchange(to, &in, &err)) != BCL_OK)
        goto out;
    if (b->grow && (st = grow_for(b, &in, &err)) != BCL_OK)
        goto out;
    /* Local phase: nobody writes another rank's block until the barrier. */
    if (err == BCL_OK)
        err = apply_local(b, &in, &spill, &applied, &n_spilled);
    else
        keep_first(&err, keep_all(b, &in));
    chunks_free(&in);
    if ((st = bcl_barrier()) != BCL_OK)
        goto out;
    if (spill.len && err == BCL_OK) {
        if (bcl_hm_spills_wait(b->m, b->grow, b->refusing, applied, n_spilled)) {
            chunks sp = { 0 };
            if ((err = chunk_add(&sp, spill.buf, spill.len)) == BCL_OK)
                err = keep_all(b, &sp);
            bcl_mp_writer_init(&spill);   /* sp owns the bytes now */
            chunks_free(&sp);
        } else {
            err = apply_atomic(b, spill.buf, spill.len);
        }
    }
    if ((st = bcl_barrier()) != BCL_OK)
        goto out;
    st = bcl_hm_flush_agree(b->m, err, b->kept_n, &b->n_overflow, b->n_segfull,
                            &b->kept_all);
    b->n_segfull = 0;
out:
    for (int r = 0; r < p; r++)
        bcl_mp_writer_free(&to[r]);
    free(to);
    chunks_free(&in);
    bcl_mp_writer_free(&spill);
    return st;
}
