/*
 * docstrings/lifetime.h -- close() and the context-manager methods every
 * container shares (lifetime_py.c).
 */
#ifndef BCLPY_DOC_LIFETIME_H
#define BCLPY_DOC_LIFETIME_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_CLOSE \
    BCLPY_SIG("close($self, /)") \
    "Collective: free the container's storage on every rank at once.  Every\n" \
    "rank must call it (a call on some ranks only raises on every rank).\n" \
    "Idempotent; any later use raises ValueError naming the container.\n" \
    "Without close(), dropping the last reference frees nothing another rank\n" \
    "may still use: the storage is reclaimed once every rank has dropped it.\n" \
    BCLPY_RAISES \
    "ValueError, pybcl.Error\n" \
    "    The ranks are not all closing this container: another container\n" \
    "    (ValueError) or another collective call (pybcl.Error), on every rank.\n" \
    BCLPY_EXAMPLES \
    ">>> m = pybcl.HashMap(64)\n" \
    ">>> m.close()\n" \
    ">>> m.find(1)\n" \
    "Traceback (most recent call last):\n" \
    "    ...\n" \
    "ValueError: operation on a closed HashMap"

#define BCLPY_DOC_ENTER \
    "__enter__($self, /)\n--\n\n" \
    "Return the container itself (`with pybcl.HashMap(...) as m:`)."

#define BCLPY_DOC_EXIT \
    "__exit__($self, exc_type, exc, tb, /)\n--\n\n" \
    "Collective on a normal exit: close() the container.  After an exception\n" \
    "it is left open (close() is collective and the other ranks may not get\n" \
    "there); it is reclaimed once every rank has dropped it."

#endif /* BCLPY_DOC_LIFETIME_H */
