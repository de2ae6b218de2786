"""Graph500 breadth-first search on pybcl.

    mpiexec -n P python -m pybcl.apps.bfs [--scale S] [--edgefactor 16]
        [--edges FILE.npy] [--roots N] [--root R] [--seed X]
        [--parents-out FILE.npy] [--direction auto|top-down] [--json FILE]

The Graph500 benchmark as its specification (version 3) defines it:

1. the edge list: the Kronecker generator at scale S (2^S vertices,
   edgefactor * 2^S undirected edges, A = 0.57, B = C = 0.19, labels
   randomly permuted; ``_kronecker``), each rank generating a share; or the
   rows of an ``(m, 2)`` integer ``.npy`` file (self-loops and duplicates
   allowed; n = largest vertex + 1);
2. kernel 1, timed (``construction_s``): the distributed graph, each rank's
   rows in compressed sparse row form, the edges routed to their owners
   through pybcl queues (``_graph``);
3. N search keys (default 64) drawn at random from the vertices with an
   edge other than a self-loop (all of them, in random order, when fewer),
   or the one ``--root``;
4. kernel 2, timed per search (``bfs_seconds``): a direction-optimizing BFS
   whose parent claims travel through a ``DArrayBuffer(op="min")``
   (``_bfs_search``);
5. after each search, untimed, the specification's five validation checks
   against the input edges (``_bfs_validate``), and the search's edge count;
6. the statistics block: time, edge-count and TEPS order statistics, TEPS's
   harmonic mean and its standard deviation (``_graph500_stats``).

Exit status 1 if any search fails validation (each failure is printed).
JSON (``--json FILE``): teps_harmonic_mean, teps_min, teps_median, teps_max
(and the quartiles, the harmonic standard deviation), bfs_seconds (a list,
one per search, in root order), nedge (likewise), roots, construction_s,
generation_s, validated, failures, scale, edgefactor, vertices, edges,
ranks, transport, direction.  ``--parents-out FILE`` (one search only)
writes the parent of every vertex (root: itself; unreached: -1) as int64.
"""
import sys
import time
from typing import Any, Optional, Sequence

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core
from pybcl.apps import _cli, _edges, _graph
from pybcl.apps._bfs_search import Searcher
from pybcl.apps._bfs_validate import EdgeShare, validate
from pybcl.apps._graph500_stats import statistics, teps_statistics

PROG = "python -m pybcl.apps.bfs"
DEFAULT_SCALE = 16
NBFS = 64


def search_keys(g: _graph.Csr, count: int, seed: int) -> NDArray[np.int64]:
    """Collective: `count` distinct random vertices with an edge other than a
    self-loop (all of them, shuffled, when fewer); the same on every rank."""
    flags = pybcl.DArray(g.n, "uint8")
    flags.local()[:] = g.degree > 0
    candidates = np.flatnonzero(np.asarray(flags))
    flags.close()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(2,))))
    if len(candidates) <= count:
        return rng.permutation(candidates)
    return rng.choice(candidates, size=count, replace=False)


def run_bfs(edges: NDArray[np.int64], roots: int = NBFS, root: Optional[int] = None,
            seed: int = 1, direction: str = "auto",
            keep_parents: bool = False, verbose: bool = False) -> dict[str, Any]:
    """Collective: kernel 1 on every rank's (m_r, 2) `edges`, then one
    validated search per key (`root`, or `roots` random keys).  The figures,
    the same on every rank; with keep_parents, "parents" holds the last
    search's parent array.  ValueError (on every rank) for a root that is
    not a vertex or a graph with nothing to search from."""
    pybcl.barrier()
    t0 = time.perf_counter()
    g = _graph.build_csr(edges)
    pybcl.barrier()
    construction = float(pybcl.allreduce(time.perf_counter() - t0, op="max"))
    if root is not None and not 0 <= root < g.n:
        raise ValueError(f"--root {root}: not a vertex of this graph (0 to {g.n - 1})")
    keys = np.array([root], dtype=np.int64) if root is not None else search_keys(g, roots, seed)
    if not len(keys):
        raise ValueError("no vertex has an edge other than a self-loop: nothing to search from")
    searcher = Searcher(g, direction)
    share = EdgeShare(edges)
    seconds, nedge, checked, failures = [], [], [], []
    parents = None
    try:
        for i, key in enumerate(keys):
            seconds.append(searcher.search(int(key)))
            t1 = time.perf_counter()
            parents = np.asarray(searcher.parents)
            verdict = validate(parents, int(key), share, searcher.levels())
            checked.append(time.perf_counter() - t1)
            nedge.append(verdict.nedge)
            for check, example in verdict.failed.items():
                failures.append(f"search {i} from {int(key)}: check {check} failed: {example}")
            if verbose and pybcl.rank() == 0:
                print(f"  search {i} from {int(key)}: {seconds[-1]:.4f} s, {verdict.nedge} edges, "
                      f"{searcher.levels_used} levels ({searcher.bottom_up_levels} bottom-up), "
                      f"{'valid' if verdict.ok else 'INVALID'}", file=sys.stderr)
    finally:
        searcher.close()
    res: dict[str, Any] = {
        "app": "bfs", "ranks": pybcl.nprocs(), "transport": pybcl.transport(),
        "direction": direction, "vertices": g.n,
        "edges": int(pybcl.allreduce(len(edges), op="sum")),
        "nbfs": len(keys), "roots": [int(k) for k in keys],
        "construction_s": construction, "bfs_seconds": seconds, "nedge": nedge,
        "validate_seconds": checked, "validated": not failures, "failures": failures,
    }
    res.update(teps_statistics(seconds, nedge))
    res["time"] = statistics(seconds)
    res["nedge_stats"] = statistics(nedge)
    if keep_parents:
        res["parents"] = parents
    return res


def report(res: dict[str, Any]) -> None:
    """The Graph500 output block (rank 0)."""
    def line(name: str, value: Any) -> None:
        print(f"{name + ':':32s}{value}")
    line("SCALE", res["scale"] if res["scale"] is not None else "-")
    line("edgefactor", res["edgefactor"] if res["edgefactor"] is not None else "-")
    line("NBFS", res["nbfs"])
    if res.get("generation_s") is not None:
        line("graph_generation", f"{res['generation_s']:.6g}")
    line("num_mpi_processes", res["ranks"])
    line("construction_time", f"{res['construction_s']:.6g}")
    for k, v in res["time"].items():
        line(f"bfs  {k}_time", f"{v:.6g}")
    for k, v in res["nedge_stats"].items():
        line(f"{k}_nedge", f"{v:.11g}")
    for k in ("min", "firstquartile", "median", "thirdquartile", "max"):
        line(f"bfs  {k}_TEPS", f"{res['teps_' + k]:.6g}")
    line("bfs  harmonic_mean_TEPS", f"!  {res['teps_harmonic_mean']:.6g}")
    line("bfs  harmonic_stddev_TEPS", f"{res['teps_harmonic_stddev']:.6g}")
    line("validation", "PASSED" if res["validated"] else
         f"FAILED ({len(res['failures'])} problem(s))")
    for f in res["failures"]:
        print("  " + f)


def bytes_per_rank(nedges: int, nvertices: int, nprocs: int) -> float:
    """A bound on the memory one rank uses (measured at scale 20 below it):
    its edges, twice over for both directions, in flight and sorted, and a
    few whole-graph vertex arrays (the permutation, gathered parents and
    levels, the validation's)."""
    return 128.0 * nedges / nprocs + 64.0 * nvertices


def segment_bytes(edges: NDArray[np.int64], comm: Any) -> int:
    """Collective (mpi4py): the segment kernel 1 and the searches need on
    every rank: the largest incoming edge queue, the vertex arrays and the
    claim buffer's queue (16 MiB), with room to spare."""
    P = comm.Get_size()
    n = comm.allreduce(int(edges.max()) + 1 if edges.size else 0, op=_max_op())
    block = _graph.block_of(n, P)
    u, v = edges[:, 0], edges[:, 1]
    loop = u == v
    counts = (np.bincount(u[~loop] // block, minlength=P) +
              np.bincount(v[~loop] // block, minlength=P)).astype(np.int64)
    incoming = np.zeros(P, dtype=np.int64)
    comm.Allreduce(counts, incoming)
    return int(16 * incoming.max() + 32 * block + (96 << 20))


def _max_op() -> Any:
    from mpi4py import MPI
    return MPI.MAX


def load_edges(args: Any, ap: _cli.Parser) -> Optional[tuple[NDArray[np.int64], float]]:
    """Collective, before pybcl starts: this rank's edges (generated or read)
    and the generation time, or None once rank 0 has said what is wrong."""
    me, P, comm = _cli.world()
    if args.edges:
        arr = _cli.open_inputs(ap.prog, (("--json", args.json),
                                         ("--parents-out", args.parents_out)),
                               lambda: _edges.open_edge_file(args.edges), _edges.EdgeFileError)
        if arr is None:
            return None
        rows, problem = None, None
        try:
            rows = _edges.file_share(arr, args.edges, me, P)
        except _edges.EdgeFileError as exc:
            problem = str(exc)
        problem = _cli.agree(problem)
        if problem is None:
            n = comm.allreduce(_edges.max_vertex(rows) + 1, op=_max_op())
            problem = _edges.memory_problem(f"--edges {args.edges}",
                                            bytes_per_rank(arr.shape[0], n, P), comm)
        if problem:
            _cli.say_error(ap.prog, problem)
            return None
        assert rows is not None
        return rows, 0.0
    if not _cli.check_outputs(ap.prog, (("--json", args.json),
                                        ("--parents-out", args.parents_out))):
        return None
    problem = _edges.memory_problem(f"--scale {args.scale}",
                                    bytes_per_rank(args.edgefactor << args.scale,
                                                   1 << args.scale, P), comm)
    if problem:
        _cli.say_error(ap.prog, problem)
        return None
    t0 = time.perf_counter()
    rows = _edges.kronecker_share(args.scale, args.edgefactor, args.seed, me, P)
    return rows, comm.allreduce(time.perf_counter() - t0, op=_max_op())


def parse(argv: Optional[Sequence[str]]) -> tuple[Any, _cli.Parser]:
    ap = _cli.Parser(prog=PROG, description="Graph500 breadth-first search on pybcl.")
    ap.add_argument("--scale", type=int, default=None,
                    help=f"Kronecker graph of 2^S vertices (1 to {_edges.MAX_SCALE}; "
                         f"default {DEFAULT_SCALE})")
    ap.add_argument("--edgefactor", type=int, default=None,
                    help="edges per vertex of the Kronecker graph (default 16)")
    ap.add_argument("--edges", metavar="FILE.npy",
                    help="an (m, 2) integer array of undirected edges instead")
    ap.add_argument("--roots", type=int, default=NBFS,
                    help=f"searches from random roots (default {NBFS})")
    ap.add_argument("--root", type=int, default=None, help="one search from this vertex")
    ap.add_argument("--seed", type=int, default=1, help="generator and root seed (default 1)")
    ap.add_argument("--parents-out", metavar="FILE.npy",
                    help="write the parent array (one search only) as int64")
    ap.add_argument("--direction", choices=("auto", "top-down"), default="auto",
                    help="direction-optimizing (default) or top-down steps only")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per search")
    args = ap.parse_args(argv)
    if args.edges and (args.scale is not None or args.edgefactor is not None):
        ap.error("give --scale/--edgefactor or --edges, not both")
    if args.scale is None:
        args.scale = None if args.edges else DEFAULT_SCALE
    if args.scale is not None and not 1 <= args.scale <= _edges.MAX_SCALE:
        ap.error(f"argument --scale: must be in [1, {_edges.MAX_SCALE}], got {args.scale}")
    if args.edgefactor is None:
        args.edgefactor = None if args.edges else 16
    ap.at_least("--edgefactor", args.edgefactor, 1)
    ap.at_least("--roots", args.roots, 1)
    ap.at_least("--seed", args.seed, 0)
    if args.scale is not None and args.root is not None and \
            not 0 <= args.root < (1 << args.scale):
        ap.error(f"argument --root: must be a vertex, 0 to 2^{args.scale} - 1, "
                 f"got {args.root}")
    if args.edges and args.root is not None and args.root < 0:
        ap.error(f"argument --root: must be a vertex (>= 0), got {args.root}")
    if args.parents_out and args.root is None and args.roots != 1:
        ap.error("--parents-out needs one search: give --root R (or --roots 1)")
    return args, ap


def main(argv: Optional[Sequence[str]] = None) -> int:
    args, ap = parse(argv)
    loaded = load_edges(args, ap)
    if loaded is None:
        return _cli.INPUT
    edges, generation = loaded
    if not _core.initialized():
        try:
            need = segment_bytes(edges, _cli.world()[2])
            pybcl.init(segment_size=max(need, pybcl._env.segment_size()))
        except pybcl.SegmentFull as exc:      # raised on every rank alike
            _cli.say_error(ap.prog, f"the graph does not fit: {exc}")
            raise SystemExit(_cli.INPUT) from None
    try:
        res = run_bfs(edges, args.roots, args.root, args.seed, args.direction,
                      keep_parents=bool(args.parents_out), verbose=args.verbose)
    except ValueError as exc:                 # the same on every rank
        _cli.say_error(ap.prog, str(exc))
        return _cli.INPUT
    res.update({"scale": args.scale, "edgefactor": args.edgefactor, "seed": args.seed,
                "generation_s": generation if not args.edges else None})
    parents = res.pop("parents", None)
    if pybcl.rank() == 0:
        report(res)
        _cli.write_json(args.json, res)
        if args.parents_out:
            np.save(args.parents_out, np.asarray(parents, dtype=np.int64))
    pybcl.barrier()
    return 0 if res["validated"] else 1


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
