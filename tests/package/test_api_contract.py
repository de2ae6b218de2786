"""API.md items an outsider's test would use that the rest of the suite did
not cover: every documented parameter passed by its documented name, and
GlobalPtrs stored inside containers ("A GlobalPtr pickles, broadcasts, and
can be stored inside containers").

Sized by P; every outcome that may differ between ranks is agreed with
`all_ok` before asserting, so a failure never leaves a peer in a barrier.
"""
import traceback

import msgpack
import numpy as np
import pytest

import pybcl
from conftest import all_ok


def must(cond, what):
    """For lambdas: raise AssertionError(what) unless cond."""
    if not cond:
        raise AssertionError(what)


def run_agreed(fn):
    """Run fn() on every rank; assert (collectively) that it passed everywhere."""
    try:
        fn()
        ok, why = True, ""
    except Exception:       # noqa: BLE001 -- reported after agreeing
        ok, why = False, traceback.format_exc()
    assert all_ok(ok), why


# ---- keywords named as in API.md ---------------------------------------------------

def test_pointer_calls_take_their_documented_names():
    P, me = pybcl.nprocs(), pybcl.rank()
    p = pybcl.alloc(count=2, dtype="int64")
    p[0] = 0
    pybcl.barrier()
    target = pybcl.broadcast(obj=p, root=P - 1)

    def body():
        old = pybcl.fetch_and_add(ptr=target, v=1)
        assert 0 <= old < P
        assert isinstance(pybcl.fetch_and_or(target, v=0), int)
        assert isinstance(pybcl.fetch_and_xor(target, v=0), int)
        assert isinstance(pybcl.fetch_and_and(target, v=-1), int)
    run_agreed(body)
    pybcl.barrier()

    def after():
        assert pybcl.atomic_load(ptr=target) == P
    run_agreed(after)
    pybcl.barrier()
    won = pybcl.compare_and_swap(ptr=target, expected=P, desired=-me - 1) == P
    assert pybcl.allreduce(int(won)) == 1          # exactly one rank swapped
    pybcl.barrier()

    def local_ops():
        pybcl.rput(ptr=p + 1, array=np.array([7 * me], np.int64))
        pybcl.flush()
        assert pybcl.rget(ptr=p + 1, count=1).tolist() == [7 * me]
        assert pybcl.unpackb(data=pybcl.packb(obj=[me, "x"])) == [me, "x"]
        q = pybcl.alloc(1)
        pybcl.free(ptr=q)
    run_agreed(local_ops)
    pybcl.barrier()
    pybcl.free(p)


def test_container_methods_take_their_documented_names():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(capacity=8 * P, key_type="int64", value_type="int64")
    run_agreed(lambda: m.insert(key=me, value=1, promise=None))
    pybcl.barrier()

    def hashmap_calls():
        assert m.find(key=me, default=None, promise=None) == 1
        assert m.get(key=me, default=-1) == 1 and m.get(10 * P, default=-1) == -1
        m.accumulate(key=me, delta=2, promise=None)
        m.accumulate_many(keys=[me], deltas=1)
        m.insert_many(keys=[P + me], values=[5], promise=None)
        vals, found = m.find_many(keys=[P + me], promise=None)
        assert found.tolist() == [True] and vals.tolist() == [5]
        m.modify(key=me, fn=lambda v: v + 1)
        assert m[me] == 5
    run_agreed(hashmap_calls)
    m.resize(new_capacity=16 * P)
    run_agreed(lambda: must(m.erase(key=P + me) is True, "erase(key=) lost the key"))
    run_agreed(lambda: must(m.erase_many(keys=[me]).tolist() == [True],
                            "erase_many(keys=) lost the key"))
    pybcl.barrier()

    buf = pybcl.HashMapBuffer(hashmap=m, queue_size=4 * P, message_size=2)

    def buffer_calls():
        buf.insert(key=me, value=3)
        buf.insert_many(keys=[2 * P + me], values=[4])
        buf.accumulate(key=3 * P, delta=2)
        buf.accumulate_many(keys=[3 * P + 1], deltas=3)
    run_agreed(buffer_calls)
    buf.flush()
    run_agreed(lambda: must([m[me], m[2 * P + me], m[3 * P], m[3 * P + 1]]
                            == [3, 4, 2 * P, 3 * P], "buffered calls by name"))

    for kind in (pybcl.FastQueue, pybcl.CircularQueue):
        q = kind(host=0, capacity=4 * P, dtype="int64")
        run_agreed(lambda: must(q.push(value=me, promise=None)
                                and q.push_many(values=[me], promise=None), "push refused"))
        pybcl.barrier()
        q.resize(new_capacity=8 * P)
        q.migrate(new_host=P - 1)

        def pops():
            if me == P - 1:
                got = [q.pop(promise=None)] + q.pop_many(n=4 * P, promise=None).tolist()
                assert sorted(got) == sorted(list(range(P)) * 2), got
        run_agreed(pops)
        pybcl.barrier()

    bf = pybcl.BloomFilter(expected_items=64 * P, fpr=0.01, key_type="uint64")
    run_agreed(lambda: (bf.insert(x=me), bf.insert_many(xs=[P + me])))
    pybcl.barrier()
    run_agreed(lambda: must(bf.find(x=(me + 1) % P) and bool(bf.find_many(xs=[P + me]).all()),
                            "Bloom false negative"))
    a = pybcl.DArray(size=2 * P, dtype="int64")
    h = pybcl.Array(host=P - 1, size=3, dtype="int64")
    run_agreed(lambda: must(a.owner(i=2 * P - 1) == P - 1 and a.ptr(i=0).rank == 0
                        and h.owner(i=2) == P - 1, "owner(i=)/ptr(i=)"))
    pybcl.barrier()


def test_wrong_keyword_names_the_function_and_argument():
    m = pybcl.HashMap(8 * pybcl.nprocs())
    with pytest.raises(TypeError, match="get.*'dflt'"):
        m.get(1, dflt=2)
    with pytest.raises(TypeError, match="fetch_and_add.*multiple values.*'v'"):
        pybcl.fetch_and_add(pybcl.NULL, 1, v=1)
    with pytest.raises(TypeError, match="resize.*missing.*'new_capacity'"):
        m.resize()
    pybcl.barrier()


# ---- GlobalPtrs inside containers ---------------------------------------------------

def test_globalptr_round_trips_through_the_codec():
    p = pybcl.GlobalPtr(3, 4096, "float32")
    data = pybcl.packb(p)
    ext = msgpack.unpackb(data)                # plain msgpack sees an ext type
    assert isinstance(ext, msgpack.ExtType) and ext.code == 71
    back = pybcl.unpackb(data)
    assert back == p and back.dtype == np.float32 and back.rank == 3 and back.offset == 4096
    rec = np.dtype([("x", "<f8"), ("tag", "S3")])
    nested = pybcl.unpackb(pybcl.packb({"ptrs": [p, pybcl.GlobalPtr(1, 64, rec)], "n": None}))
    assert nested["ptrs"][0] == p and nested["ptrs"][1].dtype == rec
    assert not pybcl.unpackb(pybcl.packb(pybcl.NULL))
    for bad in (data[:-1], data + b"\xc0", b"\xd4\x47\x00", b"\xd4\x01\x00",
                b"\xc7\x0d\x47" + b"\xff" * 12 + b"<"):
        with pytest.raises(ValueError):
            pybcl.unpackb(bad)


def test_globalptr_stored_in_hashmap_queues_and_bloom():
    P, me = pybcl.nprocs(), pybcl.rank()
    p = pybcl.alloc(1)
    p[0] = 100 + me
    ptrs = pybcl.comm().allgather(p)
    m = pybcl.HashMap(8 * P, key_type=object, value_type=object)
    run_agreed(lambda: m.insert(p, [p, {"self": p}]))
    pybcl.barrier()

    def read_back():
        for r, q in enumerate(ptrs):        # keyed by every rank's pointer
            v = m[q]
            assert v[0] == q and v[1]["self"] == q and isinstance(v[0], pybcl.GlobalPtr)
            assert v[0][0] == 100 + r       # and it still dereferences
    run_agreed(read_back)
    pybcl.barrier()

    for kind in (pybcl.FastQueue, pybcl.CircularQueue):
        q = kind(0, 2 * P, dtype=object)
        run_agreed(lambda: must(q.push(p) and q.push_many([p]), "push refused"))
        pybcl.barrier()

        def drain():
            if me == 0:
                got = [q.pop()] + q.pop_many(2 * P)
                assert sorted(g.rank for g in got) == sorted(list(range(P)) * 2)
                assert all(g[0] == 100 + g.rank for g in got)
        run_agreed(drain)
        pybcl.barrier()

    bf = pybcl.BloomFilter(16 * P, key_type=object)
    run_agreed(lambda: bf.insert(p))
    pybcl.barrier()
    run_agreed(lambda: must(all(bf.find(q) for q in ptrs), "Bloom lost a pointer"))
    pybcl.barrier()
    pybcl.free(p)


# ---- HashMapBuffer over variable-length key/value types --------------------------

def test_buffer_over_str_keys_counts_words():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(16 * P, key_type=str, value_type="int64")
    with pybcl.HashMapBuffer(m, 4 * P, 2) as buf:
        assert isinstance(buf, pybcl.HashMapBuffer) and buf.hashmap is m
        run_agreed(lambda: (buf.accumulate("the"), buf.accumulate("the", delta=2),
                            buf.accumulate_many([f"w{me}", "the"], deltas=1),
                            buf.insert(f"r{me}", me), buf.insert_many([f"s{me}"], [10 * me])))
        run_agreed(lambda: must("the" not in m, "buffered accumulate visible before flush"))
    run_agreed(lambda: must(m["the"] == 4 * P and m[f"w{(me + 1) % P}"] == 1
                            and m[f"r{(me + 1) % P}"] == (me + 1) % P
                            and m[f"s{me}"] == 10 * me, "buffered str-keyed calls"))
    with pytest.raises(TypeError):
        buf.insert(b"bytes-not-str", 1)          # the key converts when buffered
    pybcl.barrier()


def test_buffer_over_object_values_keeps_entries_when_full():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(2 * P, key_type="int64", value_type=object)
    cap = m.capacity
    buf = pybcl.HashMapBuffer(m, 4, 1)
    keys = [me * 4 * cap + i for i in range(2 * cap)]   # P * 2 cap keys: cannot all fit
    run_agreed(lambda: buf.insert_many(keys, [{"k": k} for k in keys]))
    with pytest.raises(pybcl.ContainerFull):    # on every rank
        buf.flush()
    m.resize(8 * P * cap)
    buf.flush()                                  # the kept entries go in now
    run_agreed(lambda: must(all(m[k] == {"k": k} for k in keys), "kept entries lost"))
    assert m.size() == 2 * cap * P


@pytest.mark.serial_only
def test_plain_pytest_runs_the_mpi_tests():
    """`python -m pytest` needs no --with-mpi: without it pytest-mpi would skip
    every test marked mpi and the run would pass having checked little."""
    import os
    from launch import ROOT, run_python
    test = os.path.join(ROOT, "tests", "arrays", "test_arrays.py") + "::test_slices_cross_block_boundaries"
    proc = run_python(["-m", "pytest", "-q", "-p", "no:cacheprovider", test], 2, timeout=240)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "1 passed" in out and "skipped" not in out, out[-3000:]
