/*
 * docstrings/ops.h -- docstrings of the global-pointer operations (ops.c).
 */
#ifndef BCLPY_DOC_OPS_H
#define BCLPY_DOC_OPS_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_ALLOC \
    BCLPY_SIG("alloc(count, dtype='int64')") \
    "Allocate `count` elements of `dtype` in this rank's shared segment (not\n" \
    "zeroed).  Not collective.\n" \
    BCLPY_PARAMETERS \
    "count : int\n" \
    "    Number of elements (positive).\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype.\n" \
    BCLPY_RETURNS \
    "pybcl.GlobalPtr\n" \
    "    Owned by this rank.\n" \
    BCLPY_RAISES \
    "pybcl.SegmentFull\n" \
    "    When the segment has no room.\n" \
    "TypeError, ValueError\n" \
    "    For a bad count or dtype.\n" \
    BCLPY_EXAMPLES \
    ">>> p = pybcl.alloc(100, dtype=\"float64\")"
#define BCLPY_ARGS_ALLOC { "count", "dtype" }

#define BCLPY_DOC_FREE \
    BCLPY_SIG("free(ptr)") \
    "Free memory this rank allocated with alloc().  Not collective.\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    For a remote, null or unknown pointer.\n" \
    "TypeError\n" \
    "    If `ptr` is not a GlobalPtr.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.free(pybcl.alloc(8))"

#define BCLPY_DOC_RGET \
    BCLPY_SIG("rget(ptr, count)") \
    "Read `count` elements starting at `ptr` (any rank's memory).  Blocking;\n" \
    "not collective.\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    "count : int\n" \
    BCLPY_RETURNS \
    "numpy.ndarray\n" \
    "    A new array of ptr.dtype.\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    If the range leaves the owner's segment.\n" \
    BCLPY_EXAMPLES \
    ">>> x = pybcl.rget(p, 10)"
#define BCLPY_ARGS_RGET { "ptr", "count" }

#define BCLPY_DOC_RPUT \
    BCLPY_SIG("rput(ptr, array)") \
    "Write `array` to consecutive elements starting at `ptr`.  Not\n" \
    "collective.  The write may still be in flight on return: it is complete\n" \
    "at the target after flush() or barrier().\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    "array : array_like\n" \
    "    Any buffer-protocol object or sequence, converted to ptr.dtype.\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    If the range leaves the owner's segment.\n" \
    "TypeError\n" \
    "    If `array` does not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.rput(p, np.zeros(10))\n" \
    ">>> pybcl.flush()"
#define BCLPY_ARGS_RPUT { "ptr", "array" }

/* The fetch-and-ops and atomic_swap: one layout, the verb and an example
 * operand apart. */
#define BCLPY_DOC_FETCH_OP(name, verb, v) \
    BCLPY_SIG(name "(ptr, v)") \
    "Atomically " verb " `ptr` and return the old value.  Consistent with\n" \
    "every other atomic on the same word, from any rank.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "v : int\n" \
    "    Must fit the integer type.\n" \
    BCLPY_RETURNS \
    "int\n" \
    "    The value before the operation.\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    If ptr.dtype is not a 32- or 64-bit integer.\n" \
    "OverflowError\n" \
    "    If `v` does not fit it.\n" \
    BCLPY_EXAMPLES \
    ">>> c = pybcl.alloc(1)\n" \
    ">>> c[0] = 0\n" \
    ">>> pybcl." name "(c, " v ")\n" \
    "0"

#define BCLPY_DOC_FETCH_AND_ADD \
    BCLPY_DOC_FETCH_OP("fetch_and_add", "add `v` to the integer at", "1")
#define BCLPY_DOC_FETCH_AND_OR \
    BCLPY_DOC_FETCH_OP("fetch_and_or", "bitwise-or `v` into the integer at", "4")
#define BCLPY_DOC_FETCH_AND_AND \
    BCLPY_DOC_FETCH_OP("fetch_and_and", "bitwise-and `v` into the integer at", "1")
#define BCLPY_DOC_FETCH_AND_XOR \
    BCLPY_DOC_FETCH_OP("fetch_and_xor", "bitwise-xor `v` into the integer at", "3")
#define BCLPY_DOC_ATOMIC_SWAP \
    BCLPY_DOC_FETCH_OP("atomic_swap", "replace the integer by `v` at", "9")

#define BCLPY_DOC_ATOMIC_LOAD \
    BCLPY_SIG("atomic_load(ptr)") \
    "Atomically read the 32- or 64-bit integer at `ptr` (consistent with the\n" \
    "fetch-and-ops and compare_and_swap).  Not collective.\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For other dtypes.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.atomic_load(c)\n" \
    "0"

#define BCLPY_DOC_ATOMIC_STORE \
    BCLPY_SIG("atomic_store(ptr, v)") \
    "Atomically write `v` to the 32- or 64-bit integer at `ptr`.  Not\n" \
    "collective.\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    "v : int\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For other dtypes.\n" \
    "OverflowError\n" \
    "    If `v` does not fit.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.atomic_store(c, 5)"

#define BCLPY_DOC_COMPARE_AND_SWAP \
    BCLPY_SIG("compare_and_swap(ptr, expected, desired)") \
    "Atomically: if the integer at `ptr` equals `expected`, replace it by\n" \
    "`desired`.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "expected, desired : int\n" \
    BCLPY_RETURNS \
    "int\n" \
    "    The old value (the swap happened iff it equals `expected`).\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    For other dtypes.\n" \
    "OverflowError\n" \
    "    If a value does not fit.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.compare_and_swap(c, 0, 1)\n" \
    "0"
#define BCLPY_ARGS_COMPARE_AND_SWAP { "ptr", "expected", "desired" }

#define BCLPY_DOC_BYTES_IN_USE \
    BCLPY_SIG("bytes_in_use()") \
    "The bytes currently allocated in this rank's segment (by alloc() and by\n" \
    "the containers).  Local.\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl._core.bytes_in_use() >= 0\n" \
    "True"

#endif /* BCLPY_DOC_OPS_H */
