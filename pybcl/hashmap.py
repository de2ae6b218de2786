"""HashMap and HashMapBuffer: BCL's distributed hash table (paper 5.1, 5.3).

The classes live in C (pybcl._core); this module only documents them and
adds the pieces that are naturally Python (context manager of the buffer).
Every hot method -- insert, find, m[k], k in m, accumulate, the *_many
batches -- is the C method itself, with no Python frame in between.
"""
from types import TracebackType
from typing import Literal, Optional

from . import _core

HashMap = _core.HashMap


class HashMapBuffer(_core.HashMapBuffer):
    """HashMapBuffer(hashmap, queue_size, message_size): BCL's aggregated
    inserts (collective constructor).  insert/accumulate(_many) are buffered
    per owner rank; flush() (collective) puts everything in the map.  As a
    context manager it flushes on a normal exit (not after an exception:
    flush is collective and the other ranks may not get there)."""

    __slots__ = ()

    def __enter__(self) -> "HashMapBuffer":
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        if exc_type is None:
            self.flush()
        return False
