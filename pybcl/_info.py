"""pybcl.info(): what a user pastes into a bug report.

Everything here is read back from the running job (the core reports what
init decided), never re-derived, except the reasons, which restate the rules
of bcl_runtime.c (transport: auto picks shm when every rank is on one node,
rma-node across nodes when some node hosts two or more ranks, else rma;
wait: patient when some node runs more ranks than the CPUs they may use, or
PYBCL_WAIT forces it; the core's wait_policy() says which and the counts).
"""
import platform
import sys
from typing import Any

from . import _core, _env, _kernel


def _transport_reason(requested: str, chosen: str, nprocs: int, per_node: int) -> str:
    if requested != "auto":
        return f"PYBCL_TRANSPORT={requested}"
    where = "all" if per_node == nprocs else f"{per_node} of {nprocs}"
    return f"auto: {where} ranks on this rank's node -> {chosen}"


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
        wait_reason, node_cpus, async_progress_requested, progress_thread.

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
    nprocs, per_node = _core.nprocs(), _core.ranks_per_node()
    transport, requested = _core.transport(), _env.transport()
    wait = _core.wait_policy()
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
        "nprocs": nprocs,
        "ranks_per_node": per_node,
        "transport": transport,
        "transport_requested": requested,
        "transport_reason": _transport_reason(requested, transport, nprocs, per_node),
        "segment_size": _core.segment_size(),
        "wait_policy": wait["policy"],
        "wait_reason": _wait_reason(wait),
        "node_cpus": wait["node_cpus"],
        "async_progress_requested": bool(_env.async_progress(_kernel.in_kernel())),
        "progress_thread": _core.progress_thread(),
    }


def format_info(d: dict[str, Any]) -> str:
    """info()'s dict as aligned 'key: value' lines."""
    width = max(map(len, d))
    return "\n".join(f"{k:<{width}} : {v}" for k, v in d.items())
