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
from pybcl.apps import _cli, _graph, _graph_cli
from pybcl.apps._bfs_search import Searcher
from pybcl.apps._bfs_validate import EdgeShare, validate
from pybcl.apps._graph500_stats import statistics, teps_statistics

PROG = "python -m pybcl.apps.bfs"
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
    n = int(_graph_cli._max(comm, int(edges.max()) + 1 if edges.size else 0))
    block = _graph.block_of(n, P)
    u, v = edges[:, 0], edges[:, 1]
    loop = u == v
    counts = (np.bincount(u[~loop] // block, minlength=P) +
              np.bincount(v[~loop] // block, minlength=P)).astype(np.int64)
    counts[comm.Get_rank()] = 0               # what stays never enters a queue
    incoming = np.zeros(P, dtype=np.int64)
    comm.Allreduce(counts, incoming)
    return int(16 * incoming.max() + 32 * block + (96 << 20))


def parse(argv: Optional[Sequence[str]]) -> tuple[Any, _cli.Parser]:
    ap = _cli.Parser(prog=PROG, description="Graph500 breadth-first search on pybcl.")
    _graph_cli.add_graph_arguments(ap, "an (m, 2) integer array of undirected edges instead")
    ap.add_argument("--roots", type=int, default=NBFS,
                    help=f"searches from random roots (default {NBFS})")
    ap.add_argument("--root", type=int, default=None, help="one search from this vertex")
    ap.add_argument("--parents-out", metavar="FILE.npy",
                    help="write the parent array (one search only) as int64")
    ap.add_argument("--direction", choices=("auto", "top-down"), default="auto",
                    help="direction-optimizing (default) or top-down steps only")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per search")
    args = ap.parse_args(argv)
    _graph_cli.check_graph_arguments(ap, args)
    ap.at_least("--roots", args.roots, 1)
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
    loaded = _graph_cli.load_graph(ap, args, (("--json", args.json),
                                              ("--parents-out", args.parents_out)),
                                   bytes_per_rank)
    if loaded is None:
        return _cli.INPUT
    edges, _, generation = loaded
    _graph_cli.start_pybcl(ap, segment_bytes(edges, _cli.world()[2]))
    try:
        res = run_bfs(edges, args.roots, args.root, args.seed, args.direction,
                      keep_parents=bool(args.parents_out), verbose=args.verbose)
    except ValueError as exc:                 # the same on every rank
        _cli.say_error(ap.prog, str(exc))
        return _cli.INPUT
    res.update({"scale": args.scale, "edgefactor": args.edgefactor, "seed": args.seed,
                "generation_s": generation})
    parents = res.pop("parents", None)
    with _cli.Outputs(ap.prog) as out:
        if pybcl.rank() == 0:
            report(res)
            _cli.write_json(args.json, res)
            if args.parents_out:
                _graph_cli.write_npy("--parents-out", args.parents_out,
                                     np.asarray(parents, dtype=np.int64))
    return out.status(0 if res["validated"] else 1)


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
