/* bcl_comm_accum.c -- one atomic update over many elements of one rank (see header). */
#include "comm/bcl_comm_accum.h"

#include "comm/bcl_indexed.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

size_t bcl_elem_size(bcl_elem elem)
{
    switch (elem) {
    case BCL_I8: case BCL_U8: case BCL_BOOL: return 1;
    case BCL_I16: case BCL_U16: return 2;
    case BCL_I32: case BCL_U32: case BCL_F32: return 4;
    default: return 8;
    }
}

static int is_float(bcl_elem elem) { return elem == BCL_F32 || elem == BCL_F64; }

static int is_minmax(bcl_atomic_op op) { return op == BCL_OP_MIN || op == BCL_OP_MAX; }

static int is_unsigned(bcl_elem elem) { return elem >= BCL_U8 && elem <= BCL_U64; }

bcl_status bcl_accumulate_check(bcl_elem elem, bcl_atomic_op op)
{
    if (elem == BCL_BOOL || elem > BCL_F64)
        return bcl_set_error(BCL_ERR_TYPE, "atomic updates need an integer or float "
                             "element type");
    if (op == BCL_OP_NOOP || (unsigned)op > BCL_OP_NOOP)
        return bcl_set_error(BCL_ERR_ARG, "not an update operation");
    if (is_float(elem) && op != BCL_OP_ADD && op != BCL_OP_REPLACE && !is_minmax(op))
        return bcl_set_error(BCL_ERR_TYPE, "float elements take only the add, replace, "
                             "min and max operations (bitwise ones need integers)");
    /* MPICH 4.0's MPI_Accumulate compares unsigned integers as signed for
     * MPI_MIN / MPI_MAX: refused on every transport, so both agree. */
    if (is_unsigned(elem) && is_minmax(op))
        return bcl_set_error(BCL_ERR_TYPE, "min and max need signed integer or float "
                             "elements");
    return BCL_OK;
}

/* Integer ops on unsigned types of every width: two's complement makes
 * signed add/and/or/xor the same bits. */
#define INT_ATOMIC(T, addr, op, src)                                            \
    do {                                                                        \
        T *a_ = (T *)(addr), v_;                                                \
        memcpy(&v_, (src), sizeof v_);                                          \
        switch (op) {                                                           \
        case BCL_OP_ADD: __atomic_fetch_add(a_, v_, __ATOMIC_SEQ_CST); break;   \
        case BCL_OP_OR: __atomic_fetch_or(a_, v_, __ATOMIC_SEQ_CST); break;     \
        case BCL_OP_AND: __atomic_fetch_and(a_, v_, __ATOMIC_SEQ_CST); break;   \
        case BCL_OP_XOR: __atomic_fetch_xor(a_, v_, __ATOMIC_SEQ_CST); break;   \
        default: __atomic_store_n(a_, v_, __ATOMIC_SEQ_CST); break;             \
        }                                                                       \
    } while (0)

/* An update no single atomic instruction does: the element of type T at
 * addr (U: the unsigned word of its width) is read as cur_, STEP computes
 * its new value in cur_ from the operand v_ -- or breaks out, leaving the
 * word as it is -- and a compare-and-swap on the bits stores it unless
 * another writer intervened, when STEP runs again on the newer value. */
#define CAS_UPDATE(T, U, addr, src, STEP)                                       \
    do {                                                                        \
        U *a_ = (U *)(addr), old_ = __atomic_load_n(a_, __ATOMIC_SEQ_CST), new_; \
        T cur_, v_;                                                             \
        memcpy(&v_, (src), sizeof v_);                                          \
        do {                                                                    \
            memcpy(&cur_, &old_, sizeof cur_);                                  \
            STEP;                                                               \
            memcpy(&new_, &cur_, sizeof new_);                                  \
        } while (!__atomic_compare_exchange_n(a_, &old_, new_, 0,               \
                                              __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
    } while (0)

/* Float add. */
#define FLOAT_ADD_CAS(F, U, addr, src) CAS_UPDATE(F, U, addr, src, cur_ += v_)

/* Min/max: the comparison is the element type's (signed integer or float),
 * so each kind has its own instance; the word is swapped only while the
 * operand still wins, so a concurrent better value is never overwritten. */
#define MINMAX_CAS(T, U, addr, op, src)                                         \
    CAS_UPDATE(T, U, addr, src,                                                 \
               if ((op) == BCL_OP_MIN ? !(v_ < cur_) : !(v_ > cur_)) break;     \
               cur_ = v_)

#define MINMAX_PLAIN(T, U, addr, op, src)                                       \
    do {                                                                        \
        T a_, v_;                                                               \
        memcpy(&a_, (addr), sizeof a_);                                         \
        memcpy(&v_, (src), sizeof v_);                                          \
        if ((op) == BCL_OP_MIN ? v_ < a_ : v_ > a_)                             \
            memcpy((addr), &v_, sizeof v_);                                     \
    } while (0)

/* One min/max update of the element at addr by MACRO (MINMAX_CAS or
 * MINMAX_PLAIN) with T the element's C type and U the unsigned word of its
 * width. */
#define MINMAX_BY_ELEM(MACRO, elem, ...)                                        \
    do {                                                                        \
        switch (elem) {                                                         \
        case BCL_I8: MACRO(int8_t, uint8_t, __VA_ARGS__); break;                \
        case BCL_I16: MACRO(int16_t, uint16_t, __VA_ARGS__); break;             \
        case BCL_I32: MACRO(int32_t, uint32_t, __VA_ARGS__); break;             \
        case BCL_F32: MACRO(float, uint32_t, __VA_ARGS__); break;               \
        case BCL_F64: MACRO(double, uint64_t, __VA_ARGS__); break;              \
        default: MACRO(int64_t, uint64_t, __VA_ARGS__); break;                  \
        }                                                                       \
    } while (0)

static void cpu_atomic(void *addr, bcl_elem elem, bcl_atomic_op op, const void *src)
{
    if (is_minmax(op)) {
        MINMAX_BY_ELEM(MINMAX_CAS, elem, addr, op, src);
        return;
    }
    if (elem == BCL_F32 && op == BCL_OP_ADD) {
        FLOAT_ADD_CAS(float, uint32_t, addr, src);
        return;
    }
    if (elem == BCL_F64 && op == BCL_OP_ADD) {
        FLOAT_ADD_CAS(double, uint64_t, addr, src);
        return;
    }
    switch (bcl_elem_size(elem)) {   /* float replace: a store of the bits */
    case 1: INT_ATOMIC(uint8_t, addr, op, src); break;
    case 2: INT_ATOMIC(uint16_t, addr, op, src); break;
    case 4: INT_ATOMIC(uint32_t, addr, op, src); break;
    default: INT_ATOMIC(uint64_t, addr, op, src); break;
    }
}

#define INT_PLAIN(T, addr, op, src)                                             \
    do {                                                                        \
        T a_, v_;                                                               \
        memcpy(&a_, (addr), sizeof a_);                                         \
        memcpy(&v_, (src), sizeof v_);                                          \
        switch (op) {                                                           \
        case BCL_OP_ADD: a_ = (T)(a_ + v_); break;                              \
        case BCL_OP_OR: a_ |= v_; break;                                        \
        case BCL_OP_AND: a_ &= v_; break;                                       \
        case BCL_OP_XOR: a_ ^= v_; break;                                       \
        default: a_ = v_; break;                                                \
        }                                                                       \
        memcpy((addr), &a_, sizeof a_);                                         \
    } while (0)

#define FLOAT_ADD_PLAIN(T, addr, src)                                           \
    do {                                                                        \
        T a_, v_;                                                               \
        memcpy(&a_, (addr), sizeof a_);                                         \
        memcpy(&v_, (src), sizeof v_);                                          \
        a_ += v_;                                                               \
        memcpy((addr), &a_, sizeof a_);                                         \
    } while (0)

void bcl_accumulate_local(void *addr, bcl_elem elem, bcl_atomic_op op, const void *operand)
{
    if (is_minmax(op)) {
        MINMAX_BY_ELEM(MINMAX_PLAIN, elem, addr, op, operand);
        return;
    }
    if (is_float(elem) && op == BCL_OP_ADD) {
        if (elem == BCL_F32)
            FLOAT_ADD_PLAIN(float, addr, operand);
        else
            FLOAT_ADD_PLAIN(double, addr, operand);
        return;
    }
    switch (bcl_elem_size(elem)) {
    case 1: INT_PLAIN(uint8_t, addr, op, operand); break;
    case 2: INT_PLAIN(uint16_t, addr, op, operand); break;
    case 4: INT_PLAIN(uint32_t, addr, op, operand); break;
    default: INT_PLAIN(uint64_t, addr, op, operand); break;
    }
}

/* The reduction MPI applies for `op` (min/max are accumulate-only ops, so
 * bcl_mpi_op, shared with the fetch paths, does not know them). */
static MPI_Op accumulate_op(bcl_atomic_op op)
{
    if (op == BCL_OP_MIN)
        return MPI_MIN;
    if (op == BCL_OP_MAX)
        return MPI_MAX;
    return bcl_mpi_op(op);
}

/* One MPI_Accumulate over an hindexed target datatype. */
static bcl_status mpi_accumulate(int rank, const uint64_t *offsets, size_t n,
                                 bcl_elem elem, bcl_atomic_op op, const void *operands)
{
    MPI_Datatype dt;
    bcl_status st = bcl_indexed_type(offsets, n, bcl_mpi_elem(elem), &dt);
    if (st != BCL_OK)
        return st;
    bcl_comm_issued(rank);
    int rc = MPI_Accumulate(operands, (int)n, bcl_mpi_elem(elem), rank, 0, 1, dt,
                            accumulate_op(op), bcl_rt.win);
    MPI_Type_free(&dt);   /* the pending operation keeps what it needs */
    if (rc != MPI_SUCCESS)
        return bcl_mpi_error("MPI_Accumulate", rc);
    return BCL_OK;
}

bcl_status bcl_accumulate_indexed_nb(int rank, const uint64_t *offsets, size_t n,
                                     bcl_elem elem, bcl_atomic_op op,
                                     const void *operands)
{
    BCL_REQUIRE_INIT();
    bcl_status st = bcl_accumulate_check(elem, op);
    if (st != BCL_OK || n == 0)
        return st;
    if (n > INT_MAX)
        return bcl_set_error(BCL_ERR_ARG, "batch of %zu elements is too large", n);
    size_t width = bcl_elem_size(elem);
    if ((st = bcl_indexed_check(rank, offsets, n, width)) != BCL_OK)
        return st;
    if (bcl_comm_direct()) {
        const unsigned char *src = operands;
        for (size_t i = 0; i < n; i++)
            cpu_atomic(bcl_local_addr(bcl_gptr_make(rank, offsets[i])), elem, op,
                       src + i * width);
        return BCL_OK;
    }
    return mpi_accumulate(rank, offsets, n, elem, op, operands);
}
