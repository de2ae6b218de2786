"""update_many and DArrayBuffer with op='min' / 'max': the element type's
comparison (signed integers, floats; unsigned ones are refused), folding
within a call, and no lost update when every rank hits the same elements at
once."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok

DTYPES = ["int8", "int16", "int32", "int64", "float32", "float64"]
NP_OPS = {"min": np.minimum, "max": np.maximum}


def _values(rng, dtype, n):
    """Values spanning the type, negatives included (a compare done as
    unsigned gets these wrong)."""
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is None:
        return rng.uniform(-1e6, 1e6, n).astype(dtype)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)


def _updates(rank, size, dtype, n=200):
    rng = np.random.default_rng(7000 + rank)
    idx = rng.integers(0, size, n)
    idx[:12] = idx[0]                       # one element 12 times in one call
    return idx, _values(rng, dtype, n)


def _expected(P, size, dtype, op, init):
    want = init.copy()
    for r in range(P):
        idx, vals = _updates(r, size, dtype)
        NP_OPS[op].at(want, idx, vals)
    return want


def _fresh(size, dtype, make=pybcl.DArray):
    a = make(size, dtype)
    init = _values(np.random.default_rng(1), dtype, size)
    if pybcl.rank() == 0:
        a[0:size] = init
    pybcl.barrier()
    return a, init


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_update_many_min_max_match_numpy(dtype, op):
    P = pybcl.nprocs()
    size = 30 * P + 5
    a, init = _fresh(size, dtype)
    idx, vals = _updates(pybcl.rank(), size, dtype)
    a.update_many(idx[:90], vals[:90], op=op)
    a.update_many(idx[90:], vals[90:], op=op)
    pybcl.barrier()
    assert all_ok(np.array_equal(a[0:size], _expected(P, size, dtype, op, init)))


@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", ["int16", "int64", "float64"])
def test_darraybuffer_min_max_match_numpy(dtype, op):
    P = pybcl.nprocs()
    size = 30 * P + 5
    a, init = _fresh(size, dtype)
    idx, vals = _updates(pybcl.rank(), size, dtype)
    with pybcl.DArrayBuffer(a, 5, op=op) as buf:      # 5: many messages per owner
        assert buf.op == op
        buf.update_many(idx[:120], vals[:120])
        buf.flush()
        buf.update_many(idx[120:], vals[120:])
    assert all_ok(np.array_equal(a[0:size], _expected(P, size, dtype, op, init)))


def test_update_many_min_on_a_hosted_array():
    P = pybcl.nprocs()
    a, init = _fresh(6 * P, "int32", make=lambda n, d: pybcl.Array(P - 1, n, d))
    a.update_many([-1, 0, -1], np.int32(-(1 << 31)), op="min")
    pybcl.barrier()
    want = init.copy()
    want[[0, -1]] = -(1 << 31)
    assert all_ok(np.array_equal(a[0:a.size], want))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64"])
def test_all_ranks_racing_on_the_same_elements_keep_the_extreme(dtype):
    """Every rank sends, round after round, a value to the same few elements
    with min (and to others with max); its sequence goes down (up) with
    interleaved noise.  Whatever the interleaving, each element must end as
    the smallest (largest) value any rank sent it: a CAS loop that lost a
    race and wrote a worse value back, or a plain store, would show."""
    P, me = pybcl.nprocs(), pybcl.rank()
    lo, hi = pybcl.DArray(3 * P, dtype), pybcl.DArray(3 * P, dtype)
    start = 100_000
    lo.local()[:] = start
    hi.local()[:] = 0
    pybcl.barrier()
    hot = np.array([0, lo.size // 2, lo.size - 1] * 4)    # each element 4 times per call
    rounds = 60
    rng = np.random.default_rng(me)
    sent_min = np.full(lo.size, start, dtype=np.float64)   # what this rank sent, per element
    sent_max = np.zeros(lo.size)
    for k in range(rounds):
        down = start - 1 - (k * P + me) * 7 - rng.integers(0, 5, hot.size)
        up = (k * P + me) * 7 + rng.integers(0, 5, hot.size)
        lo.update_many(hot, down.astype(dtype), op="min")
        hi.update_many(hot, up.astype(dtype), op="max")
        np.minimum.at(sent_min, hot, down)
        np.maximum.at(sent_max, hot, up)
    pybcl.barrier()
    want_min = pybcl.allreduce(sent_min, op="min")
    want_max = pybcl.allreduce(sent_max, op="max")
    ok = bool(np.array_equal(lo[0:lo.size].astype(np.float64), want_min))
    ok = ok and bool(np.array_equal(hi[0:hi.size].astype(np.float64), want_max))
    assert all_ok(ok)


def test_darraybuffer_min_from_every_rank_keeps_the_first_claim():
    """The pattern a BFS uses for parents: values encode (round << 32 | rank),
    every rank claims every element each round, min keeps round 0's claim of
    the lowest rank, and later rounds never overwrite it."""
    P, me = pybcl.nprocs(), pybcl.rank()
    size = 16 * P
    a = pybcl.DArray(size, "int64")
    a.local()[:] = np.iinfo(np.int64).max
    pybcl.barrier()
    with pybcl.DArrayBuffer(a, 8, op="min") as buf:
        for rnd in range(3):
            order = np.random.default_rng(rnd * 100 + me).permutation(size)
            buf.update_many(order, (rnd << 32) | (P - 1 - me))
            buf.flush()
    assert all_ok(np.all(a[0:size] == 0))


def test_min_max_bad_input():
    with pytest.raises(TypeError, match="dtype"):
        pybcl.DArray(4, "bool").update_many([0], True, op="min")
    # MPICH 4.0's MPI_Accumulate compares unsigned integers as signed: refused
    # on every transport, so that shm and rma agree
    for dtype in ("uint8", "uint32", "uint64"):
        u = pybcl.DArray(4, dtype)
        for op in ("min", "max"):
            with pytest.raises(TypeError, match="signed"):
                u.update_many([0], 1, op=op)
            with pytest.raises(TypeError, match="signed"):
                pybcl.DArrayBuffer(u, 4, op=op)
    f = pybcl.DArray(4, "float64")
    with pytest.raises(TypeError, match="op"):
        f.update_many([0], 1.0, op="or")
    with pytest.raises(ValueError, match="'min', 'max'"):
        f.update_many([0], 1.0, op="minimum")
    pybcl.barrier()
