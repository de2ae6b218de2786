"""HashMap and HashMapBuffer: BCL's distributed hash table (paper 5.1, 5.3).

The classes live in C (pybcl._core); this module only documents them and
adds the pieces that are naturally Python (context manager of the buffer).
Every hot method -- insert, find, m[k], k in m, accumulate, the *_many
batches -- is the C method itself, with no Python frame in between.
"""
from types import TracebackType
from typing import Any, Iterator, Literal, Optional

from . import _core


class HashMap(_core.HashMap):
    """HashMap(capacity, key_type="int64", value_type="int64"): BCL's
    distributed hash table (collective constructor).

    Every method but the whole-map views below is the C method itself.

    Whole-map views are *collective*: every rank must call them, in the same
    order, and each gets every rank's share (rank 0's entries first):
    ``len(m)`` (= ``m.size()``), ``iter(m)`` (the keys), ``m.keys()``,
    ``m.values()``, ``m.items()``.  They begin with a barrier, so they see
    every operation issued before it, and they materialise the whole map on
    every rank: for large maps iterate ``m.local_items()`` (this rank's share,
    not collective) after a barrier instead.

    The class is *not* registered as a ``collections.abc.Mapping``: generic
    code assumes ``len()`` and iteration are cheap and local, and calling
    them on some ranks only would hang the job.  ``key in m`` and ``m[key]``
    are not collective (it is a ``collections.abc.Container``).
    """

    __slots__ = ()

    def items(self) -> list[tuple[Any, Any]]:
        """Collective: a list of every (key, value) pair of the map."""
        from . import _runtime
        _core.barrier()
        out: list[tuple[Any, Any]] = []
        for share in _runtime.comm().allgather(self.local_items()):
            out.extend(share)
        return out

    def keys(self) -> list[Any]:
        """Collective: a list of every key of the map."""
        return [k for k, _ in self.items()]

    def values(self) -> list[Any]:
        """Collective: a list of every value of the map."""
        return [v for _, v in self.items()]

    def __iter__(self) -> Iterator[Any]:
        """Collective: iterate over every key of the map."""
        return iter(self.keys())


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
