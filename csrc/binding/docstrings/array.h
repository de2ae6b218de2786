/*
 * docstrings/array.h -- docstrings of DArray and Array (array_py.c); both
 * types share one method table.
 */
#ifndef BCLPY_DOC_ARRAY_H
#define BCLPY_DOC_ARRAY_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_DARRAY \
    BCLPY_SIG("DArray(size, dtype='int64')") \
    "A 1-D array of `size` elements of a fixed-size dtype, distributed\n" \
    "block-wise over the ranks.  Zero-initialised.\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked).  ``a[i]``,\n" \
    "``a[i] = v``, ``a[i:j]``, ``a[i:j] = array`` and ``len(a)`` reach any\n" \
    "rank's block; ``np.asarray(a)`` gathers the whole array (collective);\n" \
    "``for x in a`` yields its elements.\n" \
    BCLPY_PARAMETERS \
    "size : int\n" \
    "    Number of elements (non-negative).\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype (e.g. 'int64', 'float64', 'S16', a\n" \
    "    structured dtype).\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("TypeError, ValueError") \
    "IndexError\n" \
    "    Indexing out of range.\n" \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for this rank's block.\n" \
    BCLPY_EXAMPLES \
    ">>> a = pybcl.DArray(1000, dtype=\"float64\")\n" \
    ">>> a.local()[:] = pybcl.rank()\n" \
    ">>> pybcl.barrier()\n" \
    ">>> whole = np.asarray(a)"
#define BCLPY_ARGS_DARRAY { "size", "dtype" }

#define BCLPY_DOC_ARRAY \
    BCLPY_SIG("Array(host, size, dtype='int64')") \
    "A 1-D array of `size` elements held entirely by rank `host`, accessible\n" \
    "from every rank (``a[i]``, ``a[i:j]``, ``np.asarray(a)``, iteration).\n" \
    "Zero-initialised.  Collective constructor (agreeing arguments checked).\n" \
    BCLPY_PARAMETERS \
    "host : int\n" \
    "    Rank holding the array, in [0, nprocs).\n" \
    "size : int\n" \
    "    Number of elements (non-negative).\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype.\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("TypeError, ValueError") \
    "pybcl.SegmentFull\n" \
    "    When the host's segment has no room.\n" \
    BCLPY_EXAMPLES \
    ">>> a = pybcl.Array(0, 16)\n" \
    ">>> a[3] = 7\n" \
    ">>> list(a)[3]\n" \
    "np.int64(7)"
#define BCLPY_ARGS_ARRAY { "host", "size", "dtype" }

#define BCLPY_DOC_ARR_OWNER \
    BCLPY_SIG("owner($self, i)") \
    "The rank holding element `i` (no communication).\n" \
    BCLPY_PARAMETERS \
    "i : int\n" \
    "    An index; negative counts from the end.\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_RAISES \
    "IndexError\n" \
    "    Out of range.\n" \
    BCLPY_EXAMPLES \
    ">>> a.owner(0)\n" \
    "0"

#define BCLPY_DOC_ARR_PTR \
    BCLPY_SIG("ptr($self, i)") \
    "A GlobalPtr to element `i`.\n" \
    BCLPY_PARAMETERS \
    "i : int\n" \
    "    An index; negative counts from the end.\n" \
    BCLPY_RETURNS \
    "pybcl.GlobalPtr\n" \
    BCLPY_RAISES \
    "IndexError\n" \
    "    Out of range.\n" \
    BCLPY_EXAMPLES \
    ">>> p = a.ptr(0)"

#define BCLPY_DOC_ARR_LOCAL \
    BCLPY_SIG("local($self, /)") \
    "A NumPy view (no copy) of this rank's elements: its block of a DArray,\n" \
    "or the whole Array on its host.  Local stores and remote accesses are\n" \
    "ordered only by barriers.\n" \
    BCLPY_RETURNS \
    "numpy.ndarray\n" \
    "    Writable, in this rank's segment.\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    For an Array, on a rank other than its host.\n" \
    BCLPY_EXAMPLES \
    ">>> a.local()[:] = 1"

#define BCLPY_DOC_ARR_LOCAL_RANGE \
    BCLPY_SIG("local_range($self, /)") \
    "The global indices of this rank's elements.\n" \
    BCLPY_RETURNS \
    "tuple of int\n" \
    "    (start, stop).\n" \
    BCLPY_EXAMPLES \
    ">>> start, stop = a.local_range()"

#define BCLPY_DOC_ARR_ARRAY \
    BCLPY_SIG("__array__($self, /, dtype=None, copy=None)") \
    "The whole array as a new NumPy array: what ``np.asarray(a)`` and\n" \
    "``np.array(a)`` call.  Collective for a DArray (every rank gets every\n" \
    "element; each rank's earlier writes are seen); for an Array, one read\n" \
    "from its host.\n" \
    BCLPY_PARAMETERS \
    "dtype : dtype-like, optional\n" \
    "    Cast the result to it.\n" \
    "copy : bool or None, optional\n" \
    "    False raises ValueError (the elements always have to be copied).\n" \
    BCLPY_RETURNS \
    "numpy.ndarray\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    For copy=False.\n" \
    BCLPY_EXAMPLES \
    ">>> x = np.asarray(a)"
#define BCLPY_ARGS_ARR_ARRAY { "dtype", "copy" }

#endif /* BCLPY_DOC_ARRAY_H */
