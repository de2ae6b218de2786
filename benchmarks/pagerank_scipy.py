"""PageRank with SciPy's sparse matrix-vector product on one core: the
single-core baseline of benchmarks/bench_graph.py.

    python benchmarks/pagerank_scipy.py [--scale 20] [--edgefactor 16] [--seed 1]
        [--iterations 20] [--damping 0.85] [--out FILE.npy] [--json FILE]

The same graph as ``python -m pybcl.apps.pagerank --scale S`` (the Graph500
Kronecker edges as generated, n = 2^S, every pair an edge u -> v) and the
same iteration: A[v, u] = number of edges u -> v as a CSR matrix (duplicates
summed), then per iteration x = r / outdeg, r = (1 - d) / n + d * (A @ x +
dangling rank / n).  Timed: the iterations (setup reported apart).  Needs
SciPy (``pip install "pybcl-mpi[benchmarks]"``); one thread (the product is
single-threaded; BLAS is held to one thread by the caller's environment).
"""
import sys
import time

import numpy as np

import _pagerank  # benchmarks/, the script's own folder


def main() -> int:
    a = _pagerank.parser(__doc__).parse_args()
    import scipy
    import scipy.sparse as sp

    from pybcl.apps import _edges          # the generator only: NumPy, no MPI
    edges = _edges.kronecker_share(a.scale, a.edgefactor, a.seed, 0, 1)
    n, d = 1 << a.scale, a.damping
    t0 = time.perf_counter()
    A = sp.csr_matrix((np.ones(len(edges)), (edges[:, 1], edges[:, 0])), shape=(n, n))
    outdeg = np.bincount(edges[:, 0], minlength=n)
    dangling = outdeg == 0
    inv_out = np.where(dangling, 0.0, 1.0 / np.maximum(outdeg, 1))
    setup = time.perf_counter() - t0
    r = np.full(n, 1.0 / n)
    t1 = time.perf_counter()
    for _ in range(a.iterations):
        r = (1.0 - d) / n + d * (A @ (r * inv_out) + r[dangling].sum() / n)
    seconds = time.perf_counter() - t1
    res = {"app": "pagerank_scipy", "scipy": scipy.__version__, "vertices": n,
           "edges": len(edges), "nnz": int(A.nnz), "iterations": a.iterations, "damping": d}
    _pagerank.finish(a, res, setup, seconds, r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
