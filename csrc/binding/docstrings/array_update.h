/*
 * docstrings/array_update.h -- docstrings of DArray/Array.update_many and
 * DArrayBuffer (array_update_py.c).
 */
#ifndef BCLPY_DOC_ARRAY_UPDATE_H
#define BCLPY_DOC_ARRAY_UPDATE_H

#define BCLPY_DOC_ARR_UPDATE_MANY \
    "update_many($self, indices, values, op='add')\n--\n\n" \
    "Apply `op` to the elements at `indices` with `values` (an array of the\n" \
    "same length, or one value for all), one atomic update per element:\n" \
    "op is 'add', 'xor', 'or', 'and' or 'replace' (float arrays: 'add' and\n" \
    "'replace' only).  Updates are grouped by owner in C (one batched\n" \
    "accumulate per owner) and complete on return; concurrent updates of\n" \
    "the same elements from any rank are never lost.  Several updates of one\n" \
    "element in one call combine (replace: the last one wins).  Negative\n" \
    "indices count from the end.  IndexError for an index out of range\n" \
    "(nothing is applied then), TypeError for a dtype or op that does not fit,\n" \
    "ValueError for unequal lengths or an unknown op."

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
    "unspecified).  A context manager that flushes on a normal exit."

#define BCLPY_DOC_DB_UPDATE_MANY \
    "update_many($self, indices, values)\n--\n\n" \
    "Buffer updates of the elements at `indices` with `values` (an array of\n" \
    "the same length, or one value for all); applied by flush() at the\n" \
    "latest.  IndexError for an index out of range (nothing is buffered)."

#define BCLPY_DOC_DB_FLUSH \
    "flush($self, /)\n--\n\n" \
    "Collective: ship the buffered updates of every rank to their owners,\n" \
    "which apply them; afterwards all are visible to every rank."

#endif /* BCLPY_DOC_ARRAY_UPDATE_H */
