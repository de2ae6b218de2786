"""Concurrency promises (BCL's ConProm): which operations may run at the same
time as a call, until the next barrier.  A promise lets a container pick the
cheaper implementation of BCL's Tables 3 and 4; no promise means fully atomic.

    m.find(k, promise=pybcl.ConProm.HashMap.find)          # one get
    q.push(x, promise=pybcl.ConProm.CircularQueue.push)    # only pushes now
"""
import enum
from typing import Optional


class _HashMap(enum.IntFlag):
    """Promises for HashMap calls (``pybcl.ConProm.HashMap``): ``find`` (only
    finds run concurrently), ``insert`` (only inserts), ``local`` (only this
    rank's own operations); combine with ``|``.

    Examples
    --------
    >>> m = pybcl.HashMap(1024)
    >>> m.insert(1, 10, promise=pybcl.ConProm.HashMap.insert)
    >>> pybcl.barrier()
    >>> m.find(1, promise=pybcl.ConProm.HashMap.find)
    10
    """
    find = 1
    insert = 2
    local = 4


class _CircularQueue(enum.IntFlag):
    """Promises for CircularQueue calls (``pybcl.ConProm.CircularQueue``):
    ``push`` (only pushes run concurrently), ``pop`` (only pops), ``local``
    (only the host's own operations); combine with ``|``.

    Examples
    --------
    >>> q = pybcl.CircularQueue(0, 100)
    >>> q.push(7, promise=pybcl.ConProm.CircularQueue.push)
    True
    """
    push = 1
    pop = 2
    local = 4


class ConProm:
    """Concurrency promises, as in BCL: ``ConProm.HashMap.find | .insert | .local``
    and ``ConProm.CircularQueue.push | .pop | .local`` (enum.IntFlag values,
    combined with ``|``).  Passed as ``promise=`` to a container call, a flag
    asserts that only those operations run concurrently until the next
    barrier; no promise means fully atomic.

    Examples
    --------
    >>> m = pybcl.HashMap(1024)
    >>> pybcl.barrier()
    >>> m.find(1, promise=pybcl.ConProm.HashMap.find)   # only finds until the barrier
    >>> pybcl.barrier()
    """

    HashMap = _HashMap
    CircularQueue = _CircularQueue


def promise_bits(promise: Optional[enum.IntFlag], flag_type: type[enum.IntFlag],
                 argname: str = "promise") -> int:
    """None -> 0 (fully atomic); a flag of `flag_type` -> its int value."""
    if promise is None:
        return 0
    if not isinstance(promise, flag_type):
        raise TypeError(f"{argname} must be a {flag_type.__qualname__.lstrip('_')} "
                        f"ConProm flag or None, not {promise!r}")
    return int(promise)
