/*
 * docstrings/array_update.h -- docstrings of DArray/Array.update_many and
 * DArrayBuffer (array_update_py.c).
 */
#ifndef BCLPY_DOC_ARRAY_UPDATE_H
#define BCLPY_DOC_ARRAY_UPDATE_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_ARR_UPDATE_MANY \
    "update_many($self, indices, values, op='add')\n--\n\n" \
    "Apply `op` to the elements at `indices` with `values` (an array of the\n" \
    "same length, or one value for all), one atomic update per element:\n" \
    "op is 'add', 'xor', 'or', 'and', 'replace', 'min' or 'max' (float\n" \
    "arrays: all but the bitwise ones; unsigned ones: all but 'min' and\n" \
    "'max'); 'min' / 'max' keep the smaller / larger of the element and the\n" \
    "value, compared as the array's dtype.\n" \
    "Updates are grouped by owner in C (one batched accumulate per owner)\n" \
    "and complete on return; concurrent updates of the same elements from\n" \
    "any rank are never lost.  Several updates of one element in one call\n" \
    "combine (replace: the last one wins).  Negative indices count from the\n" \
    "end.\n" \
    BCLPY_PARAMETERS \
    "indices : array_like of int\n" \
    "    Element indices (negative: from the end).\n" \
    "values : array_like or scalar\n" \
    "    One operand per index, or one for all.\n" \
    "op : {'add', 'xor', 'or', 'and', 'replace', 'min', 'max'}, default 'add'\n" \
    BCLPY_RAISES \
    "IndexError\n" \
    "    An index out of range (nothing is applied then).\n" \
    "TypeError\n" \
    "    A dtype or op that does not fit the array.\n" \
    "ValueError\n" \
    "    Unequal lengths or an unknown op.\n" \
    BCLPY_EXAMPLES \
    ">>> a = pybcl.DArray(1 << 20, dtype='uint64')\n" \
    ">>> a.update_many(np.array([3, 7, 3]), np.array([1, 2, 4], dtype=np.uint64), op='xor')"
#define BCLPY_ARGS_ARR_UPDATE_MANY { "indices", "values", "op" }

#define BCLPY_DOC_DARRAYBUFFER \
    "DArrayBuffer(array, message_size, op='add')\n--\n\n" \
    "Aggregated updates of a DArray or Array (collective constructor).\n" \
    "update_many(indices, values) buffers updates per owner rank and ships\n" \
    "each full buffer of `message_size` updates to its owner's queue in one\n" \
    "message; flush() (collective) ships the rest and every owner applies the\n" \
    "updates it received to its own block with local operations, so that\n" \
    "afterwards every update buffered on any rank is visible.  An owner's\n" \
    "full queue is never an error: those updates are applied atomically at\n" \
    "once.  `op` as for DArray.update_many; the order of buffered updates is\n" \
    "not kept (with 'replace', which of two values of one element wins is\n" \
    "unspecified).  A context manager that flushes on a normal exit.\n" \
    BCLPY_PARAMETERS \
    "array : pybcl.DArray or pybcl.Array\n" \
    "message_size : int\n" \
    "    Updates buffered per owner before they are shipped.\n" \
    "op : {'add', 'xor', 'or', 'and', 'replace', 'min', 'max'}, default 'add'\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("TypeError, ValueError") \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room for the queues.\n" \
    BCLPY_EXAMPLES \
    ">>> t = pybcl.DArray(1 << 20, dtype='uint64')\n" \
    ">>> with pybcl.DArrayBuffer(t, 1024, op='xor') as buf:\n" \
    "...     buf.update_many(idx, vals)"
#define BCLPY_ARGS_DARRAYBUFFER { "array", "message_size", "op" }

#define BCLPY_DOC_DB_UPDATE_MANY \
    "update_many($self, indices, values)\n--\n\n" \
    "Buffer updates of the elements at `indices` with `values` (an array of\n" \
    "the same length, or one value for all); applied by flush() at the\n" \
    "latest.\n" \
    BCLPY_PARAMETERS \
    "indices : array_like of int\n" \
    "values : array_like or scalar\n" \
    BCLPY_RAISES \
    "IndexError\n" \
    "    An index out of range (nothing is buffered).\n" \
    BCLPY_EXAMPLES \
    ">>> buf.update_many(np.array([5, 9]), 1)"
#define BCLPY_ARGS_DB_UPDATE_MANY { "indices", "values" }

#define BCLPY_DOC_DB_FLUSH \
    "flush($self, /)\n--\n\n" \
    "Collective: ship the buffered updates of every rank to their owners,\n" \
    "which apply them; afterwards all are visible to every rank.\n" \
    BCLPY_EXAMPLES \
    ">>> buf.flush()"

#endif /* BCLPY_DOC_ARRAY_UPDATE_H */
