/*
 * docstrings/globalptr.h -- docstrings of GlobalPtr (globalptr.c).
 */
#ifndef BCLPY_DOC_GLOBALPTR_H
#define BCLPY_DOC_GLOBALPTR_H

#define BCLPY_DOC_GLOBALPTR \
    "GlobalPtr(rank, offset, dtype='int64')\n--\n\n" \
    "A typed pointer into rank `rank`'s shared segment, `offset` bytes from\n" \
    "its start (pybcl.alloc() makes them; pybcl.NULL is GlobalPtr(0, 0)).\n\n" \
    "p + n, p - n, p1 - p2 count elements of dtype; ==, hash and bool (the null\n" \
    "pointer is falsy) work as expected.  p[i] / p[i] = v get / put one\n" \
    "element of any rank's memory, p[i:j] / p[i:j] = array a contiguous range.\n" \
    "GlobalPtrs pickle, broadcast and can be stored inside containers."

#define BCLPY_DOC_GPTR_LOCAL \
    "local($self, count=None)\n--\n\n" \
    "Return a NumPy view (no copy) of `count` elements of this rank's memory\n" \
    "at the pointer; count defaults to the rest of the allocated block.\n" \
    "Raises ValueError if the pointer is remote or null or the range leaves\n" \
    "the segment.  Local accesses and remote ones are ordered by barriers."

#define BCLPY_DOC_GPTR_SETSTATE \
    "__setstate__($self, state, /)\n--\n\n" \
    "Restore the alloc() block (byte offset, length) a pickled pointer was\n" \
    "bounded by; accesses through it stay inside that block."

#define BCLPY_DOC_GPTR_REDUCE \
    "__reduce__($self, /)\n--\n\n" \
    "Pickle support: (GlobalPtr, (rank, offset, dtype)), plus the state\n" \
    "(block offset, block bytes) of a pointer that knows its alloc() block."

#endif /* BCLPY_DOC_GLOBALPTR_H */
