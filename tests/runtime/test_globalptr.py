"""Global pointers: arithmetic, comparison, pickling, get/put, local views, bad input."""
import pickle

import numpy as np
import pytest

import pybcl
from conftest import all_ok


def test_null_pointer_is_falsy():
    assert not pybcl.NULL
    assert pybcl.NULL + 1
    assert pybcl.GlobalPtr(3, 0) == pybcl.NULL


def test_arithmetic_is_elementwise():
    p = pybcl.GlobalPtr(1, 4096, "int32")
    assert (p + 3).offset == 4096 + 12
    assert (3 + p).offset == 4096 + 12
    assert (p + 3) - p == 3
    assert ((p + 5) - 2).offset == 4096 + 12
    assert (p + 1) > p and p < (p + 1) and p <= p
    assert pybcl.GlobalPtr(0, 9999) < pybcl.GlobalPtr(1, 0)


def test_pointers_hash_and_compare_by_address():
    a, b = pybcl.GlobalPtr(1, 4096), pybcl.GlobalPtr(1, 4096)
    assert a == b and hash(a) == hash(b)
    assert len({a, b, a + 1}) == 2
    assert a != pybcl.GlobalPtr(0, 4096)


def test_pickle_round_trip_keeps_dtype():
    p = pybcl.GlobalPtr(2, 8192, np.dtype([("x", "<f8"), ("n", "<i4")]))
    q = pickle.loads(pickle.dumps(p))
    assert q == p and q.dtype == p.dtype and q.rank == 2 and q.offset == 8192


def test_pointer_arithmetic_errors():
    p = pybcl.GlobalPtr(0, 16)
    with pytest.raises(OverflowError):
        p - 3
    with pytest.raises(ValueError, match="different"):
        pybcl.GlobalPtr(0, 4096) - pybcl.GlobalPtr(1, 4096)
    with pytest.raises(ValueError, match="whole number"):
        pybcl.GlobalPtr(0, 4100, "int64") - pybcl.GlobalPtr(0, 4096, "int64")
    with pytest.raises(ValueError, match="rank"):
        pybcl.GlobalPtr(-1, 0)
    with pytest.raises(TypeError, match="dtype"):
        pybcl.GlobalPtr(0, 0, "not-a-dtype")


def test_local_get_put_and_view():
    p = pybcl.alloc(8, "float64")
    view = p.local()
    assert view.shape == (8,) and view.dtype == np.float64
    view[:] = np.arange(8) * 0.5
    pybcl.barrier()
    assert p[3] == 1.5
    p[3] = 42.0
    assert view[3] == 42.0
    assert np.array_equal(p[2:5], [1.0, 42.0, 2.0])
    p[0:2] = [7, 8]
    assert np.array_equal(pybcl.rget(p, 2), [7.0, 8.0])
    assert (p + 2).local(count=3).shape == (3,)
    pybcl.free(p)


def test_structured_and_bytes_dtypes():
    rec = np.dtype([("id", "<u8"), ("name", "S8")])
    p = pybcl.alloc(3, rec)
    p[1] = (7, b"seven")
    got = p[1]
    assert got["id"] == 7 and got["name"] == b"seven"
    s = pybcl.alloc(2, "S4")
    s[0:2] = np.array([b"ab", b"cdef"], dtype="S4")
    assert list(s[0:2]) == [b"ab", b"cdef"]
    pybcl.free(p)
    pybcl.free(s)


def test_rput_accepts_any_buffer():
    p = pybcl.alloc(4, "int32")
    pybcl.rput(p, np.array([1, 2, 3, 4], dtype=np.int32))
    pybcl.flush()
    assert list(p[0:4]) == [1, 2, 3, 4]
    pybcl.rput(p, np.array([5, 6], dtype=np.int32).tobytes())
    pybcl.rput(p + 2, [9, 10])
    pybcl.flush()
    assert list(pybcl.rget(p, 4)) == [5, 6, 9, 10]
    with pytest.raises(ValueError, match="whole number"):
        pybcl.rput(p, b"abc")
    pybcl.free(p)


def test_alloc_and_free_errors():
    with pytest.raises(ValueError, match="count"):
        pybcl.alloc(-1)
    with pytest.raises(TypeError, match="count"):
        pybcl.alloc("3")
    with pytest.raises(TypeError, match="dtype"):
        pybcl.alloc(1, object)
    with pytest.raises(pybcl.SegmentFull):
        pybcl.alloc(1 << 62, "int8")
    p = pybcl.alloc(2)
    pybcl.free(p)
    with pytest.raises(ValueError, match="not the start"):
        pybcl.free(p)
    with pytest.raises(ValueError, match="not the start"):
        pybcl.free(pybcl.GlobalPtr(pybcl.rank(), 1 << 20))
    with pytest.raises(TypeError, match="GlobalPtr"):
        pybcl.free(1234)
    assert issubclass(pybcl.SegmentFull, MemoryError)
    assert issubclass(pybcl.SegmentFull, pybcl.Error)


def test_segment_full_then_reuse():
    """Fill the segment, free everything, and the space comes back (coalesced)."""
    size = 1 << 20
    blocks = []
    with pytest.raises(pybcl.SegmentFull):
        while True:
            blocks.append(pybcl.alloc(size // 8 - 1, "int64"))
    for b in blocks:
        pybcl.free(b)
    big = pybcl.alloc(len(blocks) * (size // 8 - 1), "int64")
    pybcl.free(big)


def test_out_of_segment_access_is_an_error():
    seg = pybcl._core.segment_size()
    with pytest.raises(IndexError, match="past the end"):
        pybcl.GlobalPtr(pybcl.rank(), seg - 8)[1]
    with pytest.raises(IndexError, match="past the end"):
        pybcl.rget(pybcl.GlobalPtr(0, seg - 8), 2)
    with pytest.raises(IndexError, match="rank"):
        pybcl.GlobalPtr(pybcl.nprocs(), 4096)[0]
    with pytest.raises(IndexError, match="null"):
        pybcl.NULL[0]
    with pytest.raises(IndexError, match="null"):
        pybcl.NULL[0] = 1
    with pytest.raises(ValueError, match="stop"):
        pybcl.GlobalPtr(0, 4096)[2:]


def test_local_of_remote_pointer_is_an_error():
    other = (pybcl.rank() + 1) % max(pybcl.nprocs(), 2)
    with pytest.raises(ValueError, match="owned by rank"):
        pybcl.GlobalPtr(other, 4096).local()


@pytest.mark.mpi(min_size=2)
def test_remote_get_put_ring():
    me, n = pybcl.rank(), pybcl.nprocs()
    mine = pybcl.alloc(16, "int64")
    mine.local()[:] = -1
    ptrs = [pybcl.broadcast(mine, root=r) for r in range(n)]
    right = ptrs[(me + 1) % n]
    right[0:16] = np.arange(16) + 100 * me
    pybcl.barrier()
    left = (me - 1) % n
    ok = np.array_equal(mine.local(), np.arange(16) + 100 * left)
    ok = ok and np.array_equal(right[0:16], np.arange(16) + 100 * me)
    pybcl.barrier()
    pybcl.free(mine)
    assert all_ok(ok)


@pytest.mark.mpi(min_size=2)
def test_free_of_remote_pointer_is_an_error():
    mine = pybcl.alloc(1)
    ptrs = [pybcl.broadcast(mine, root=r) for r in range(pybcl.nprocs())]
    other = ptrs[(pybcl.rank() + 1) % pybcl.nprocs()]
    with pytest.raises(ValueError, match="only the owner"):
        pybcl.free(other)
    pybcl.barrier()
    pybcl.free(mine)


def test_large_transfer_round_trip():
    p = pybcl.alloc(1 << 20, "uint8")
    data = np.random.default_rng(1).integers(0, 256, 1 << 20, dtype=np.uint8)
    pybcl.rput(p, data)
    pybcl.flush()
    assert np.array_equal(pybcl.rget(p, 1 << 20), data)
    pybcl.free(p)


@pytest.mark.mpi(min_size=2)
def test_many_small_rputs_complete_after_flush():
    """Small rput calls are staged and pipelined on rma; more of them than the
    staging arena holds (1 MiB) must all land, in order, after flush()."""
    me, n = pybcl.rank(), pybcl.nprocs()
    count = 40000                                   # 40000 x 32 B > 1 MiB staged
    mine = pybcl.alloc(count * 4, "int64")
    mine.local()[:] = -1
    ptrs = [pybcl.broadcast(mine, root=r) for r in range(n)]
    target = ptrs[(me + 1) % n]
    for i in range(count):
        pybcl.rput(target + 4 * i, np.array([i, me, i, me], dtype=np.int64))
    # MPI orders puts to one place only across a flush: the arena filling up
    # flushed the first put long ago, so this one must win.
    pybcl.rput(target, np.array([7, 7, 7, 7], dtype=np.int64))
    pybcl.flush()
    pybcl.barrier()
    got = mine.local().reshape(count, 4)
    left = (me - 1) % n
    expect = np.stack([np.arange(count), np.full(count, left)] * 2, axis=1)
    expect[0] = 7
    ok = np.array_equal(got, expect)
    pybcl.barrier()
    pybcl.free(mine)
    assert all_ok(ok)


def test_repr_is_the_constructor_call():
    p = pybcl.GlobalPtr(0, 64, dtype="float32")
    ok = repr(p) == "pybcl.GlobalPtr(rank=0, offset=64, dtype='float32')"
    ok &= eval(repr(p), {"pybcl": pybcl}) == p
    ok &= repr(pybcl.NULL) == "pybcl.GlobalPtr(rank=0, offset=0, dtype='int64')"
    assert all_ok(ok)
