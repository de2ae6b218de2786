"""Edge lists for the graph apps: generated (Graph500 Kronecker) or read from
a ``.npy`` file, each rank holding a share; and the memory a run needs.

An edge file is an ``(m, 2)`` array of non-negative integers (any integer
dtype NumPy can save), one edge per row, read with a memory map so that each
rank touches only its rows ``[r * m // P, (r + 1) * m // P)``.  Everything
here runs before pybcl starts, so a bad input costs nothing; the ranks agree
on every verdict (``_cli.agree``).
"""
import os
from typing import Any, Optional

import numpy as np
from numpy.typing import NDArray

from pybcl.apps import _cli, _kronecker

MAX_SCALE = 40          # vertex numbers stay below 2^40 (the BFS packs them in 40 bits)
MAX_VERTICES = 1 << MAX_SCALE


class EdgeFileError(ValueError):
    """An edge file that is not an (m, 2) array of vertex numbers."""


def open_edge_file(path: str) -> NDArray[Any]:
    """The file's (m, 2) integer array, memory-mapped; EdgeFileError (naming
    the path and what is wrong) otherwise."""
    problem = _cli.input_file_problem(path)
    if problem:
        raise EdgeFileError(problem)
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise EdgeFileError(f"{path}: not a NumPy .npy file ({exc})") from None
    if not isinstance(arr, np.ndarray):
        raise EdgeFileError(f"{path}: not a NumPy .npy file (an .npz archive?)")
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu":
        raise EdgeFileError(f"{path}: expected an (m, 2) integer array of edges, got shape "
                            f"{arr.shape} and dtype {arr.dtype}")
    if arr.shape[0] == 0:
        raise EdgeFileError(f"{path}: no edges")
    return arr


def file_share(arr: NDArray[Any], path: str, rank: int, nprocs: int) -> NDArray[np.int64]:
    """This rank's rows of an opened edge file as int64; EdgeFileError for a
    vertex number outside [0, 2^40) (each rank checks its own rows)."""
    m = arr.shape[0]
    rows = np.asarray(arr[rank * m // nprocs:(rank + 1) * m // nprocs])
    if rows.size:
        lo, hi = int(rows.min()), int(rows.max())
        if lo < 0 or hi >= MAX_VERTICES:
            bad = lo if lo < 0 else hi
            row = int(np.argwhere(rows == bad)[0][0]) + rank * m // nprocs
            raise EdgeFileError(f"{path}: vertex {bad} in row {row} is outside "
                                f"[0, 2^{MAX_SCALE})")
    return rows.astype(np.int64, copy=False)


def max_vertex(rows: NDArray[np.int64]) -> int:
    """The largest vertex number of this rank's rows (-1 when it has none)."""
    return int(rows.max()) if rows.size else -1


def kronecker_share(scale: int, edgefactor: int, seed: int, rank: int,
                    nprocs: int) -> NDArray[np.int64]:
    """This rank's share of the Graph500 Kronecker graph (see _kronecker)."""
    perm = _kronecker.vertex_permutation(scale, seed)
    return _kronecker.kronecker_edges(scale, edgefactor, seed, rank, nprocs, perm)


def available_memory() -> int:
    """Bytes this node can still give (MemAvailable; all of RAM if unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def ranks_on_this_node(comm: Any) -> int:
    """How many ranks of comm share this node's memory."""
    from mpi4py import MPI
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return int(local.Get_size())
    finally:
        local.Free()


def gib(nbytes: float) -> str:
    """A byte count in GiB, TiB or PiB, whichever reads best."""
    for unit, power in (("PiB", 50), ("TiB", 40)):
        if nbytes >= 2**power:
            return f"{nbytes / 2**power:.1f} {unit}"
    return f"{nbytes / 2**30:.1f} GiB"


def memory_problem(what: str, per_rank: float, comm: Any) -> Optional[str]:
    """Collective: why `per_rank` bytes on every rank do not fit in this
    node's available memory (None when they do); the ranks agree."""
    node = per_rank * ranks_on_this_node(comm)
    have = available_memory()
    problem = None
    if node > have:
        problem = (f"{what} needs about {gib(node)} of memory on this node "
                   f"({gib(per_rank)} per rank), but only {gib(have)} is available")
    return _cli.agree(problem, comm)
