/*
 * docstrings/array.h -- docstrings of DArray and Array (array_py.c); both
 * types share one method table.
 */
#ifndef BCLPY_DOC_ARRAY_H
#define BCLPY_DOC_ARRAY_H

#define BCLPY_DOC_DARRAY \
    "DArray(size, dtype='int64')\n--\n\n" \
    "A 1-D array of `size` elements of a fixed-size dtype, distributed\n" \
    "block-wise over the ranks.  Collective constructor (agreeing arguments\n" \
    "checked).  a[i], a[i] = v, a[i:j], a[i:j] = array and len(a) reach any\n" \
    "rank's block; IndexError out of range.  Zero-initialised."

#define BCLPY_DOC_ARRAY \
    "Array(host, size, dtype='int64')\n--\n\n" \
    "A 1-D array of `size` elements held entirely by rank `host`, accessible\n" \
    "from every rank (a[i], a[i:j], ...).  Collective constructor (agreeing\n" \
    "arguments checked).  Zero-initialised."

#define BCLPY_DOC_ARR_OWNER \
    "owner($self, i)\n--\n\n" \
    "Return the rank holding element `i`.  IndexError out of range."

#define BCLPY_DOC_ARR_PTR \
    "ptr($self, i)\n--\n\n" \
    "Return a GlobalPtr to element `i`.  IndexError out of range."

#define BCLPY_DOC_ARR_LOCAL \
    "local($self, /)\n--\n\n" \
    "Return a NumPy view (no copy) of this rank's elements: its block of a\n" \
    "DArray, or the whole Array on its host (ValueError on other ranks).\n" \
    "Local stores and remote accesses are ordered only by barriers."

#define BCLPY_DOC_ARR_LOCAL_RANGE \
    "local_range($self, /)\n--\n\n" \
    "Return (start, stop): the global indices of this rank's elements."

#define BCLPY_DOC_ARR_ARRAY \
    "__array__($self, /, dtype=None, copy=None)\n--\n\n" \
    "The whole array as a new NumPy array: what np.asarray(a) and\n" \
    "np.array(a) call.  Collective for a DArray (every rank gets every\n" \
    "element; each rank's earlier writes are seen); for an Array, one read\n" \
    "from its host.  dtype casts the result; copy=False raises ValueError\n" \
    "(the elements always have to be copied)."

#endif /* BCLPY_DOC_ARRAY_H */
