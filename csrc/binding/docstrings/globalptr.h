/*
 * docstrings/globalptr.h -- docstrings of GlobalPtr (globalptr.c).
 */
#ifndef BCLPY_DOC_GLOBALPTR_H
#define BCLPY_DOC_GLOBALPTR_H

#define BCLPY_DOC_GLOBALPTR \
    "GlobalPtr(rank, offset, dtype='int64')\n" \
    "--\n" \
    "\n" \
    "A typed pointer into rank `rank`'s shared segment, `offset` bytes from\n" \
    "its start (pybcl.alloc() makes them; pybcl.NULL is GlobalPtr(0, 0)).\n" \
    "\n" \
    "``p + n``, ``p - n``, ``p1 - p2`` count elements of dtype; ``==``, hash\n" \
    "and bool (the null pointer is falsy) work as expected.  ``p[i]`` /\n" \
    "``p[i] = v`` get / put one element of any rank's memory, ``p[i:j]`` /\n" \
    "``p[i:j] = array`` a contiguous range.  GlobalPtrs pickle, broadcast\n" \
    "and can be stored inside containers.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "rank : int\n" \
    "offset : int\n" \
    "    Bytes from the start of the segment.\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, ValueError\n" \
    "    For a bad argument.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> p = pybcl.alloc(4)\n" \
    ">>> p[0] = 5\n" \
    ">>> p[0]\n" \
    "np.int64(5)"

#define BCLPY_DOC_GPTR_LOCAL \
    "local($self, count=None)\n" \
    "--\n" \
    "\n" \
    "A NumPy view (no copy) of `count` elements of this rank's memory at the\n" \
    "pointer.  Local accesses and remote ones are ordered by barriers.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "count : int, optional\n" \
    "    Defaults to the rest of the allocated block.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    If the pointer is remote or null or the range leaves the segment.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.alloc(4).local()[:] = 0"

#define BCLPY_DOC_GPTR_REDUCE \
    "__reduce__($self, /)\n" \
    "--\n" \
    "\n" \
    "Pickle support: (GlobalPtr, (rank, offset, dtype)).\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "tuple\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> import pickle\n" \
    ">>> pickle.loads(pickle.dumps(p)) == p\n" \
    "True"

#endif /* BCLPY_DOC_GLOBALPTR_H */
