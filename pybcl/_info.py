"""pybcl.info(): what a user pastes into a bug report.

Everything here is read back from the running job (the core reports what
init decided and why: init_reasons(), wait_policy()), never re-derived.
"""
import platform
import sys
from typing import Any

from . import _core, _env, _kernel


def _wait_reason(wait: dict[str, Any]) -> str:
    here = f"this node: {wait['node_ranks']} ranks, {wait['node_cpus']} CPUs"
    if wait["chosen_by"] == "PYBCL_WAIT":
        return f"PYBCL_WAIT={wait['policy']} ({here})"
    if wait["policy"] == "patient":
        return f"some node runs more ranks than the CPUs they may use ({here})"
    return f"every rank has a CPU ({here})"


def info() -> dict[str, Any]:
    """A dict describing this pybcl job (not collective).

    Initialises pybcl with the defaults (collective) if nobody has yet.

    Returns
    -------
    dict
        Keys: version, python, platform, mpi_library, mpi_version, mpi4py,
        numpy, rank, nprocs, ranks_per_node, transport,
        transport_requested, transport_reason, segment_size, wait_policy,
        wait_reason, node_cpus, async_progress_requested, progress_thread,
        progress_reason.

    Examples
    --------
    >>> pybcl.info()["transport"] == pybcl.transport()
    True
    """
    from mpi4py import MPI
    import mpi4py
    import numpy

    from . import __version__, _runtime
    if not _core.initialized():
        _runtime.init()
    wait, reasons = _core.wait_policy(), _core.init_reasons()
    major, minor = MPI.Get_version()
    return {
        "version": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "mpi_library": " ".join(MPI.Get_library_version().splitlines()[0].split()),
        "mpi_version": f"{major}.{minor}",
        "mpi4py": mpi4py.__version__,
        "numpy": numpy.__version__,
        "rank": _core.rank(),
        "nprocs": _core.nprocs(),
        "ranks_per_node": _core.ranks_per_node(),
        "transport": _core.transport(),
        "transport_requested": _env.transport(),
        "transport_reason": reasons["transport"],
        "segment_size": _core.segment_size(),
        "wait_policy": wait["policy"],
        "wait_reason": _wait_reason(wait),
        "node_cpus": wait["node_cpus"],
        "async_progress_requested": bool(_env.async_progress(_kernel.in_kernel())),
        "progress_thread": _core.progress_thread(),
        "progress_reason": reasons["progress_thread"],
    }


def format_info(d: dict[str, Any]) -> str:
    """info()'s dict as aligned 'key: value' lines."""
    width = max(map(len, d))
    return "\n".join(f"{k:<{width}} : {v}" for k, v in d.items())
