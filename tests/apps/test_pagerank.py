"""PageRank: the pybcl power iteration equals a dense NumPy one (1e-12 in L1)
on small graphs -- dangling vertices, self-loops, parallel edges, a
generated graph -- at any rank count and transport."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok
from graphs import HAND_MADE, dense_pagerank, share
from pybcl.apps import _edges, pagerank

DIRECTED = {
    # 3 and 4 have no out-edge (dangling); 5 has no edge at all
    "dangling": [[0, 1], [1, 2], [2, 0], [0, 3], [2, 4], [6, 0]],
    "self_loops_and_parallel_edges": [[0, 0], [0, 1], [0, 1], [0, 1], [1, 2], [2, 2],
                                      [2, 0], [3, 2], [3, 2]],
    "one_vertex_loop": [[0, 0]],
}


def ranks_of(edges, n, iterations=20, damping=0.85):
    rank, res = pagerank.run_pagerank(share(edges), n, iterations, damping)
    r = np.asarray(rank)
    rank.close()
    return r, res


@pytest.mark.parametrize("name", sorted(DIRECTED) + ["star", "parts"])
def test_pagerank_equals_dense_power_iteration(name):
    edges = np.array(DIRECTED.get(name) or HAND_MADE[name])
    n = int(edges.max()) + 1
    r, res = ranks_of(edges, n)
    want = dense_pagerank(edges, n, 20, 0.85)
    ok = np.abs(r - want).sum() <= 1e-12 and abs(r.sum() - 1) < 1e-12
    ok = ok and res["vertices"] == n and res["edges"] == len(edges)
    assert all_ok(ok), np.abs(r - want).sum()


def test_pagerank_of_a_kronecker_graph_with_isolated_vertices():
    # n = 2^scale includes vertices without edges (as --scale runs it)
    scale = 8
    edges = np.concatenate([_edges.kronecker_share(scale, 8, 2, r, 3) for r in range(3)])
    n = 1 << scale
    r, res = ranks_of(edges, n, iterations=30, damping=0.9)
    want = dense_pagerank(edges, n, 30, 0.9)
    assert all_ok(np.abs(r - want).sum() <= 1e-12 and abs(res["rank_sum"] - 1) < 1e-12)


@pytest.mark.parametrize("iterations,damping", [(0, 0.85), (5, 0.0), (5, 1.0)])
def test_pagerank_edge_cases_of_the_parameters(iterations, damping):
    edges = np.array(DIRECTED["dangling"])
    r, _ = ranks_of(edges, 7, iterations, damping)
    assert all_ok(np.abs(r - dense_pagerank(edges, 7, iterations, damping)).sum() <= 1e-12)


def test_pagerank_rejects_bad_parameters():
    edges = share(np.array(DIRECTED["dangling"]))
    with pytest.raises(ValueError, match="damping"):
        pagerank.run_pagerank(edges, 7, 3, 1.5)
    with pytest.raises(ValueError, match="iterations"):
        pagerank.run_pagerank(edges, 7, -1, 0.5)
    pybcl.barrier()


def test_pagerank_without_packed_keys(monkeypatch):
    # above 2^31 vertices an edge travels as two words: the same ranks result
    from pybcl.apps import _graph
    monkeypatch.setattr(_graph, "pair_bits", lambda n: 32)
    edges = np.array(DIRECTED["self_loops_and_parallel_edges"])
    r, _ = ranks_of(edges, 4)
    assert all_ok(np.abs(r - dense_pagerank(edges, 4, 20, 0.85)).sum() <= 1e-12)
