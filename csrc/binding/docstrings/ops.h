/*
 * docstrings/ops.h -- docstrings of the global-pointer operations (ops.c).
 */
#ifndef BCLPY_DOC_OPS_H
#define BCLPY_DOC_OPS_H

#define BCLPY_DOC_ALLOC \
    "alloc(count, dtype='int64')\n" \
    "--\n" \
    "\n" \
    "Allocate `count` elements of `dtype` in this rank's shared segment (not\n" \
    "zeroed).  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "count : int\n" \
    "    Number of elements (positive).\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "pybcl.GlobalPtr\n" \
    "    Owned by this rank.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "pybcl.SegmentFull\n" \
    "    When the segment has no room.\n" \
    "TypeError, ValueError\n" \
    "    For a bad count or dtype.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> p = pybcl.alloc(100, dtype=\"float64\")"

#define BCLPY_DOC_FREE \
    "free(ptr)\n" \
    "--\n" \
    "\n" \
    "Free memory this rank allocated with alloc().  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    For a remote, null or unknown pointer.\n" \
    "TypeError\n" \
    "    If `ptr` is not a GlobalPtr.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.free(pybcl.alloc(8))"

#define BCLPY_DOC_RGET \
    "rget(ptr, count)\n" \
    "--\n" \
    "\n" \
    "Read `count` elements starting at `ptr` (any rank's memory).  Blocking;\n" \
    "not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "count : int\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray\n" \
    "    A new array of ptr.dtype.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    If the range leaves the owner's segment.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> x = pybcl.rget(p, 10)"

#define BCLPY_DOC_RPUT \
    "rput(ptr, array)\n" \
    "--\n" \
    "\n" \
    "Write `array` to consecutive elements starting at `ptr`.  Not\n" \
    "collective.  The write may still be in flight on return: it is complete\n" \
    "at the target after flush() or barrier().\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "array : array_like\n" \
    "    Any buffer-protocol object or sequence, converted to ptr.dtype.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    If the range leaves the owner's segment.\n" \
    "TypeError\n" \
    "    If `array` does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.rput(p, np.zeros(10))\n" \
    ">>> pybcl.flush()"

#define BCLPY_DOC_FETCH_AND_ADD \
    "fetch_and_add(ptr, v)\n" \
    "--\n" \
    "\n" \
    "Atomically add `v` to the integer at `ptr` and return the old value.  Consistent with\n" \
    "every other atomic on the same word, from any rank.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "v : int\n" \
    "    Must fit the integer type.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "    The value before the operation.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If ptr.dtype is not a 32- or 64-bit integer.\n" \
    "OverflowError\n" \
    "    If `v` does not fit it.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> c = pybcl.alloc(1)\n" \
    ">>> c[0] = 0\n" \
    ">>> pybcl.fetch_and_add(c, 1)\n" \
    "0"

#define BCLPY_DOC_FETCH_AND_OR \
    "fetch_and_or(ptr, v)\n" \
    "--\n" \
    "\n" \
    "Atomically bitwise-or `v` into the integer at `ptr` and return the old value.  Consistent with\n" \
    "every other atomic on the same word, from any rank.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "v : int\n" \
    "    Must fit the integer type.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "    The value before the operation.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If ptr.dtype is not a 32- or 64-bit integer.\n" \
    "OverflowError\n" \
    "    If `v` does not fit it.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> c = pybcl.alloc(1)\n" \
    ">>> c[0] = 0\n" \
    ">>> pybcl.fetch_and_or(c, 4)\n" \
    "0"

#define BCLPY_DOC_FETCH_AND_AND \
    "fetch_and_and(ptr, v)\n" \
    "--\n" \
    "\n" \
    "Atomically bitwise-and `v` into the integer at `ptr` and return the old value.  Consistent with\n" \
    "every other atomic on the same word, from any rank.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "v : int\n" \
    "    Must fit the integer type.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "    The value before the operation.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If ptr.dtype is not a 32- or 64-bit integer.\n" \
    "OverflowError\n" \
    "    If `v` does not fit it.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> c = pybcl.alloc(1)\n" \
    ">>> c[0] = 0\n" \
    ">>> pybcl.fetch_and_and(c, 1)\n" \
    "0"

#define BCLPY_DOC_FETCH_AND_XOR \
    "fetch_and_xor(ptr, v)\n" \
    "--\n" \
    "\n" \
    "Atomically bitwise-xor `v` into the integer at `ptr` and return the old value.  Consistent with\n" \
    "every other atomic on the same word, from any rank.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "v : int\n" \
    "    Must fit the integer type.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "    The value before the operation.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If ptr.dtype is not a 32- or 64-bit integer.\n" \
    "OverflowError\n" \
    "    If `v` does not fit it.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> c = pybcl.alloc(1)\n" \
    ">>> c[0] = 0\n" \
    ">>> pybcl.fetch_and_xor(c, 3)\n" \
    "0"

#define BCLPY_DOC_ATOMIC_SWAP \
    "atomic_swap(ptr, v)\n" \
    "--\n" \
    "\n" \
    "Atomically replace the integer by `v` at `ptr` and return the old value.  Consistent with\n" \
    "every other atomic on the same word, from any rank.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "v : int\n" \
    "    Must fit the integer type.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "    The value before the operation.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    If ptr.dtype is not a 32- or 64-bit integer.\n" \
    "OverflowError\n" \
    "    If `v` does not fit it.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> c = pybcl.alloc(1)\n" \
    ">>> c[0] = 0\n" \
    ">>> pybcl.atomic_swap(c, 9)\n" \
    "0"

#define BCLPY_DOC_ATOMIC_LOAD \
    "atomic_load(ptr)\n" \
    "--\n" \
    "\n" \
    "Atomically read the 32- or 64-bit integer at `ptr` (consistent with the\n" \
    "fetch-and-ops and compare_and_swap).  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For other dtypes.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.atomic_load(c)\n" \
    "0"

#define BCLPY_DOC_ATOMIC_STORE \
    "atomic_store(ptr, v)\n" \
    "--\n" \
    "\n" \
    "Atomically write `v` to the 32- or 64-bit integer at `ptr`.  Not\n" \
    "collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "v : int\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For other dtypes.\n" \
    "OverflowError\n" \
    "    If `v` does not fit.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.atomic_store(c, 5)"

#define BCLPY_DOC_COMPARE_AND_SWAP \
    "compare_and_swap(ptr, expected, desired)\n" \
    "--\n" \
    "\n" \
    "Atomically: if the integer at `ptr` equals `expected`, replace it by\n" \
    "`desired`.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "ptr : pybcl.GlobalPtr\n" \
    "    To a 32- or 64-bit integer.\n" \
    "expected, desired : int\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "    The old value (the swap happened iff it equals `expected`).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError\n" \
    "    For other dtypes.\n" \
    "OverflowError\n" \
    "    If a value does not fit.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.compare_and_swap(c, 0, 1)\n" \
    "0"

#define BCLPY_DOC_BYTES_IN_USE \
    "bytes_in_use()\n" \
    "--\n" \
    "\n" \
    "The bytes currently allocated in this rank's segment (by alloc() and by\n" \
    "the containers).  Local.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl._core.bytes_in_use() >= 0\n" \
    "True"

#endif /* BCLPY_DOC_OPS_H */
