/* bcl_comm_batch.c -- one atomic op over many words of one rank, and rounds
 * of fetch-ops aggregated into such calls (see header). */
#include "comm/bcl_comm_batch.h"

#include "comm/bcl_indexed.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bcl_free.h"

bcl_status bcl_fetch_op_indexed_nb(int rank, const uint64_t *offsets, size_t n,
                                   bcl_atomic_op op, const uint64_t *operands,
                                   uint64_t *results)
{
    BCL_REQUIRE_INIT();
    if (n == 0)
        return BCL_OK;
    if (n > INT_MAX)
        return bcl_set_error(BCL_ERR_ARG, "batch of %zu words is too large", n);
    bcl_status st = bcl_indexed_check(rank, offsets, n, 8);
    if (st != BCL_OK)
        return st;
    if (bcl_comm_direct()) {
        for (size_t i = 0; i < n; i++) {
            uint64_t *w = bcl_local_addr(bcl_gptr_make(rank, offsets[i]));
            uint64_t v = operands[i];
            switch (op) {
            case BCL_OP_ADD: results[i] = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_OR: results[i] = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_AND: results[i] = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_XOR: results[i] = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;
            case BCL_OP_REPLACE: results[i] = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break;
            default: results[i] = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;
            }
        }
        return BCL_OK;
    }
    MPI_Datatype dt;
    if ((st = bcl_indexed_type(offsets, n, MPI_UINT64_T, &dt)) != BCL_OK)
        return st;
    bcl_comm_issued(rank);
    int rc = MPI_Get_accumulate(operands, (int)n, MPI_UINT64_T, results, (int)n,
                                MPI_UINT64_T, rank, 0, 1, dt, bcl_mpi_op(op), bcl_rt.win);
    MPI_Type_free(&dt);   /* the pending operation keeps what it needs */
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Get_accumulate", rc);
    return BCL_OK;
}

/* ---- rounds -------------------------------------------------------------- */

enum { G_ADD, G_BOR, G_NOOP, G_REPLACE, BCL_ROUND_NG };

static const bcl_atomic_op group_op[BCL_ROUND_NG] = { BCL_OP_ADD, BCL_OP_OR, BCL_OP_NOOP,
                                                      BCL_OP_REPLACE };

bcl_status bcl_round_init(bcl_round *r, size_t max_claims)
{
    memset(r, 0, sizeof *r);
    r->gen = 1;
    r->rma = !bcl_comm_direct();
    if (!r->rma)
        return BCL_OK;
    size_t p = (size_t)bcl_rt.nprocs;
    r->set_cap = 16;                 /* a power of two, at most half full */
    while (r->set_cap < 2 * max_claims)
        r->set_cap *= 2;
    r->g = calloc(p * BCL_ROUND_NG, sizeof *r->g);
    r->touched = malloc(p * sizeof *r->touched);
    r->is_touched = calloc(p, 1);
    r->set = malloc(r->set_cap * sizeof *r->set);
    r->set_gen = calloc(r->set_cap, sizeof *r->set_gen);
    if (r->g && r->touched && r->is_touched && r->set && r->set_gen)
        return BCL_OK;
    bcl_round_free(r);
    return bcl_set_error(BCL_ERR_NOMEM, "no memory for a round of %zu operations",
                         max_claims);
}

void bcl_round_free(bcl_round *r)
{
    if (r->g)
        for (size_t i = 0; i < (size_t)bcl_rt.nprocs * BCL_ROUND_NG; i++)
            BCL_FREE_ALL(r->g[i].off, r->g[i].operand, r->g[i].res, r->g[i].dest);
    BCL_FREE_ALL(r->g, r->touched, r->is_touched, r->set, r->set_gen);
    memset(r, 0, sizeof *r);
}

void bcl_round_touch(bcl_round *r, int rank)
{
    if (r->rma && !r->is_touched[rank]) {
        r->is_touched[rank] = 1;
        r->touched[r->ntouched++] = rank;
    }
}

static bcl_round_group *group_of(bcl_round *r, int rank, int k)
{
    bcl_round_touch(r, rank);
    return &r->g[(size_t)rank * BCL_ROUND_NG + k];
}

static bcl_status group_add(bcl_round_group *g, uint64_t off, uint64_t operand,
                            uint64_t *dest)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 256;
        uint64_t *a = realloc(g->off, cap * sizeof *a);
        if (a) g->off = a;
        uint64_t *b = a ? realloc(g->operand, cap * sizeof *b) : NULL;
        if (b) g->operand = b;
        uint64_t *c = b ? realloc(g->res, cap * sizeof *c) : NULL;
        if (c) g->res = c;
        uint64_t **d = c ? realloc(g->dest, cap * sizeof *d) : NULL;
        if (!d)
            return bcl_set_error(BCL_ERR_NOMEM, "no memory for a batch round");
        g->dest = d;
        g->cap = cap;
    }
    g->off[g->n] = off;
    g->operand[g->n] = operand;
    g->dest[g->n++] = dest;
    return BCL_OK;
}

/* Claim word p for this round's call of kind k; 0: that call has it
 * already.  (Different calls on one word are fine: MPI orders accumulates
 * of one origin on one location.) */
static int claim_word(bcl_round *r, bcl_gptr p, int k)
{
    uint64_t key = ((uint64_t)(uint32_t)p.rank << 48) ^ (p.offset << 2) ^ (uint64_t)k;
    size_t mask = r->set_cap - 1;
    for (size_t j = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & mask;; j = (j + 1) & mask) {
        if (r->set_gen[j] != r->gen) {
            r->set_gen[j] = r->gen;
            r->set[j] = key;
            return 1;
        }
        if (r->set[j] == key)
            return 0;
    }
}

bcl_status bcl_round_fetch(bcl_round *r, bcl_gptr p, bcl_atomic_op op, uint64_t operand,
                           uint64_t *dest, int *issued)
{
    uint64_t sink;
    *issued = 1;
    if (!r->rma)
        return bcl_fetch_op_nb(p, 8, op, &operand, dest ? dest : &sink);
    int k = op == BCL_OP_ADD ? G_ADD : op == BCL_OP_OR ? G_BOR : G_NOOP;
    if (op != BCL_OP_NOOP && !claim_word(r, p, k)) {
        *issued = 0;
        return BCL_OK;
    }
    return group_add(group_of(r, p.rank, k), p.offset, operand, dest);
}

bcl_status bcl_round_read(bcl_round *r, bcl_gptr p, void *dst, size_t nbytes)
{
    if (!r->rma)
        return bcl_get_nb(dst, p, nbytes);
    bcl_round_group *g = group_of(r, p.rank, G_NOOP);
    bcl_status st = BCL_OK;
    for (size_t w = 0; w < nbytes && st == BCL_OK; w += 8)
        st = group_add(g, p.offset + w, 0, (uint64_t *)((unsigned char *)dst + w));
    return st;
}

bcl_status bcl_round_write(bcl_round *r, bcl_gptr p, const void *src, size_t nbytes)
{
    if (!r->rma)
        return bcl_put_nb(p, src, nbytes);
    bcl_round_group *g = group_of(r, p.rank, G_REPLACE);
    bcl_status st = BCL_OK;
    for (size_t w = 0; w < nbytes && st == BCL_OK; w += 8) {
        uint64_t v;
        memcpy(&v, (const unsigned char *)src + w, 8);
        st = group_add(g, p.offset + w, v, NULL);
    }
    return st;
}

static bcl_status send_groups(bcl_round *r)
{
    bcl_status st = BCL_OK;
    for (int t = 0; t < r->ntouched && st == BCL_OK; t++)
        for (int k = 0; k < BCL_ROUND_NG && st == BCL_OK; k++) {
            bcl_round_group *g = &r->g[(size_t)r->touched[t] * BCL_ROUND_NG + k];
            if (g->n)
                st = bcl_fetch_op_indexed_nb(r->touched[t], g->off, g->n, group_op[k],
                                             g->operand, g->res);
        }
    if (st == BCL_OK)
        st = r->ntouched == 1 ? bcl_flush_rank(r->touched[0]) : bcl_flush();
    return st;
}

/* Deliver the results (only when the round completed) and empty the round. */
static void deliver(bcl_round *r, bcl_status st)
{
    for (int t = 0; t < r->ntouched; t++) {
        int rank = r->touched[t];
        for (int k = 0; k < BCL_ROUND_NG; k++) {
            bcl_round_group *g = &r->g[(size_t)rank * BCL_ROUND_NG + k];
            for (size_t i = 0; st == BCL_OK && i < g->n; i++)
                if (g->dest[i])
                    memcpy(g->dest[i], &g->res[i], 8);
            g->n = 0;
        }
        r->is_touched[rank] = 0;
    }
    r->ntouched = 0;
    if (++r->gen == 0) {                 /* generation wrapped: reset */
        memset(r->set_gen, 0, r->set_cap * sizeof *r->set_gen);
        r->gen = 1;
    }
}

bcl_status bcl_round_send(bcl_round *r)
{
    if (!r->rma)
        return BCL_OK;                   /* shm: every op is already done */
    bcl_status st = send_groups(r);
    deliver(r, st);
    return st;
}
