"""pybcl.DArray / pybcl.Array: element and slice access across owners,
owner/ptr/local, bounds and type checks.  Runs at any rank count (1, 2, 4)."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok

R, P = pybcl.rank(), pybcl.nprocs()


def expected_block(size):
    return max(1, -(-size // P))


@pytest.mark.parametrize("size", [1, 7, 10, 33])
def test_layout_owner_local(size):
    a = pybcl.DArray(size)
    blk = expected_block(size)
    assert len(a) == size and a.size == size and a.dtype == np.dtype("int64")
    assert [a.owner(i) for i in range(size)] == [i // blk for i in range(size)]
    lo, hi = min(size, R * blk), min(size, (R + 1) * blk)
    assert a.local_range() == (lo, hi)
    loc = a.local()
    assert loc.shape == (hi - lo,)
    loc[:] = np.arange(lo, hi) * 10          # zero-copy: visible to everyone
    pybcl.barrier()
    ok = a[:].tolist() == [10 * i for i in range(size)]
    ok &= all(a[i] == 10 * i for i in range(size))
    ok &= a[-1] == 10 * (size - 1)
    assert all_ok(ok)


@pytest.mark.mpi
def test_slices_cross_block_boundaries():
    size = 4 * P + 3                     # blocks of ~4, ragged last block
    a = pybcl.DArray(size, "float64")
    blk = expected_block(size)
    if R == P - 1:
        a[0:size] = np.arange(size, dtype=np.float64) + 0.5
    pybcl.barrier()
    ref = np.arange(size, dtype=np.float64) + 0.5
    ok = np.array_equal(a[:], ref)
    for start in range(size):            # every window straddling boundaries
        for stop in (start + 1, start + blk, start + blk + 1, start + 2 * blk + 1, size):
            stop = min(stop, size)
            ok &= np.array_equal(a[start:stop], ref[start:stop])
    ok &= np.array_equal(a[::3], ref[::3]) and np.array_equal(a[::-2], ref[::-2])
    ok &= np.array_equal(a[-5:], ref[-5:]) and np.array_equal(a[5:2], ref[5:2])
    assert all_ok(ok)
    pybcl.barrier()
    # every rank writes a window that crosses its neighbour's boundary
    start = (R * blk + blk // 2) % size
    stop = min(size, start + blk + 1)
    pybcl.barrier()
    if R % 2 == 0:
        a[start:stop] = -np.arange(start, stop, dtype=np.float64)
    pybcl.barrier()
    if R % 2 == 0:
        ok = np.array_equal(a[start:stop], -np.arange(start, stop, dtype=np.float64))
    else:
        ok = True
    assert all_ok(ok)


def test_slice_assignment_forms():
    a = pybcl.DArray(3 * P + 1, "int32")
    pybcl.barrier()
    if R == 0:
        a[:] = 7                                 # broadcast one value
        a[1:3] = [1, 2]
        a[::2] = np.full(len(range(0, len(a), 2)), 9)
        a[-1] = -1
    pybcl.barrier()
    ref = np.full(3 * P + 1, 7, dtype=np.int32)
    ref[1:3] = [1, 2]
    ref[::2] = 9
    ref[-1] = -1
    assert all_ok(np.array_equal(a[:], ref) and a[:].dtype == np.int32)


def test_ptr_is_a_global_pointer():
    a = pybcl.DArray(2 * P + 1, "int64")
    pybcl.barrier()
    n = len(a)
    i = (R * 2 + 1) % n
    p = a.ptr(i)
    assert p.rank == a.owner(i) and p.dtype == np.dtype("int64")
    pybcl.fetch_and_add(p, 1)
    pybcl.barrier()
    mine = [j for j in range(n) if j in {(r * 2 + 1) % n for r in range(P)}]
    counts = {j: sum(1 for r in range(P) if (r * 2 + 1) % n == j) for j in mine}
    ok = all(pybcl.atomic_load(a.ptr(j)) == counts[j] for j in mine)
    ok &= a.ptr(-1) == a.ptr(n - 1)
    assert all_ok(ok)


def test_array_on_nonzero_host():
    host = P - 1 if P > 1 else 0
    if P > 1:
        assert host != 0
    h = pybcl.Array(host, 10, "float64")
    assert len(h) == 10 and h.host == host
    assert all(h.owner(i) == host for i in range(10)) and h.ptr(3).rank == host
    if R == host:
        view = h.local()
        assert view.shape == (10,)
        view[:] = np.arange(10) * 1.5
    else:
        with pytest.raises(ValueError, match="host"):
            h.local()
    pybcl.barrier()
    ok = np.array_equal(h[:], np.arange(10) * 1.5) and h[2] == 3.0
    pybcl.barrier()
    if R == 0:
        h[3:6] = [-1.0, -2.0, -3.0]
    pybcl.barrier()
    ok &= h[3:6].tolist() == [-1.0, -2.0, -3.0]
    if R == host:
        ok &= h.local()[4] == -2.0
    assert all_ok(ok)


def test_structured_and_bytes_dtypes():
    dt = np.dtype([("x", "<i4"), ("y", "<f8")])
    a = pybcl.DArray(P + 2, dt)
    pybcl.barrier()
    if R == 0:
        a[0:P + 2] = np.array([(i, i / 2) for i in range(P + 2)], dtype=dt)
    pybcl.barrier()
    ok = a[P + 1]["x"] == P + 1 and a[:]["y"].tolist() == [i / 2 for i in range(P + 2)]
    s = pybcl.Array(0, 4, "S8")
    pybcl.barrier()
    if R == P - 1:
        s[1] = b"hello"
    pybcl.barrier()
    ok &= s[1] == b"hello" and s[0] == b""
    assert all_ok(ok)


def test_empty_and_tiny():
    a = pybcl.DArray(0)
    assert len(a) == 0 and a[:].shape == (0,) and a.local().shape == (0,)
    with pytest.raises(IndexError):
        a[0]
    b = pybcl.DArray(1)        # ranks > 0 own nothing
    assert b.local().shape == ((1,) if R == 0 else (0,))


def test_bad_inputs():
    a = pybcl.DArray(5)
    n = len(a)
    for bad in (n, -n - 1, 10**30):
        with pytest.raises(IndexError):
            a[bad]
        with pytest.raises(IndexError):
            a[bad] = 1
        with pytest.raises(IndexError):
            a.owner(bad)
        with pytest.raises(IndexError):
            a.ptr(bad)
    with pytest.raises(TypeError, match="indices"):
        a[1.5]
    with pytest.raises(TypeError, match="indices"):
        a["x"]
    with pytest.raises(TypeError):
        del a[0]
    with pytest.raises(ValueError, match="value"):
        a[0:3] = [1, 2]
    with pytest.raises(TypeError, match="value"):
        a[0] = "abc"
    with pytest.raises(TypeError, match="value"):
        a[0:2] = ["abc", "def"]
    with pytest.raises(ValueError, match="size"):
        pybcl.DArray(-1)
    with pytest.raises(TypeError, match="size"):
        pybcl.DArray(2.5)
    for spec in (bytes, str, object, "str", "object"):
        with pytest.raises(TypeError, match="dtype"):
            pybcl.DArray(4, spec)
        with pytest.raises(TypeError, match="dtype"):
            pybcl.Array(0, 4, spec)
    with pytest.raises(TypeError, match="dtype"):
        pybcl.DArray(4, "not-a-dtype")
    with pytest.raises(ValueError, match="host"):
        pybcl.Array(P, 4)
    with pytest.raises(ValueError, match="host"):
        pybcl.Array(-1, 4)
    with pytest.raises(pybcl.SegmentFull):
        pybcl.DArray(2**40 * P)
    pybcl.barrier()
    assert all_ok(a[:].tolist() == [0] * n)     # nothing was written


@pytest.mark.parametrize("size", [0, 1, 5 * P + 3])
def test_asarray_gathers_every_ranks_writes(size):
    """np.asarray(darray) is collective: every rank gets the whole array,
    including the writes every rank made just before (no barrier of its own
    needed), and a rank's writes right after do not tear the others' copies."""
    a = pybcl.DArray(size, "int64")
    lo, hi = a.local_range()
    a.local()[:] = np.arange(lo, hi) * 3 + R          # each rank its own block
    got = np.asarray(a)
    if size:
        a[(R * 7) % size] = -1                        # all ranks write at once
    want = np.array([3 * i + a.owner(i) for i in range(size)], dtype=np.int64)
    ok = got.shape == (size,) and got.dtype == np.dtype("int64")
    ok &= bool(np.array_equal(got, want))
    pybcl.barrier()
    assert all_ok(ok)


def test_asarray_dtype_and_copy_keywords():
    a = pybcl.DArray(4 * P, "int32")
    a.local()[:] = 2
    f = np.asarray(a, dtype=np.float64)               # NumPy casts via __array__
    ok = f.dtype == np.dtype("float64") and bool((f == 2.0).all())
    ok &= np.array(a).tolist() == [2] * (4 * P)
    try:
        a.__array__(copy=False)                     # every rank still joins the gather
        ok = False
    except ValueError as e:
        ok &= "copy" in str(e)
    assert all_ok(ok)


def test_iteration_yields_elements():
    """for x in a: DArray and Array alike, in index order, like a[i]."""
    d = pybcl.DArray(3 * P + 1, "float64")
    h = pybcl.Array(P - 1, 6, "int16")
    if R == 0:
        d[:] = np.arange(3 * P + 1) / 2
        h[:] = [5, 4, 3, 2, 1, 0]
    pybcl.barrier()
    ok = list(d) == [i / 2 for i in range(3 * P + 1)]
    ok &= [int(x) for x in h] == [5, 4, 3, 2, 1, 0]
    ok &= type(next(iter(h))) is type(h[0])
    ok &= np.asarray(h).tolist() == [5, 4, 3, 2, 1, 0]    # Array: a read from its host
    ok &= sum(1 for _ in pybcl.DArray(0)) == 0
    pybcl.barrier()
    assert all_ok(ok)


def test_repr_is_the_constructor_call():
    d = pybcl.DArray(7, "float32")
    h = pybcl.Array(0, 3, dtype="S4")
    ok = repr(d) == "pybcl.DArray(size=7, dtype='float32')"
    ok &= repr(h) == "pybcl.Array(host=0, size=3, dtype='|S4')"
    assert all_ok(ok)


def test_shape_and_ndim_as_numpy_has_them():
    d = pybcl.DArray(7 * pybcl.nprocs())
    h = pybcl.Array(0, 3)
    ok = d.shape == (d.size,) == np.asarray(d).shape and d.ndim == 1
    ok &= h.shape == (3,) and h.ndim == 1
    assert all_ok(ok)
