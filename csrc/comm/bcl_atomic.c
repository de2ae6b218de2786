/* bcl_atomic.c -- atomics on 4- and 8-byte words on every transport (bcl_comm.h). */
#include "comm/bcl_comm.h"

#include "comm/bcl_flush.h"
#include "comm/bcl_quiet.h"
#include "comm/bcl_wait.h"

static bcl_status check_atomic(bcl_gptr p, int width)
{
    if (width != 4 && width != 8)
        return bcl_set_error(BCL_ERR_TYPE, "atomics work on 4- or 8-byte integers, "
                             "not %d-byte ones", width);
    bcl_status st = bcl_check_range(p, (size_t)width);
    if (st != BCL_OK)
        return st;
    if (p.offset % (uint64_t)width)
        return bcl_set_error(BCL_ERR_ARG, "offset %llu is not %d-byte aligned, as "
                             "atomics need", (unsigned long long)p.offset, width);
    return BCL_OK;
}

/* ---- atomics ------------------------------------------------------------ */

static MPI_Datatype mpi_uint(int width) { return width == 4 ? MPI_UINT32_T : MPI_UINT64_T; }

MPI_Op bcl_mpi_op(bcl_atomic_op op)
{
    switch (op) {
    case BCL_OP_ADD: return MPI_SUM;
    case BCL_OP_OR: return MPI_BOR;
    case BCL_OP_AND: return MPI_BAND;
    case BCL_OP_XOR: return MPI_BXOR;
    case BCL_OP_REPLACE: return MPI_REPLACE;
    default: return MPI_NO_OP;
    }
}

#define SHM_FETCH_OP(T, addr, op, v, out)                                       \
    do {                                                                         \
        T *a_ = (T *)(addr), v_ = (T)(v), r_;                                    \
        switch (op) {                                                            \
        case BCL_OP_ADD: r_ = __atomic_fetch_add(a_, v_, __ATOMIC_SEQ_CST); break; \
        case BCL_OP_OR: r_ = __atomic_fetch_or(a_, v_, __ATOMIC_SEQ_CST); break;   \
        case BCL_OP_AND: r_ = __atomic_fetch_and(a_, v_, __ATOMIC_SEQ_CST); break; \
        case BCL_OP_XOR: r_ = __atomic_fetch_xor(a_, v_, __ATOMIC_SEQ_CST); break; \
        case BCL_OP_REPLACE: r_ = __atomic_exchange_n(a_, v_, __ATOMIC_SEQ_CST); break; \
        default: r_ = __atomic_load_n(a_, __ATOMIC_SEQ_CST); break;             \
        }                                                                        \
        *(T *)(out) = r_;                                                        \
    } while (0)

static void shm_fetch_op(void *addr, int width, bcl_atomic_op op, const void *operand,
                         void *result)
{
    if (width == 4)
        SHM_FETCH_OP(uint32_t, addr, op, *(const uint32_t *)operand, result);
    else
        SHM_FETCH_OP(uint64_t, addr, op, *(const uint64_t *)operand, result);
}

static void shm_cas(void *addr, int width, const void *expected, const void *desired,
                    void *result)
{
    if (width == 4) {
        uint32_t e = *(const uint32_t *)expected;
        __atomic_compare_exchange_n((uint32_t *)addr, &e, *(const uint32_t *)desired,
                                    0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *(uint32_t *)result = e;
    } else {
        uint64_t e = *(const uint64_t *)expected;
        __atomic_compare_exchange_n((uint64_t *)addr, &e, *(const uint64_t *)desired,
                                    0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        *(uint64_t *)result = e;
    }
}

/* Both non-blocking atomics: done now by the CPU in shared memory, else
 * issued to MPI (the next flush completes them).  desired non-NULL: the
 * compare-and-swap of `expected` by `desired`; else fetch-op `op` of
 * `operand`. */
static inline bcl_status atomic_nb(bcl_gptr p, int width, bcl_atomic_op op,
                                   const void *operand, const void *expected,
                                   const void *desired, void *result)
{
    bcl_status st = check_atomic(p, width);
    if (st != BCL_OK)
        return st;
    if (bcl_comm_direct()) {
        if (desired)
            shm_cas(bcl_local_addr(p), width, expected, desired, result);
        else
            shm_fetch_op(bcl_local_addr(p), width, op, operand, result);
        return BCL_OK;
    }
    bcl_comm_issued(p.rank);
    if (desired)
        BCL_MPI_CHECK("MPI_Compare_and_swap",
                      MPI_Compare_and_swap(desired, expected, result, mpi_uint(width),
                                           p.rank, (MPI_Aint)p.offset, bcl_rt.win));
    else
        BCL_MPI_CHECK("MPI_Fetch_and_op",
                      MPI_Fetch_and_op(operand, result, mpi_uint(width), p.rank,
                                       (MPI_Aint)p.offset, bcl_mpi_op(op), bcl_rt.win));
    return BCL_OK;
}

bcl_status bcl_fetch_op_nb(bcl_gptr p, int width, bcl_atomic_op op,
                           const void *operand, void *result)
{
    return atomic_nb(p, width, op, operand, NULL, NULL, result);
}

bcl_status bcl_cas_nb(bcl_gptr p, int width, const void *expected, const void *desired,
                      void *result)
{
    return atomic_nb(p, width, BCL_OP_NOOP, NULL, expected, desired, result);
}

/* Width-sized views of 64-bit arguments, for the blocking wrappers. */
typedef union { uint64_t u64; uint32_t u32; } word;

static word to_word(uint64_t v, int width)
{
    word w;
    if (width == 4)
        w.u32 = (uint32_t)v;
    else
        w.u64 = v;
    return w;
}

static uint64_t from_word(word w, int width) { return width == 4 ? w.u32 : w.u64; }

/* Blocking fetch-op in patient mode: a request we can wait on while yielding. */
static bcl_status patient_fetch_op(bcl_gptr p, int width, bcl_atomic_op op,
                                   const void *in, void *out)
{
    MPI_Request rq;
    bcl_quiet_target(p.rank);
    BCL_MPI_CHECK("MPI_Rget_accumulate",
                  MPI_Rget_accumulate(in, 1, mpi_uint(width), out, 1, mpi_uint(width),
                                      p.rank, (MPI_Aint)p.offset, 1, mpi_uint(width),
                                      bcl_mpi_op(op), bcl_rt.win, &rq));
    return bcl_wait(1, &rq);
}

bcl_status bcl_fetch_op(bcl_gptr p, int width, bcl_atomic_op op, uint64_t operand,
                        uint64_t *old)
{
    word in = to_word(operand, width), out = { 0 };
    bcl_status st;
    if (!bcl_comm_direct() && bcl_patient()) {
        if ((st = check_atomic(p, width)) == BCL_OK &&
            (st = patient_fetch_op(p, width, op, &in, &out)) == BCL_OK && old)
            *old = from_word(out, width);
        return st;
    }
    st = bcl_fetch_op_nb(p, width, op, &in, &out);
    if (st == BCL_OK && !bcl_comm_direct())
        st = bcl_flush_rank(p.rank);
    if (st == BCL_OK && old)
        *old = from_word(out, width);
    return st;
}

bcl_status bcl_cas(bcl_gptr p, int width, uint64_t expected, uint64_t desired,
                   uint64_t *old)
{
    word e = to_word(expected, width), d = to_word(desired, width), out = { 0 };
    bcl_status st = bcl_cas_nb(p, width, &e, &d, &out);
    if (st == BCL_OK && !bcl_comm_direct())
        st = bcl_flush_rank(p.rank);
    if (st == BCL_OK && old)
        *old = from_word(out, width);
    return st;
}

bcl_status bcl_atomic_store(bcl_gptr p, int width, uint64_t value)
{
    bcl_status st = check_atomic(p, width);
    if (st != BCL_OK)
        return st;
    word v = to_word(value, width);
    if (bcl_comm_direct()) {
        if (width == 4)
            __atomic_store_n((uint32_t *)bcl_local_addr(p), v.u32, __ATOMIC_SEQ_CST);
        else
            __atomic_store_n((uint64_t *)bcl_local_addr(p), v.u64, __ATOMIC_SEQ_CST);
        return BCL_OK;
    }
    bcl_comm_issued(p.rank);
    BCL_MPI_CHECK("MPI_Accumulate",
                  MPI_Accumulate(&v, 1, mpi_uint(width), p.rank, (MPI_Aint)p.offset, 1,
                                 mpi_uint(width), MPI_REPLACE, bcl_rt.win));
    return bcl_flush_rank(p.rank);
}

bcl_status bcl_atomic_post(bcl_gptr p, int width, bcl_atomic_op op, uint64_t operand)
{
    bcl_status st = check_atomic(p, width);
    if (st != BCL_OK)
        return st;
    word v = to_word(operand, width), out;
    if (bcl_comm_direct()) {
        shm_fetch_op(bcl_local_addr(p), width, op, &v, &out);
        return BCL_OK;
    }
    uint64_t *operand_slot;
    if ((st = bcl_flush_post_slot(p.rank, &operand_slot)) != BCL_OK)
        return st;
    if (!operand_slot)   /* no bookkeeping: complete it now */
        return bcl_fetch_op(p, width, op, operand, NULL);
    word *slot = (word *)operand_slot;
    *slot = v;
    bcl_quiet_target(p.rank);
    BCL_MPI_CHECK("MPI_Accumulate",
                  MPI_Accumulate(slot, 1, mpi_uint(width), p.rank, (MPI_Aint)p.offset, 1,
                                 mpi_uint(width), bcl_mpi_op(op), bcl_rt.win));
    return BCL_OK;
}
