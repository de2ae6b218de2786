"""The PageRank app's per-target sums (`_kernels.graph_block_sums`, the C pass
over the edges that `pagerank.OutEdges.sums` makes each iteration): equal
to NumPy's over several blocks, including the short last one and targets
without edges, and every out-of-range offset or index is a ValueError
naming it.  Plain C on one process: a local test (scripts/test_sets.sh)."""
import numpy as np
import pytest

from pybcl.apps import _kernels
from pybcl.apps.pagerank import arrange


def _reference(share, src, number, ntargets):
    out = np.zeros(ntargets)
    np.add.at(out, number, share[src])
    return out


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 16])
def test_sums_equal_numpys_over_every_block(block):
    rng = np.random.default_rng(block)
    nshare, ntargets, m = 300, 1000, 20000
    src = rng.integers(0, nshare, m)
    number = rng.integers(0, ntargets, m)
    number[number % 10 == 3] = 0           # targets without edges (all but 0 of them)
    order = np.lexsort((src, number // block))
    src, number = src[order], number[order]
    nblocks = -(-ntargets // block)
    bounds = np.searchsorted(number, np.arange(nblocks + 1) * block)
    share = rng.random(nshare)
    got = _kernels.graph_block_sums(share, src, number % block, bounds, ntargets, block)
    assert np.allclose(got, _reference(share, src, number, ntargets), rtol=1e-12, atol=0)


def test_the_apps_arrangement_sums_like_numpy():
    rng = np.random.default_rng(5)
    n, m = 200_000, 100_000                  # targets over several of the app's blocks
    src, tgt = rng.integers(0, 1000, m), rng.integers(0, n, m)
    g = arrange(src, tgt, 0, 1000, n)
    share = rng.random(1000)
    number = np.searchsorted(g.targets, tgt)
    assert np.allclose(g.sums(share), _reference(share, src, number, len(g.targets)),
                       rtol=1e-12, atol=0)


def _args(**change):
    a = dict(share=np.array([1.0, 2.0, 4.0, 8.0]), source=np.array([0, 3, 1]), slot=np.array([0, 1, 0]),
             bounds=np.array([0, 2, 3]), ntargets=3, block=2)
    a.update(change)
    return a


@pytest.mark.parametrize("change,match", [
    (dict(source=np.array([0, 4, 1])), r"source\[1\] is out of range"),
    (dict(source=np.array([0, -1, 1])), r"source\[1\] is out of range"),
    (dict(slot=np.array([0, 2, 0])), r"slot\[1\] is out of range"),
    (dict(slot=np.array([0, 1, 1])), r"slot\[2\] is out of range"),     # past ntargets
    (dict(bounds=np.array([0, 3, 2])), r"bounds\[2\] is out of range"),
    (dict(bounds=np.array([0, 2, 4])), r"bounds\[2\] is out of range"),
    (dict(bounds=np.array([0, 2])), r"bounds\[1\] is out of range"),     # edges left over
    (dict(bounds=np.array([0, 1, 2, 3])), r"bounds\[3\] is out of range"),  # too many blocks
    (dict(bounds=np.array([], dtype=np.int64)), "bounds at least one offset"),
    (dict(slot=np.array([0, 1])), "one value per source"),
    (dict(ntargets=-1), "ntargets"),
    (dict(block=0), "block"),
])
def test_out_of_range_offsets_and_indices_raise_naming_them(change, match):
    with pytest.raises(ValueError, match=match):
        _kernels.graph_block_sums(**_args(**change))


def test_arguments_of_the_wrong_kind_raise_naming_them():
    with pytest.raises((TypeError, ValueError), match="source"):
        _kernels.graph_block_sums(**_args(source=np.array([0.5, 1.0, 2.0])))
    with pytest.raises(TypeError, match="share"):
        _kernels.graph_block_sums(**_args(share="abc"))
    assert np.array_equal(_kernels.graph_block_sums(**_args()), [1.0, 8.0, 2.0])
