"""Saving and loading containers, and reading saved files without MPI.

``c.save(path, meta=None)`` (every container, collective) writes a
container to one file; ``pybcl.load(path)`` (collective) makes it again at
any rank count.  ``read(path)`` and ``info(path)`` read such a file in any
Python process -- no ``mpiexec``, and pybcl's runtime is not started (MPI
is never initialised) -- so pandas, Arrow or a notebook can take it from
there::

    keys, counts = pybcl.io.read("counts.pybcl")
    df = pandas.DataFrame({"kmer": keys, "count": counts})

The file format (docs/saving.md) is read by one reader in C, which
``load``, ``read`` and ``info`` share; this module only turns the file's
info block into types and containers.
"""
import functools
import os
from typing import Any, Union

import numpy as np

from . import _core

PathLike = Union[str, "os.PathLike[str]"]

_VAR_TYPES = {"bytes": bytes, "str": str, "object": object}


def _spec(t: Any) -> dict[str, Any]:
    """An element type as the file stores it (docs/saving.md, "Types")."""
    if t in (bytes, str, object):
        return {"var": t.__name__}
    d = np.dtype(t)
    if d.subdtype is not None:
        base, shape = d.subdtype
        return {"dtype": np.lib.format.dtype_to_descr(base), "shape": list(shape)}
    return {"dtype": np.lib.format.dtype_to_descr(d)}


def _fields(descr: Any) -> Any:
    """A descr read back from msgpack (lists) as NumPy wants it (tuples)."""
    if isinstance(descr, str):
        return descr
    return [(f[0], _fields(f[1])) + ((tuple(f[2]),) if len(f) > 2 else ()) for f in descr]


def _type(spec: Any, what: str, where: str) -> Any:
    """The element type a stored spec names; ValueError naming the file."""
    try:
        if "var" in spec:
            return _VAR_TYPES[spec["var"]]
        d = np.lib.format.descr_to_dtype(_fields(spec["dtype"]))
        return np.dtype((d, tuple(spec["shape"]))) if "shape" in spec else d
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ValueError(f"{where}: damaged pybcl file: its {what} {spec!r} is not an "
                         f"element type ({e})") from None


_TYPE_KEYS = ("key_type", "value_type", "dtype")


def _with_types(d: dict[str, Any], where: str) -> dict[str, Any]:
    for key in _TYPE_KEYS:
        if key in d:
            d[key] = _type(d[key], key, where)
    return d


def _kind(c: Any) -> str:
    for cls in (_core.HashMap, _core.DArray, _core.Array, _core.BloomFilter,
                _core.FastQueue, _core.CircularQueue):
        if isinstance(c, cls):
            return cls.__name__
    raise TypeError(f"{type(c).__name__} is not a pybcl container")


def _describe(c: Any, meta: Any) -> bytes:
    """The info block c.save() writes: kind-specific sizes and types, the
    user's meta and the pybcl version (the C side adds kind, entries and
    ranks from the file's header)."""
    from . import __version__
    kind = _kind(c)
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict or None, not {type(meta).__name__}")
    if kind == "HashMap":
        d = {"capacity": c.capacity, "key_type": _spec(c.key_type),
             "value_type": _spec(c.value_type)}
    elif kind == "DArray":
        d = {"size": c.size, "dtype": _spec(c.dtype)}
    elif kind == "Array":
        d = {"host": c.host, "size": c.size, "dtype": _spec(c.dtype)}
    elif kind == "BloomFilter":
        d = {"expected_items": c.expected_items, "fpr": c.fpr, "k": c.k, "nwords": c.nwords,
             "key_type": _spec(c.key_type), "word_dtype": np.dtype(np.uint64).str}
    else:
        d = {"host": c.host, "capacity": c.capacity, "dtype": _spec(c.dtype)}
    d["meta"] = meta
    d["version"] = __version__
    try:
        return _core.packb(d)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"meta is not msgpack-able: {e}") from None


def _make(path: PathLike, info: dict[str, Any]) -> Any:
    """Collective: the empty container the file at `path` describes, on this
    job's ranks."""
    from .hashmap import HashMap
    d = _with_types(dict(info), os.fspath(path))
    kind, n = d["kind"], _core.nprocs()
    host = d.get("host", 0)
    host = host if isinstance(host, int) and 0 <= host < n else 0   # the same, or rank 0
    if kind == "HashMap":
        capacity = max(int(d["capacity"]), 2 * int(d["entries"]), 1)
        return HashMap(capacity, key_type=d["key_type"], value_type=d["value_type"])
    if kind == "DArray":
        return _core.DArray(d["size"], dtype=d["dtype"])
    if kind == "Array":
        return _core.Array(host, d["size"], dtype=d["dtype"])
    if kind == "BloomFilter":
        return _core.BloomFilter(d["expected_items"], fpr=d["fpr"], key_type=d["key_type"])
    cls = _core.FastQueue if kind == "FastQueue" else _core.CircularQueue
    return cls(host, max(int(d["capacity"]), int(d["entries"]), 1), dtype=d["dtype"])


def load(path: PathLike) -> Any:
    """Collective: the container saved at `path`, spread over this job's ranks.

    Returns a new container of the saved kind, types and contents, whatever
    the number of ranks that saved it: a map's keys go to their owners under
    this job's rank count (capacity: the saved one, or twice the entries if
    that is more), a DArray is re-blocked, an Array or queue comes back on
    its host rank (rank 0 if this job has no such rank), a BloomFilter keeps
    its size and bits (no false negative at any rank count).

    Parameters
    ----------
    path : str or os.PathLike
        The same on every rank.

    Raises
    ------
    ValueError
        On every rank, naming the path, when the file is truncated, altered,
        of another format version, or not a pybcl file (a directory: also an
        IsADirectoryError).
    FileNotFoundError, PermissionError
        On every rank.
    pybcl.SegmentFull
        When the container does not fit this job's segments.

    Examples
    --------
    >>> counts = pybcl.load("counts.pybcl")
    """
    return _core._io_load(path, functools.partial(_make, path))


def info(path: PathLike) -> dict[str, Any]:
    """What a saved file holds, read in this process without MPI.

    Returns
    -------
    dict
        ``kind`` ("HashMap", "DArray", "Array", "BloomFilter", "FastQueue",
        "CircularQueue"), its types (``key_type`` and ``value_type``, or
        ``dtype``; a NumPy dtype or bytes/str/object), ``entries`` (keys,
        elements, or a filter's 64-bit words), ``ranks`` (how many saved
        it), ``version`` (of the pybcl that saved it), ``format_version``,
        ``meta`` (as saved, or None), and the kind's sizes: ``capacity``,
        ``size``, ``host``, ``expected_items``, ``fpr``, ``k``, ``nwords``.

    Raises
    ------
    ValueError, FileNotFoundError, PermissionError
        As ``pybcl.load``.

    Examples
    --------
    >>> pybcl.io.info("counts.pybcl")["meta"]["k"]
    31
    """
    return _with_types(_core._io_info(path), os.fspath(path))


def _column(col: Any, t: Any) -> Any:
    if isinstance(col, list):
        return col
    d = np.dtype(t)
    base, shape = d.subdtype if d.subdtype is not None else (d, ())
    return col.view(base).reshape((-1,) + tuple(shape))


def read(path: PathLike) -> Any:
    """A saved container's contents, read in this process without MPI.

    Every part of the file is checked against its checksum first.

    Returns
    -------
    HashMap
        ``(keys, values)``: NumPy arrays for fixed-size types, lists
        otherwise; rank 0's entries first.
    DArray, Array
        One NumPy array.
    FastQueue, CircularQueue
        Its elements in FIFO order (an array, or a list).
    BloomFilter
        A dict: ``expected_items``, ``fpr``, ``k``, ``nwords``, ``key_type``
        and ``bits`` (the ``nwords`` 64-bit words, uint64).

    Raises
    ------
    ValueError, FileNotFoundError, PermissionError
        As ``pybcl.load``.

    Examples
    --------
    >>> keys, counts = pybcl.io.read("counts.pybcl")
    >>> df = pandas.DataFrame({"kmer": keys, "count": counts})
    """
    d, cols = _core._io_read(path)
    d = _with_types(d, os.fspath(path))
    kind = d["kind"]
    if kind == "HashMap":
        return _column(cols[0], d["key_type"]), _column(cols[1], d["value_type"])
    if kind == "BloomFilter":
        return {"expected_items": d["expected_items"], "fpr": d["fpr"], "k": d["k"],
                "nwords": d["nwords"], "key_type": d["key_type"],
                "bits": cols[0].view(d["word_dtype"])}
    return _column(cols[0], d["dtype"])


NotAFileError = _core._io_configure(_describe)
