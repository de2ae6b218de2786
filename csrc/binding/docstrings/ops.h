/*
 * docstrings/ops.h -- docstrings of the global-pointer operations (ops.c).
 */
#ifndef BCLPY_DOC_OPS_H
#define BCLPY_DOC_OPS_H

#define BCLPY_DOC_ALLOC \
    "alloc(count, dtype='int64')\n--\n\n" \
    "Allocate `count` elements of `dtype` in this rank's shared segment.\n" \
    "Not collective.\n\n" \
    "Returns a GlobalPtr owned by this rank (memory is not zeroed).\n" \
    "Raises SegmentFull when the segment has no room, TypeError/ValueError for\n" \
    "a bad count or dtype (fixed-size NumPy dtypes only)."

#define BCLPY_DOC_FREE \
    "free(ptr)\n--\n\n" \
    "Free memory this rank allocated with alloc().  Not collective.\n" \
    "Raises ValueError for a remote, null or unknown pointer, TypeError if\n" \
    "`ptr` is not a GlobalPtr."

#define BCLPY_DOC_RGET \
    "rget(ptr, count)\n--\n\n" \
    "Read `count` elements starting at `ptr` (any rank's memory) into a new\n" \
    "NumPy array of ptr.dtype.  Blocking; not collective.\n" \
    "Raises ValueError if the range leaves the owner's segment."

#define BCLPY_DOC_RPUT \
    "rput(ptr, array)\n--\n\n" \
    "Write `array` (any buffer-protocol object or sequence, converted to\n" \
    "ptr.dtype) to consecutive elements starting at `ptr`.  Not collective.\n" \
    "The write may still be in flight on return: it is complete at the target\n" \
    "after flush() or barrier().  Raises ValueError if the range leaves the\n" \
    "owner's segment, TypeError if array does not convert."

#define BCLPY_DOC_FETCH_OP(name, what) \
    name "(ptr, v)\n--\n\n" \
    "Atomically " what " at `ptr` and return the old value (int).\n" \
    "ptr.dtype must be a 32- or 64-bit integer (TypeError otherwise); v\n" \
    "must fit it (OverflowError).  Consistent with every other atomic on the\n" \
    "same word, from any rank.  Not collective."

#define BCLPY_DOC_FETCH_AND_ADD BCLPY_DOC_FETCH_OP("fetch_and_add", "add `v` to the integer")
#define BCLPY_DOC_FETCH_AND_OR  BCLPY_DOC_FETCH_OP("fetch_and_or", "bitwise-or `v` into the integer")
#define BCLPY_DOC_FETCH_AND_AND BCLPY_DOC_FETCH_OP("fetch_and_and", "bitwise-and `v` into the integer")
#define BCLPY_DOC_FETCH_AND_XOR BCLPY_DOC_FETCH_OP("fetch_and_xor", "bitwise-xor `v` into the integer")
#define BCLPY_DOC_ATOMIC_SWAP   BCLPY_DOC_FETCH_OP("atomic_swap", "replace the integer by `v`")

#define BCLPY_DOC_ATOMIC_LOAD \
    "atomic_load(ptr)\n--\n\n" \
    "Atomically read the 32- or 64-bit integer at `ptr` (consistent with the\n" \
    "fetch-and-ops and compare_and_swap) and return it.  TypeError for other\n" \
    "dtypes.  Not collective."

#define BCLPY_DOC_ATOMIC_STORE \
    "atomic_store(ptr, v)\n--\n\n" \
    "Atomically write `v` to the 32- or 64-bit integer at `ptr`.  Returns\n" \
    "None.  TypeError for other dtypes, OverflowError if v does not fit.\n" \
    "Not collective."

#define BCLPY_DOC_COMPARE_AND_SWAP \
    "compare_and_swap(ptr, expected, desired)\n--\n\n" \
    "Atomically: if the integer at `ptr` equals `expected`, replace it by\n" \
    "`desired`.  Returns the old value (the swap happened iff it equals\n" \
    "expected).  32- and 64-bit integer dtypes only (TypeError otherwise).\n" \
    "Not collective."

#define BCLPY_DOC_BYTES_IN_USE \
    "bytes_in_use()\n--\n\n" \
    "Return the bytes currently allocated in this rank's segment (by alloc()\n" \
    "and by the containers).  Local."

#endif /* BCLPY_DOC_OPS_H */
