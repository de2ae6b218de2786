/*
 * docstrings/array.h -- docstrings of DArray and Array (array_py.c); both
 * types share one method table.
 */
#ifndef BCLPY_DOC_ARRAY_H
#define BCLPY_DOC_ARRAY_H

#define BCLPY_DOC_DARRAY \
    "DArray(size, dtype='int64')\n" \
    "--\n" \
    "\n" \
    "A 1-D array of `size` elements of a fixed-size dtype, distributed\n" \
    "block-wise over the ranks.  Zero-initialised.\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked).  ``a[i]``,\n" \
    "``a[i] = v``, ``a[i:j]``, ``a[i:j] = array`` and ``len(a)`` reach any\n" \
    "rank's block; ``np.asarray(a)`` gathers the whole array (collective);\n" \
    "``for x in a`` yields its elements.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "size : int\n" \
    "    Number of elements (non-negative).\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype (e.g. 'int64', 'float64', 'S16', a\n" \
    "    structured dtype).\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, ValueError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "IndexError\n" \
    "    Indexing out of range.\n" \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for this rank's block.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> a = pybcl.DArray(1000, dtype=\"float64\")\n" \
    ">>> a.local()[:] = pybcl.rank()\n" \
    ">>> pybcl.barrier()\n" \
    ">>> whole = np.asarray(a)"

#define BCLPY_DOC_ARRAY \
    "Array(host, size, dtype='int64')\n" \
    "--\n" \
    "\n" \
    "A 1-D array of `size` elements held entirely by rank `host`, accessible\n" \
    "from every rank (``a[i]``, ``a[i:j]``, ``np.asarray(a)``, iteration).\n" \
    "Zero-initialised.  Collective constructor (agreeing arguments checked).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "host : int\n" \
    "    Rank holding the array, in [0, nprocs).\n" \
    "size : int\n" \
    "    Number of elements (non-negative).\n" \
    "dtype : dtype-like, optional\n" \
    "    A fixed-size NumPy dtype.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, ValueError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "pybcl.SegmentFull\n" \
    "    When the host's segment has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> a = pybcl.Array(0, 16)\n" \
    ">>> a[3] = 7\n" \
    ">>> list(a)[3]\n" \
    "np.int64(7)"

#define BCLPY_DOC_ARR_OWNER \
    "owner($self, i)\n" \
    "--\n" \
    "\n" \
    "The rank holding element `i` (no communication).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "i : int\n" \
    "    An index; negative counts from the end.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "IndexError\n" \
    "    Out of range.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> a.owner(0)\n" \
    "0"

#define BCLPY_DOC_ARR_PTR \
    "ptr($self, i)\n" \
    "--\n" \
    "\n" \
    "A GlobalPtr to element `i`.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "i : int\n" \
    "    An index; negative counts from the end.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "pybcl.GlobalPtr\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "IndexError\n" \
    "    Out of range.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> p = a.ptr(0)"

#define BCLPY_DOC_ARR_LOCAL \
    "local($self, /)\n" \
    "--\n" \
    "\n" \
    "A NumPy view (no copy) of this rank's elements: its block of a DArray,\n" \
    "or the whole Array on its host.  Local stores and remote accesses are\n" \
    "ordered only by barriers.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray\n" \
    "    Writable, in this rank's segment.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    For an Array, on a rank other than its host.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> a.local()[:] = 1"

#define BCLPY_DOC_ARR_LOCAL_RANGE \
    "local_range($self, /)\n" \
    "--\n" \
    "\n" \
    "The global indices of this rank's elements.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "tuple of int\n" \
    "    (start, stop).\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> start, stop = a.local_range()"

#define BCLPY_DOC_ARR_ARRAY \
    "__array__($self, /, dtype=None, copy=None)\n" \
    "--\n" \
    "\n" \
    "The whole array as a new NumPy array: what ``np.asarray(a)`` and\n" \
    "``np.array(a)`` call.  Collective for a DArray (every rank gets every\n" \
    "element; each rank's earlier writes are seen); for an Array, one read\n" \
    "from its host.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "dtype : dtype-like, optional\n" \
    "    Cast the result to it.\n" \
    "copy : bool or None, optional\n" \
    "    False raises ValueError (the elements always have to be copied).\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    For copy=False.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> x = np.asarray(a)"

#endif /* BCLPY_DOC_ARRAY_H */
