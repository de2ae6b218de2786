"""HashMap and HashMapBuffer: BCL's distributed hash table (paper 5.1, 5.3).

The classes live in C (pybcl._core); this module only documents them and
adds the pieces that are naturally Python (context manager of the buffer).
Every hot method -- insert, find, m[k], k in m, accumulate, the *_many
batches -- is the C method itself, with no Python frame in between.
"""
import pickle
from types import TracebackType
from typing import Any, Iterator, Literal, Optional

import numpy as np

from . import _core


class HashMap(_core.HashMap):
    """HashMap(capacity, key_type="int64", value_type="int64"): BCL's
    distributed hash table: `capacity` buckets spread block-wise over the
    ranks (collective constructor: every rank passes the same arguments).

    Every method but the whole-map views below is the C method itself.
    Keys hash deterministically (XXH64), never with Python's hash().
    ``m[k]``, ``m[k] = v``, ``del m[k]`` and ``k in m`` are find, insert and
    erase without a promise.

    Whole-map views are *collective*: every rank must call them, in the same
    order, and each gets every rank's share (rank 0's entries first):
    ``len(m)`` (= ``m.size()``), ``iter(m)`` (the keys), ``m.keys()``,
    ``m.values()``, ``m.items()``.  They begin with a barrier that checks
    every rank is in the same view of the same map (``pybcl.Error`` on every
    rank otherwise, never a match with another collective or with the
    user's own MPI calls: they run on pybcl's private communicator), so they
    see every operation issued before it, and they materialise the whole map on
    every rank: for large maps iterate ``m.local_items()`` (this rank's share,
    not collective) after a barrier instead.

    The class is *not* registered as a ``collections.abc.Mapping``: generic
    code assumes ``len()`` and iteration are cheap and local, and calling
    them on some ranks only would hang the job.  ``key in m`` and ``m[key]``
    are not collective (it is a ``collections.abc.Container``).

    Parameters
    ----------
    capacity : int
        Number of buckets (positive); a table accepts inserts until it is
        at least half full.
    key_type, value_type : dtype-like or type, optional
        A fixed-size NumPy dtype (stored inline; NumPy fast paths) or bytes,
        str or object (msgpack, stored out of line).

    Raises
    ------
    ValueError, TypeError
        On every rank, for a bad or disagreeing argument.
    pybcl.SegmentFull
        When a segment has no room for this rank's buckets.

    Examples
    --------
    >>> m = pybcl.HashMap(1 << 16, key_type=str, value_type="int64")
    >>> m["apple"] = 3
    >>> pybcl.barrier()
    >>> m.find("apple")
    3
    """

    __slots__ = ()

    def _gather(self, what: str, keys: bool = True, values: bool = True) -> tuple[Any, Any]:
        """Collective: every rank's keys and values (those asked for; None
        for the other), rank 0's first.  A map of fixed-size types travels as
        arrays (local_arrays(), one allgather of bytes each): NumPy arrays
        back.  Other maps travel pickled: lists back."""
        # Agreement first (every rank in `what` on this map, or all raise),
        # then the shares travel on pybcl's own communicator: a user's
        # collective on comm() can never match them.
        self._collective_view(what)
        if isinstance(self.key_type, np.dtype) and isinstance(self.value_type, np.dtype):
            mine = self.local_arrays()
            got = [np.frombuffer(b"".join(_core.allgather_bytes(part.tobytes())),
                                 dtype=part.dtype) if wanted else None
                   for part, wanted in zip(mine, (keys, values))]
            return got[0], got[1]
        everyone = [kv for share in _core.allgather_bytes(
                        pickle.dumps(self.local_items(), protocol=pickle.HIGHEST_PROTOCOL))
                    for kv in pickle.loads(share)]
        return ([k for k, _ in everyone] if keys else None,
                [v for _, v in everyone] if values else None)

    def items(self) -> list[tuple[Any, Any]]:
        """Collective: a list of every (key, value) pair of the map.

        Returns
        -------
        list of tuple
            Rank 0's entries first.

        Examples
        --------
        >>> d = dict(m.items())
        """
        return list(zip(*self._gather("HashMap.items()")))

    def keys(self) -> list[Any]:
        """Collective: a list of every key of the map.

        Returns
        -------
        list

        Examples
        --------
        >>> "apple" in m.keys()
        True
        """
        return list(self._gather("HashMap.keys()", values=False)[0])

    def values(self) -> list[Any]:
        """Collective: a list of every value of the map.

        Returns
        -------
        list

        Examples
        --------
        >>> total = sum(m.values())
        """
        return list(self._gather("HashMap.values()", keys=False)[1])

    def __iter__(self) -> Iterator[Any]:
        """Collective: iterate over every key of the map.

        Returns
        -------
        iterator

        Examples
        --------
        >>> keys = sorted(m)
        """
        return iter(list(self._gather("iter(HashMap)", values=False)[0]))


class HashMapBuffer(_core.HashMapBuffer):
    """HashMapBuffer(hashmap, queue_size, message_size, grow=False): BCL's
    aggregated inserts (collective constructor).  insert/accumulate(_many)
    are buffered per owner rank; flush() (collective) puts everything in the
    map.  As a context manager it flushes on a normal exit (not after an
    exception: flush is collective and the other ranks may not get there).

    Over a map with a ``bytes``/``str``/``object`` key or value type the
    same calls take Python sequences of keys (e.g. a list of words) and
    serialize them in C; each rank combines repeated keys (an accumulate
    adds to the buffered delta, an insert replaces the buffered value) and
    flush() ships the records to their owners in batches (alltoallv), which
    apply them to their own share with plain stores.  The same flush()
    semantics; queue_size and message_size are checked but size nothing.

    Parameters
    ----------
    hashmap : pybcl.HashMap
    queue_size : int
        Capacity, in entries, of the incoming queue each rank hosts.
    message_size : int
        Entries buffered per destination before one push_many.
    grow : bool, default False
        The same on every rank.  True: before the owners apply their
        entries, a flush that would fill some rank's share past half grows
        the map once (``resize``, collective: at least doubling, sized by an
        estimate of the keys new to it); should a share still fill, the flush
        grows it again (to hold every entry at most half full) and goes on
        until every entry is in, instead of raising ContainerFull.  If the
        segment cannot hold the larger map, flush raises SegmentFull on
        every rank and keeps the entries, as after ContainerFull.  The C
        core does all of it, inside flush().

    Raises
    ------
    TypeError, ValueError
        On every rank, for a bad or disagreeing argument.
    pybcl.SegmentFull
        When a segment has no room for the queues.

    Examples
    --------
    >>> m = pybcl.HashMap(1 << 16)
    >>> with pybcl.HashMapBuffer(m, 4096, 256) as buf:
    ...     buf.accumulate_many(np.arange(1000) % 7)
    >>> counts = pybcl.HashMap(16, key_type="uint64")     # far too small: grows
    >>> with pybcl.HashMapBuffer(counts, 4096, 256, grow=True) as buf:
    ...     buf.accumulate_many(np.arange(100_000, dtype=np.uint64))
    """

    __slots__ = ()

    def __enter__(self) -> "HashMapBuffer":
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        if exc_type is None:
            self.flush()
            self.close()
        return False
