"""Runtime: init/finalize, collectives (the exit policy is in _abort).

Thin wrappers over pybcl._core; defaults come from the environment (_env).
"""
import atexit
import pickle
import sys
import zlib
from typing import Any, TypeVar, Union

import numpy as np

from . import _abort, _core, _env, _kernel, _mpimatch

_state: dict[str, Any] = {"comm": None}
_T = TypeVar("_T")

_REDUCE_OPS = {name: i for i, name in enumerate(
    ("sum", "prod", "min", "max", "land", "lor", "band", "bor", "bxor"))}


def init(segment_size: Union[int, str, None] = None, comm: Any = None) -> None:
    """Collective: start pybcl on `comm` and create this rank's shared segment.

    Idempotent; any other pybcl call auto-initialises with the defaults.
    Works whether or not mpi4py already initialised MPI.  The transport is
    chosen here (PYBCL_TRANSPORT=auto|shm|rma|rma-node; see pybcl.info()).

    Parameters
    ----------
    segment_size : int or str, optional
        Bytes per rank (an int, or a string such as "256M"); default from
        PYBCL_SEGMENT_SIZE, else 256 MiB.  The ranks use the smallest size
        any of them asked for.
    comm : mpi4py.MPI.Comm, optional
        Default COMM_WORLD.  pybcl works on a private duplicate of it.

    Raises
    ------
    TypeError, ValueError
        On every rank, for bad or disagreeing arguments.
    pybcl.SegmentFull
        On every rank, when the node cannot hold the segment.

    Examples
    --------
    >>> pybcl.init(segment_size="64M")
    """
    if _core.initialized():
        return
    try:
        from mpi4py import MPI      # initialises MPI unless the user already did
    except (ImportError, RuntimeError) as e:
        # e.g. a binary mpi4py wheel that finds no MPI library of its own
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ImportError(f"mpi4py cannot load its MPI ({first}); rebuild it against "
                          f"pybcl's MPI: {_mpimatch.REBUILD}") from e
    _mpimatch.check()

    if comm is None:
        comm = MPI.COMM_WORLD
    if not isinstance(comm, MPI.Comm):
        raise TypeError(f"comm must be an mpi4py.MPI.Comm, not {type(comm).__name__}")
    if comm == MPI.COMM_NULL:
        raise ValueError("comm is MPI.COMM_NULL")
    if segment_size is None:
        segment_size = _env.segment_size()
    elif isinstance(segment_size, str):
        segment_size = _env.parse_size(segment_size, "segment_size")
    elif not isinstance(segment_size, int) or isinstance(segment_size, bool):
        raise TypeError(f"segment_size must be an int (bytes), not {type(segment_size).__name__}")
    if segment_size >= 1 << 63:
        raise _core.SegmentFull(f"segment_size {segment_size} bytes is larger than any "
                                "node's memory")
    _env.finalize_timeout()         # a bad value fails here, not at exit
    _core.init(MPI._addressof(comm), segment_size, _env.transport(),
               _env.async_progress(_kernel.in_kernel()))
    _state["comm"] = comm


def finalize() -> None:
    """Collective: complete outstanding operations and free the segment, the
    window and pybcl's communicator.

    Runs at interpreter exit by itself; containers must not be used
    afterwards.  No-op if not initialised.

    Raises
    ------
    pybcl.Error
        If MPI fails.

    Examples
    --------
    >>> pybcl.finalize()
    """
    if _core.initialized():
        _core.finalize()
    _state["comm"] = None


def _finalize_at_exit() -> None:
    """Interpreter exit: finalize, then bound how long MPI's own teardown may take.

    mpi4py finalizes MPI from Py_AtExit, which runs after every atexit
    handler, so our window is always freed while MPI is still up.  Over UCX's
    TCP transport MPICH 4.0.2's MPI_Finalize can hang for good after all work
    is done (docs/multinode.md); bcl_finalize ends with a barrier, so from here
    on no rank needs this one, and the exit guard ends the process if MPI's
    teardown has not returned PYBCL_FINALIZE_TIMEOUT seconds later."""
    if not _core.initialized():
        return
    rank = _core.rank()
    seconds = _env.finalize_timeout()
    sys.stdout.flush()      # before a teardown that may have to be cut short
    sys.stderr.flush()
    try:
        # waits for every rank to depart (interruptible); if pybcl started
        # MPI, its MPI_Finalize runs in here, guarded by `seconds`
        _core.finalize(seconds)
    except KeyboardInterrupt:
        # Ctrl-C while waiting for peers at exit: end the job as an uncaught
        # KeyboardInterrupt would, with one line instead of a traceback.
        _abort.abort_job(_abort.KEYBOARD_INTERRUPT_CODE, "KeyboardInterrupt")
        return
    except Exception as e:      # noqa: BLE001 -- reported, then the job ends
        sys.stderr.write(f"pybcl: finalize at exit failed: {e}\n")
        _abort.abort_job(1, f"{type(e).__name__} in finalize at exit")
        return
    _state["comm"] = None
    if seconds > 0:     # mpi4py finalizes MPI later, from Py_AtExit (stdio flushed above)
        _core.arm_exit_guard(seconds, rank)


atexit.register(_finalize_at_exit)


def comm() -> Any:
    """The communicator pybcl runs on (the one given to init(), by default
    COMM_WORLD).  Not collective, but auto-initialisation is.

    Returns
    -------
    mpi4py.MPI.Comm

    Examples
    --------
    >>> pybcl.comm().Get_size() == pybcl.nprocs()
    True
    """
    if not _core.initialized():
        init()
    return _state["comm"]


def broadcast(obj: _T, root: int = 0) -> _T:
    """Collective: return root's `obj` on every rank.

    The ranks first agree on `root`: a bad or different root on one rank
    raises on every rank.

    Parameters
    ----------
    obj : object
        Numbers, NumPy arrays, GlobalPtrs and any picklable object; only
        root's argument is used.
    root : int, optional
        The sending rank.

    Returns
    -------
    object
        Root's `obj`.

    Raises
    ------
    TypeError
        For a non-int root; on root for an `obj` it cannot pickle (the
        other ranks raise pybcl.Error then: no rank is left waiting).
    ValueError
        For a root out of range.

    Examples
    --------
    >>> ptr = pybcl.broadcast(pybcl.alloc(10) if pybcl.rank() == 0 else None)
    """
    nprocs = _core.nprocs()         # auto-initialises: the agreement needs the runtime
    try:
        if not isinstance(root, int) or isinstance(root, bool):
            raise TypeError(f"broadcast: root must be an int, not {type(root).__name__}")
        if not 0 <= root < nprocs:
            raise ValueError(f"broadcast: root must be a rank in [0, {nprocs}), "
                             f"got {root}")
    except Exception:
        _core.collective_failed("broadcast()")
        raise
    _core.agree("broadcast()", ("root",), (root,))
    failure = None
    if _core.rank() == root:
        # One status byte leads the payload, so a pickling failure on root
        # reaches every rank through the same broadcast instead of leaving
        # them waiting (or matched with root's next broadcast).
        try:
            data = _BCAST_OK + pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            failure = e
            data = _BCAST_FAILED + f"{type(e).__name__}: {e}".encode("utf-8", "replace")
    else:
        data = None
    data = _core.bcast_bytes(data, root)
    if data[:1] == _BCAST_FAILED:
        why = data[1:].decode("utf-8", "replace")
        if failure is not None:
            raise TypeError(f"broadcast: obj cannot be pickled ({why})") from failure
        raise _core.Error(f"broadcast: root {root} could not pickle its obj ({why})")
    # a memoryview: slicing the bytes would copy the whole payload once more
    return obj if _core.rank() == root else pickle.loads(memoryview(data)[1:])


_BCAST_OK, _BCAST_FAILED = b"\x00", b"\x01"


def allreduce(x: Any, op: str = "sum") -> Any:
    """Collective: reduce `x` over all ranks and return the result on every rank.

    The ranks first agree on (op, dtype, size): a bad or different argument
    on one rank raises on every rank instead of leaving the others waiting.

    Parameters
    ----------
    x : number or numpy.ndarray
        The same shape and dtype on every rank.
    op : str, optional
        "sum", "prod", "min", "max", "land", "lor", "band", "bor" or "bxor".

    Returns
    -------
    number or numpy.ndarray
        The same kind as `x` (a Python number for a Python number).

    Raises
    ------
    ValueError
        For an unknown op.
    TypeError
        For another type of `x`.

    Examples
    --------
    >>> pybcl.allreduce(1) == pybcl.nprocs()
    True
    """
    code = _REDUCE_OPS.get(op) if isinstance(op, str) else None
    is_array = isinstance(x, np.ndarray)
    try:
        if code is None:
            raise ValueError(f"op must be one of {', '.join(_REDUCE_OPS)}, not {op!r}")
        if not is_array and not isinstance(x, (int, float, bool, np.generic)):
            raise TypeError(f"x must be a number or NumPy array, not {type(x).__name__}")
        buf = np.array(x, copy=True, order="C")
    except Exception:
        _core.collective_failed("allreduce()")
        raise
    _core.agree("allreduce()", ("op", "#dtype of x", "size of x"),
                (code, zlib.crc32(buf.dtype.str.encode()), buf.size))
    _core.allreduce_inplace(buf, code)
    if is_array:
        return buf
    value = buf[()]
    return value.item() if isinstance(x, (int, float, bool)) else value
