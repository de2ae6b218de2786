"""PageRank with MPI_Alltoallv (mpi4py): the message-passing baseline of
benchmarks/bench_graph.py.

    mpiexec -n P python benchmarks/pagerank_alltoallv.py [--scale 20]
        [--edgefactor 16] [--seed 1] [--iterations 20] [--damping 0.85]
        [--out FILE.npy] [--json FILE]

``python -m pybcl.apps.pagerank`` step for step with the pybcl containers
taken out: the same graph and share of it per rank, the edges routed to
their sources' owners with one Alltoallv (instead of pybcl queues), the same
per-target sums (``pybcl.apps.pagerank.arrange``, NumPy), and per iteration
the (target, sum) pairs sent to the targets' owners with two Alltoallv
calls (instead of a DArrayBuffer), each owner adding what it received with
``np.bincount``; one allreduce for the dangling rank.  Timed: the
iterations, between barriers, the slowest rank.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

from pybcl.apps import _edges, _graph      # NumPy only: generator, blocks
from pybcl.apps.pagerank import arrange

import _pagerank  # benchmarks/, the script's own folder


def alltoallv(comm, send, dest_counts, dtype):
    """Send send[...] grouped by destination (dest_counts per rank); what arrived."""
    recv_counts = np.empty_like(dest_counts)
    comm.Alltoall(dest_counts, recv_counts)
    sdispl = np.concatenate([[0], np.cumsum(dest_counts)[:-1]])
    rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]])
    got = np.empty(int(recv_counts.sum()), dtype=send.dtype)
    comm.Alltoallv([send, dest_counts, sdispl, dtype], [got, recv_counts, rdispl, dtype])
    return got


def main() -> int:
    a = _pagerank.parser(__doc__).parse_args()
    comm = MPI.COMM_WORLD
    me, P = comm.Get_rank(), comm.Get_size()
    n, d = 1 << a.scale, a.damping
    edges = _edges.kronecker_share(a.scale, a.edgefactor, a.seed, me, P)
    block = _graph.block_of(n, P)
    lo, hi = min(me * block, n), min(me * block + block, n)
    comm.Barrier()
    t0 = time.perf_counter()
    owner = edges[:, 0] // block
    order = np.argsort(owner, kind="stable")
    counts = np.bincount(owner, minlength=P).astype(np.int64)
    flat = np.ascontiguousarray(edges[order]).reshape(-1)
    got = alltoallv(comm, flat, 2 * counts, MPI.INT64_T).reshape(-1, 2)
    g = arrange(got[:, 0] - lo, np.ascontiguousarray(got[:, 1]), lo, hi, n)
    del got, flat, order
    # the targets are ascending, so each owner's are one run of them
    split = np.searchsorted(g.targets, np.arange(P + 1) * block)
    send_counts = np.diff(split).astype(np.int64)
    comm.Barrier()
    setup = time.perf_counter() - t0
    r = np.full(hi - lo, 1.0 / n)
    dangling = g.outdeg == 0
    inv_out = np.where(dangling, 0.0, 1.0 / np.maximum(g.outdeg, 1))
    comm.Barrier()
    t1 = time.perf_counter()
    for _ in range(a.iterations):
        lost = comm.allreduce(float(r[dangling].sum()), op=MPI.SUM)
        sums = g.sums(r * inv_out) if len(g.targets) else np.empty(0)
        at = alltoallv(comm, g.targets, send_counts, MPI.INT64_T)
        val = alltoallv(comm, sums, send_counts, MPI.DOUBLE)
        into = np.bincount(at - lo, weights=val, minlength=hi - lo)
        r = (1.0 - d) / n + d * (into + lost / n)
    comm.Barrier()
    seconds = comm.allreduce(time.perf_counter() - t1, op=MPI.MAX)
    setup = comm.allreduce(setup, op=MPI.MAX)
    whole = comm.gather(r, root=0)
    if me == 0:
        res = {"app": "pagerank_alltoallv", "ranks": P, "vertices": n,
               "edges": a.edgefactor << a.scale, "iterations": a.iterations, "damping": d}
        _pagerank.finish(a, res, setup, seconds, np.concatenate(whole))
    return 0


if __name__ == "__main__":
    sys.exit(main())
