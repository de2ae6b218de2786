"""PageRank by power iteration on pybcl.

    mpiexec -n P python -m pybcl.apps.pagerank [--scale S | --edges FILE.npy]
        [--edgefactor 16] [--seed X] [--iterations 20] [--damping 0.85]
        [--out FILE.npy] [--json FILE]

The directed graph of the edges: each pair (u, v) is an edge u -> v, every
pair counted (duplicates are parallel edges, self-loops are edges).  With
``--scale`` the Graph500 Kronecker graph's edges as generated (n = 2^S
vertices), with ``--edges`` the rows of an (m, 2) integer ``.npy`` file
(n = largest vertex + 1).  Starting from r = 1/n, each iteration is

    r'[v] = (1 - d) / n + d * (sum over edges u -> v of r[u] / outdeg(u)
                               + (sum of r over vertices without out-edges) / n)

so the rank of a dangling vertex is spread evenly over all vertices and r
keeps summing to 1.

Distribution (Grappa's push formulation): the rank vector is a ``DArray``;
each edge lives on the owner of its source (routed there once, through
pybcl queues, as the BFS's kernel 1 does), so r[u] / outdeg(u) is local.
Each rank sums its edges' contributions per target vertex (the edges
sorted once by block of targets and source, then per iteration one pass in
C over them, each block's sums staying in cache) and ships
one (target, sum) update per distinct target through
a ``DArrayBuffer(op="add")``; at ``flush()`` each owner adds the updates
for its vertices locally.  One allreduce per iteration sums the dangling
rank.

JSON (``--json FILE``): seconds_per_iteration (the slowest rank's mean),
iterations_s (all iterations), setup_s (routing and sorting the edges),
iterations, damping, vertices, edges, ranks, transport, rank_sum.
``--out FILE`` writes the rank vector (float64).
"""
import time
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl.apps import _cli, _graph, _graph_cli, _kernels

PROG = "python -m pybcl.apps.pagerank"
MESSAGE_SIZE = 1 << 14        # updates per DArrayBuffer message


TARGET_BITS = 16
TARGET_BLOCK = 1 << TARGET_BITS   # targets summed at a time: 512 KiB of float64, in L2


@dataclass
class OutEdges:
    """This rank's edges u -> v (u its own vertex) arranged for summing per
    target: targets (global, ascending) are numbered 0, 1, ... in blocks of
    TARGET_BLOCK; edges[bounds[b]:bounds[b+1]] are those into block b, in
    ascending order of source, edge i from local vertex source[i] into
    target number b * TARGET_BLOCK + slot[i]."""
    n: int
    lo: int
    hi: int
    outdeg: NDArray[np.int64]       # per local vertex
    source: NDArray[np.int64]
    slot: NDArray[np.int64]
    bounds: NDArray[np.int64]
    targets: NDArray[np.int64]

    def sums(self, share: NDArray[np.float64]) -> NDArray[np.float64]:
        """The sum of share[source] over each target's edges, in targets'
        order.  Within a block the reads of `share` go up in address and
        the sums stay in cache, which is what makes this fast (one pass in
        C: _kernels.graph_block_sums)."""
        return _kernels.graph_block_sums(share, self.source, self.slot, self.bounds,
                                         len(self.targets), TARGET_BLOCK)


def arrange(src: NDArray[np.int64], tgt: NDArray[np.int64], lo: int, hi: int,
            n: int) -> OutEdges:
    """OutEdges of the edges src[i] -> tgt[i] (src local numbers of vertices
    [lo, hi), tgt global).  NumPy only: the mpi4py baseline
    (benchmarks/pagerank_alltoallv.py) arranges its edges with it too."""
    rows = max(hi - lo, 1)
    outdeg = np.bincount(src, minlength=hi - lo).astype(np.int64)
    # number the distinct targets 0, 1, ... in ascending order, without a sort
    present = np.zeros(n, dtype=bool)
    present[tgt] = True
    targets = np.flatnonzero(present)
    del present
    number = np.empty(n, dtype=np.int64)
    number[targets] = np.arange(len(targets))
    number = number[tgt]
    # one sort by (block of targets, source), packed in one int64 with the
    # slot in the low TARGET_BITS and the source in the next `bits`
    bits = max(rows - 1, 1).bit_length()
    if (len(targets) >> TARGET_BITS).bit_length() + bits + TARGET_BITS <= 62:
        key = (((number >> TARGET_BITS) << bits | src) << TARGET_BITS) | \
            (number & (TARGET_BLOCK - 1))
        del number
        key.sort()
        slot = key & (TARGET_BLOCK - 1)
        source = (key >> TARGET_BITS) & ((1 << bits) - 1)
        number = ((key >> (TARGET_BITS + bits)) << TARGET_BITS) | slot
        del key
    else:
        order = np.lexsort((src, number >> TARGET_BITS))
        source, number = src[order], number[order]
        slot = number & (TARGET_BLOCK - 1)
    nblocks = -(-len(targets) // TARGET_BLOCK)
    bounds = np.searchsorted(number, np.arange(nblocks + 1) * TARGET_BLOCK)
    return OutEdges(n=n, lo=lo, hi=hi, outdeg=outdeg, source=source, slot=slot,
                    bounds=bounds.astype(np.int64), targets=targets.astype(np.int64))


def group_by_target(edges: NDArray[np.int64], n: int) -> OutEdges:
    """Collective: route every rank's (m_r, 2) edges to their sources' owners
    (pybcl queues; one int64 key per edge, as kernel 1 of the BFS sends them)
    and arrange each rank's edges for per-target sums."""
    P, me = pybcl.nprocs(), pybcl.rank()
    block = _graph.block_of(n, P)
    lo = min(me * block, n)
    hi = min(lo + block, n)
    bits = _graph.pair_bits(n)
    dest = edges[:, 0] // block
    if bits > 31:
        got = _graph.exchange_rows(edges, dest)
        return arrange(got[:, 0] - lo, np.ascontiguousarray(got[:, 1]), lo, hi, n)
    key = np.left_shift(edges[:, 0], bits)
    key |= edges[:, 1]
    key = _graph.exchange_rows(key.reshape(-1, 1), dest).reshape(-1)
    src = key >> bits
    src -= lo
    np.bitwise_and(key, (1 << bits) - 1, out=key)
    return arrange(src, key, lo, hi, n)


def run_pagerank(edges: NDArray[np.int64], n: int, iterations: int = 20,
                 damping: float = 0.85) -> tuple[pybcl.DArray, dict[str, Any]]:
    """Collective: PageRank of the graph of every rank's (m_r, 2) `edges` on
    n vertices.  Returns the rank vector (a DArray of float64; close it when
    done) and the figures (the same on every rank)."""
    if not 0.0 <= damping <= 1.0:
        raise ValueError(f"damping must be in [0, 1], got {damping}")
    if iterations < 0:
        raise ValueError(f"iterations must be >= 0, got {iterations}")
    pybcl.barrier()
    t0 = time.perf_counter()
    g = group_by_target(edges, n)
    pybcl.barrier()
    setup = time.perf_counter() - t0
    rank = pybcl.DArray(n, "float64")
    acc = pybcl.DArray(n, "float64")
    r, into = rank.local(), acc.local()
    r[:] = 1.0 / n
    into[:] = 0.0
    dangling = g.outdeg == 0
    inv_out = np.where(dangling, 0.0, 1.0 / np.maximum(g.outdeg, 1))
    updates = pybcl.DArrayBuffer(acc, MESSAGE_SIZE, op="add")
    pybcl.barrier()
    t1 = time.perf_counter()
    for _ in range(iterations):
        lost = float(r[dangling].sum())
        share = r * inv_out
        if len(g.targets):
            updates.update_many(g.targets, g.sums(share))
        updates.flush()
        np.multiply(into, damping, out=r)
        r += (1.0 - damping) / n
        into[:] = 0.0
        # after every rank has cleared its sums: no update of the next
        # iteration can land in a block before it is cleared
        r += damping * float(pybcl.allreduce(lost, op="sum")) / n
    pybcl.barrier()
    seconds = time.perf_counter() - t1
    updates.close()
    acc.close()
    slowest = float(pybcl.allreduce(seconds, op="max"))
    total = float(pybcl.allreduce(float(r.sum()), op="sum"))
    return rank, {
        "app": "pagerank", "ranks": pybcl.nprocs(), "transport": pybcl.transport(),
        "vertices": n, "edges": int(pybcl.allreduce(len(edges), op="sum")),
        "iterations": iterations, "damping": damping,
        "setup_s": float(pybcl.allreduce(setup, op="max")), "iterations_s": slowest,
        "seconds_per_iteration": slowest / iterations if iterations else 0.0,
        "rank_sum": total,
    }


def segment_bytes(edges: NDArray[np.int64], n: int, comm: Any) -> int:
    """Collective (mpi4py): the segment every rank needs: the largest
    incoming edge queue, two vertex arrays and the update queue (at most a
    quarter of the segment), with room to spare."""
    P = comm.Get_size()
    block = _graph.block_of(n, P)
    counts = np.bincount(edges[:, 0] // block, minlength=P).astype(np.int64)
    counts[comm.Get_rank()] = 0               # what stays never enters a queue
    incoming = np.zeros(P, dtype=np.int64)
    comm.Allreduce(counts, incoming)
    return int(16 * incoming.max() + 16 * block + (96 << 20))


def bytes_per_rank(nedges: int, nvertices: int, nprocs: int) -> float:
    """A bound on one rank's memory: its edges in flight and sorted, and the
    generator's permutation of all vertices."""
    return 96.0 * nedges / nprocs + 8.0 * nvertices + 64.0 * nvertices / nprocs


def parse(argv: Optional[Sequence[str]]) -> tuple[Any, _cli.Parser]:
    ap = _cli.Parser(prog=PROG, description="PageRank by power iteration on pybcl.")
    _graph_cli.add_graph_arguments(ap, "an (m, 2) integer array of directed edges u -> v "
                                       "instead")
    ap.add_argument("--iterations", type=int, default=20, help="iterations (default 20)")
    ap.add_argument("--damping", type=float, default=0.85, help="damping factor (0.85)")
    ap.add_argument("--out", metavar="FILE.npy", help="write the rank vector (float64)")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = ap.parse_args(argv)
    _graph_cli.check_graph_arguments(ap, args)
    ap.at_least("--iterations", args.iterations, 0)
    if not 0.0 <= args.damping <= 1.0:
        ap.error(f"argument --damping: must be in [0, 1], got {args.damping}")
    return args, ap


def main(argv: Optional[Sequence[str]] = None) -> int:
    args, ap = parse(argv)
    loaded = _graph_cli.load_graph(ap, args, (("--json", args.json), ("--out", args.out)),
                                   bytes_per_rank)
    if loaded is None:
        return _cli.INPUT
    edges, n, _ = loaded
    _graph_cli.start_pybcl(ap, segment_bytes(edges, n, _cli.world()[2]))
    rank, res = run_pagerank(edges, n, args.iterations, args.damping)
    res.update({"scale": args.scale, "edgefactor": args.edgefactor, "seed": args.seed})
    vector = np.asarray(rank)
    rank.close()
    with _cli.Outputs(ap.prog) as out:
        if pybcl.rank() == 0:
            top = np.argsort(vector)[::-1][:5]
            print(f"PageRank on pybcl: {res['ranks']} rank(s), transport {res['transport']}, "
                  f"{n:,} vertices, {res['edges']:,} edges, damping {args.damping}")
            print(f"  setup {res['setup_s']:.4f} s; {args.iterations} iterations in "
                  f"{res['iterations_s']:.4f} s ({res['seconds_per_iteration']:.4f} s each)")
            print(f"  ranks sum to {res['rank_sum']:.15f}; highest: " +
                  ", ".join(f"{int(v)} ({vector[v]:.3e})" for v in top))
            _cli.write_json(args.json, res)
            if args.out:
                _graph_cli.write_npy("--out", args.out, vector)
    return out.status(0)


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
