"""Command-line plumbing the graph apps (bfs, pagerank) share: the graph's
arguments (--scale/--edgefactor, or --edges; --seed), loading each rank's
edges before pybcl starts, and starting pybcl with a segment that holds the
graph."""
import io
import time
from typing import Any, Callable, Optional, Sequence

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core
from pybcl.apps import _cli, _edges

DEFAULT_SCALE = 16


def add_graph_arguments(ap: _cli.Parser, edges_help: str) -> None:
    ap.add_argument("--scale", type=int, default=None,
                    help=f"the Kronecker graph of 2^S vertices (1 to {_edges.MAX_SCALE}; "
                         f"default {DEFAULT_SCALE})")
    ap.add_argument("--edgefactor", type=int, default=None,
                    help="edges per vertex of the Kronecker graph (default 16)")
    ap.add_argument("--edges", metavar="FILE.npy", help=edges_help)
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")


def check_graph_arguments(ap: _cli.Parser, args: Any) -> None:
    """Usage errors of the graph's arguments; fills in the defaults."""
    if args.edges and (args.scale is not None or args.edgefactor is not None):
        ap.error("give --scale/--edgefactor or --edges, not both")
    if not args.edges:
        args.scale = DEFAULT_SCALE if args.scale is None else args.scale
        args.edgefactor = 16 if args.edgefactor is None else args.edgefactor
    if args.scale is not None and not 1 <= args.scale <= _edges.MAX_SCALE:
        ap.error(f"argument --scale: must be in [1, {_edges.MAX_SCALE}], got {args.scale}")
    ap.at_least("--edgefactor", args.edgefactor, 1)
    ap.at_least("--seed", args.seed, 0)


def _max(comm: Any, x: float) -> float:
    """Collective (mpi4py): the largest x of any rank."""
    from mpi4py import MPI
    return comm.allreduce(x, op=MPI.MAX)  # type: ignore[no-any-return]


def load_graph(ap: _cli.Parser, args: Any, outputs: Sequence[tuple[str, Optional[str]]],
               bytes_per_rank: Callable[[int, int, int], float]
               ) -> Optional[tuple[NDArray[np.int64], int, Optional[float]]]:
    """Collective, before pybcl starts: check the outputs, then this rank's
    edges (read from --edges, or generated), n (largest vertex + 1, or 2^S)
    and the generation's seconds (None for a file); None once rank 0 has said
    what is wrong (a bad file, or a graph bytes_per_rank(m, n, P) says does
    not fit in memory)."""
    me, P, comm = _cli.world()
    if not args.edges:
        if not _cli.check_outputs(ap.prog, outputs):
            return None
        n = 1 << args.scale
        problem = _edges.memory_problem(f"--scale {args.scale}",
                                        bytes_per_rank(args.edgefactor * n, n, P), comm)
        if problem:
            _cli.say_error(ap.prog, problem)
            return None
        t0 = time.perf_counter()
        rows = _edges.kronecker_share(args.scale, args.edgefactor, args.seed, me, P)
        return rows, n, float(_max(comm, time.perf_counter() - t0))
    arr = _cli.open_inputs(ap.prog, outputs, lambda: _edges.open_edge_file(args.edges),
                           _edges.EdgeFileError)
    if arr is None:
        return None
    share, problem = None, None
    try:
        share = _edges.file_share(arr, args.edges, me, P)
    except _edges.EdgeFileError as exc:
        problem = str(exc)
    problem = _cli.agree(problem)
    if problem is None:
        assert share is not None
        n = int(_max(comm, _edges.max_vertex(share) + 1))
        problem = _edges.memory_problem(f"--edges {args.edges}",
                                        bytes_per_rank(arr.shape[0], n, P), comm)
    if problem:
        _cli.say_error(ap.prog, problem)
        return None
    assert share is not None
    return share, n, None


def start_pybcl(ap: _cli.Parser, segment_bytes: int) -> None:
    """Start pybcl (unless started already) with segments of at least
    segment_bytes; a segment the node cannot hold is a one-line error."""
    if _core.initialized():
        return
    try:
        pybcl.init(segment_size=max(segment_bytes, pybcl._env.segment_size()))
    except pybcl.SegmentFull as exc:      # raised on every rank alike
        _cli.say_error(ap.prog, f"the graph does not fit: {exc}")
        raise SystemExit(_cli.INPUT) from None


def write_npy(option: str, path: str, array: NDArray[Any]) -> None:
    """`array` as a .npy file at `path`; OutputError naming `option` if that
    fails (inside the app's _cli.Outputs block)."""
    buf = io.BytesIO()
    np.save(buf, array)
    _cli.write_file(option, path, buf.getvalue())
