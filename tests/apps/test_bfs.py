"""Graph500 BFS: the search's levels against a serial BFS on hand-made and
generated graphs, at any rank count and transport; root choice; the
generator's independence of the rank count."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok
from graphs import HAND_MADE, serial_levels, share
from pybcl.apps import _edges, _graph, _kronecker, bfs
from pybcl.apps._bfs_search import Searcher
from pybcl.apps._bfs_validate import validate


def search_all(edges, roots, direction):
    """Collective: (levels, parents, verdict) of a search from each root."""
    mine = share(edges)
    g = _graph.build_csr(mine)
    s = Searcher(g, direction)
    out = []
    try:
        for r in roots:
            s.search(int(r))
            parents = np.asarray(s.parents)
            levels = s.levels()
            out.append((levels, parents, validate(parents, int(r), mine, levels)))
    finally:
        s.close()
    return g.n, out


@pytest.mark.parametrize("direction", ["auto", "top-down"])
@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_levels_match_a_serial_bfs_on_hand_made_graphs(name, direction):
    edges = np.array(HAND_MADE[name])
    n = int(edges.max()) + 1
    n_, results = search_all(edges, range(n), direction)
    ok = n_ == n
    for root, (levels, parents, verdict) in enumerate(results):
        want = serial_levels(edges, n, root)
        ok = ok and np.array_equal(levels, want) and verdict.ok
        ok = ok and parents[root] == root and np.array_equal(parents >= 0, want >= 0)
        # nedge: the input edges in the root's component, self-loops and duplicates included
        ok = ok and verdict.nedge == int(np.sum(want[edges[:, 0]] >= 0))
    assert all_ok(ok)


@pytest.mark.parametrize("scale,direction", [(7, "auto"), (9, "auto"), (8, "top-down")])
def test_levels_match_a_serial_bfs_on_kronecker_graphs(scale, direction):
    edges = np.concatenate([_edges.kronecker_share(scale, 16, 3, r, 1) for r in range(1)])
    n = int(edges.max()) + 1
    rng = np.random.default_rng(scale)
    roots = rng.choice(np.unique(edges[edges[:, 0] != edges[:, 1]]), 3, replace=False)
    roots = np.append(roots, n - 1)          # whatever its degree
    n_, results = search_all(edges, roots, direction)
    ok = n_ == n
    for root, (levels, _, verdict) in zip(roots, results):
        ok = ok and np.array_equal(levels, serial_levels(edges, n, int(root))) and verdict.ok
    assert all_ok(ok)


def test_run_bfs_reports_the_graph500_figures():
    edges = share(np.concatenate([_edges.kronecker_share(8, 16, 1, r, 2) for r in range(2)]))
    res = bfs.run_bfs(edges, roots=5, seed=4)
    ok = res["validated"] and res["nbfs"] == 5 and len(res["bfs_seconds"]) == 5
    ok = ok and res["edges"] == 16 << 8 and res["ranks"] == pybcl.nprocs()
    ok = ok and len(set(res["roots"])) == 5 and res["construction_s"] > 0
    ok = ok and res["teps_min"] <= res["teps_median"] <= res["teps_max"]
    ok = ok and res["teps_min"] <= res["teps_harmonic_mean"] <= res["teps_max"]
    everyone = pybcl.comm().allgather((res["roots"], res["bfs_seconds"], res["nedge"]))
    assert all_ok(ok and all(x == everyone[0] for x in everyone))


def test_roots_have_an_edge_other_than_a_self_loop():
    # vertex 9 has only a self-loop, 5 no edge: never roots; fewer candidates
    # than asked for gives every candidate once
    edges = np.array(HAND_MADE["parts"])
    g = _graph.build_csr(share(edges))
    keys = bfs.search_keys(g, 64, seed=1)
    want = {0, 1, 2, 3, 4, 6, 7, 8, 10, 11}
    ok = sorted(keys.tolist()) == sorted(want)
    few = bfs.search_keys(g, 4, seed=2)
    ok = ok and len(set(few.tolist())) == 4 and set(few.tolist()) <= want
    assert all_ok(ok)


def test_run_bfs_refuses_a_root_that_is_not_a_vertex():
    edges = share(np.array(HAND_MADE["path"]))
    with pytest.raises(ValueError, match="--root 12"):
        bfs.run_bfs(edges, root=12)
    res = bfs.run_bfs(edges, root=11, keep_parents=True)      # the path's far end
    want = list(range(1, 12)) + [11]
    assert all_ok(res["validated"] and res["parents"].tolist() == want)


def test_a_root_without_edges_is_a_search_of_one_vertex():
    edges = np.array(HAND_MADE["parts"])
    res = bfs.run_bfs(share(edges), root=9, keep_parents=True)   # only a self-loop
    parents = res["parents"]
    ok = res["validated"] and parents[9] == 9 and int(np.sum(parents >= 0)) == 1
    ok = ok and res["nedge"] == [1] and res["nbfs"] == 1   # its self-loop is in its component
    assert all_ok(ok)


def test_kronecker_graph_is_the_same_at_every_rank_count():
    perm = _kronecker.vertex_permutation(9, 5)
    whole = _kronecker.kronecker_edges(9, 16, 5, 0, 1, perm)
    for P in (2, 3, 7):
        parts = [_kronecker.kronecker_edges(9, 16, 5, r, P, perm) for r in range(P)]
        assert np.array_equal(np.concatenate(parts), whole)
    assert whole.shape == (16 << 9, 2) and whole.min() >= 0 and whole.max() < 1 << 9
    assert sorted(perm.tolist()) == list(range(1 << 9))


def test_kronecker_quadrant_frequencies_are_the_initiator():
    # one bit: the quadrant of each edge is (row bit, column bit)
    ij = _kronecker._piece(1, 200_000, 11, 0)
    freq = np.bincount(ij[:, 0] * 2 + ij[:, 1], minlength=4) / len(ij)
    want = np.array([0.57, 0.19, 0.19, 0.05])
    assert np.all(np.abs(freq - want) < 0.005), freq
    # every bit of a 20-bit piece draws from the same initiator
    ij = _kronecker._piece(20, 50_000, 11, 1)
    for bit in (0, 9, 19):
        q = ((ij[:, 0] >> bit) & 1) * 2 + ((ij[:, 1] >> bit) & 1)
        assert np.all(np.abs(np.bincount(q, minlength=4) / len(q) - want) < 0.01)


def test_exchange_rows_delivers_every_row_once():
    P, me = pybcl.nprocs(), pybcl.rank()
    rng = np.random.default_rng(me)
    for width in (1, 2, 3):
        rows = np.arange(200 * width, dtype=np.int64).reshape(200, width) + me * 10_000
        dest = rng.integers(0, P, 200)
        got = _graph.exchange_rows(rows, dest)
        sent = pybcl.comm().allgather((rows, dest))
        want = np.concatenate([r[d == me] for r, d in sent])
        distinct = np.unique(got, axis=0)      # every row sent is distinct
        ok = got.shape == want.shape and len(distinct) == len(got)
        assert all_ok(ok and np.array_equal(distinct, np.unique(want, axis=0)))


def test_kernel_1_without_packed_keys_builds_the_same_rows(monkeypatch):
    # above 2^31 vertices an edge travels as two words: the same graph results
    edges = share(np.concatenate([_edges.kronecker_share(8, 16, 7, r, 1) for r in range(1)]))
    packed = _graph.build_csr(edges)
    monkeypatch.setattr(_graph, "pair_bits", lambda n: 32)
    pairs = _graph.build_csr(edges)
    assert all_ok(np.array_equal(packed.rowptr, pairs.rowptr) and
                  np.array_equal(packed.col, pairs.col) and (packed.lo, packed.hi) ==
                  (pairs.lo, pairs.hi))
