"""pybcl: the Berkeley Container Library for Python.

Distributed data structures (hash maps, queues, Bloom filters, arrays) over
MPI-3 one-sided communication, with a C core.  Run SPMD:
``mpiexec -n 4 python script.py``.  See docs/ and the README.
"""
from . import _checkbuild

_checkbuild.load_core()          # an unbuilt checkout: one line saying what to do

from . import _env, _mpimatch  # noqa: E402

_mpimatch.remember_core_libraries()
_env.set_mpi_defaults()          # must precede MPI_Init (mpi4py import)

from ._core import (                                     # noqa: E402
    Array, BloomFilter, CircularQueue, DArray, DArrayBuffer, FastQueue,
    ContainerFull, Empty, Error, GlobalPtr, SegmentFull,
    alloc, atomic_load, atomic_store, atomic_swap, barrier, compare_and_swap,
    fetch_and_add, fetch_and_and, fetch_and_or, fetch_and_xor, flush, free,
    hash64, hash_u64, nprocs, packb, progress, rank, rget, rput, transport, unpackb,
)
from ._runtime import allreduce, broadcast, comm, finalize, init  # noqa: E402
from .conprom import ConProm  # noqa: E402
from . import _core  # noqa: E402

# What the C extension needs from the package, handed down once (it never
# imports the package itself).
_core._configure(init, ConProm.HashMap, ConProm.CircularQueue)
from . import _abort  # noqa: E402

# After _runtime registered its atexit finalize: one rank failing (even before
# init) ends the whole job with its exit code.
_abort.install()
from . import _kernel  # noqa: E402

_kernel.install()                # in an interactive kernel: cells, not the job, fail
from .hashmap import HashMap, HashMapBuffer  # noqa: E402
from . import io  # noqa: E402
from .io import load  # noqa: E402
from ._info import info  # noqa: E402

NULL = GlobalPtr(0, 0)

__version__ = "0.1.0"

__all__ = [
    "init", "finalize", "rank", "nprocs", "comm", "barrier", "flush", "progress",
    "transport", "broadcast", "allreduce",
    "GlobalPtr", "NULL", "alloc", "free", "rget", "rput", "compare_and_swap",
    "fetch_and_add", "fetch_and_or", "fetch_and_and", "fetch_and_xor",
    "atomic_load", "atomic_store", "atomic_swap", "packb", "unpackb", "hash64", "hash_u64",
    "Error", "SegmentFull", "ContainerFull", "Empty", "ConProm",
    "HashMap", "HashMapBuffer", "BloomFilter", "DArray", "DArrayBuffer", "Array",
    "FastQueue", "CircularQueue", "info", "load", "io",
]
