/*
 * docstrings/globalptr.h -- docstrings of GlobalPtr (globalptr.c).
 */
#ifndef BCLPY_DOC_GLOBALPTR_H
#define BCLPY_DOC_GLOBALPTR_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_GLOBALPTR \
    BCLPY_SIG("GlobalPtr(rank, offset, dtype='int64')") \
    "A typed pointer into rank `rank`'s shared segment, `offset` bytes from\n" \
    "its start (pybcl.alloc() makes them; pybcl.NULL is GlobalPtr(0, 0)).\n" \
    "\n" \
    "``p + n``, ``p - n``, ``p1 - p2`` count elements of dtype; ``==``, hash\n" \
    "and bool (the null pointer is falsy) work as expected.  ``p[i]`` /\n" \
    "``p[i] = v`` get / put one element of any rank's memory, ``p[i:j]`` /\n" \
    "``p[i:j] = array`` a contiguous range.  GlobalPtrs pickle, broadcast\n" \
    "and can be stored inside containers.\n" \
    BCLPY_PARAMETERS \
    "rank : int\n" \
    "offset : int\n" \
    "    Bytes from the start of the segment.\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype.\n" \
    BCLPY_RAISES \
    "TypeError, ValueError\n" \
    "    For a bad argument.\n" \
    BCLPY_EXAMPLES \
    ">>> p = pybcl.alloc(4)\n" \
    ">>> p[0] = 5\n" \
    ">>> p[0]\n" \
    "np.int64(5)"
#define BCLPY_ARGS_GLOBALPTR { "rank", "offset", "dtype" }

#define BCLPY_DOC_GPTR_LOCAL \
    BCLPY_SIG("local($self, count=None)") \
    "A NumPy view (no copy) of `count` elements of this rank's memory at the\n" \
    "pointer.  Local accesses and remote ones are ordered by barriers.\n" \
    BCLPY_PARAMETERS \
    "count : int, optional\n" \
    "    Defaults to the rest of the allocated block.\n" \
    BCLPY_RETURNS \
    "numpy.ndarray\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    If the pointer is remote or null or the range leaves the segment.\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.alloc(4).local()[:] = 0"
#define BCLPY_ARGS_GPTR_LOCAL { "count" }

#define BCLPY_DOC_GPTR_SETSTATE \
    "__setstate__($self, state, /)\n--\n\n" \
    "Restore the alloc() block (byte offset, length) a pickled pointer was\n" \
    "bounded by; accesses through it stay inside that block."

#define BCLPY_DOC_GPTR_REDUCE \
    BCLPY_SIG("__reduce__($self, /)") \
    "Pickle support: (GlobalPtr, (rank, offset, dtype)), plus the state\n" \
    "(block offset, block bytes) of a pointer that knows its alloc() block.\n" \
    BCLPY_RETURNS \
    "tuple\n" \
    BCLPY_EXAMPLES \
    ">>> import pickle\n" \
    ">>> pickle.loads(pickle.dumps(p)) == p\n" \
    "True"

#endif /* BCLPY_DOC_GLOBALPTR_H */
