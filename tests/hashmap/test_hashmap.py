"""pybcl.HashMap and HashMapBuffer.

Every multi-rank test agrees on its outcome with all_ok() before asserting,
so one rank's failure never leaves the others waiting in a barrier.
"""
import numpy as np
import pytest

import pybcl
from pybcl import ConProm

from conftest import all_ok

FIND = ConProm.HashMap.find


def rp():
    return pybcl.rank(), pybcl.nprocs()


# ---- basics ---------------------------------------------------------------


@pytest.mark.mpi
def test_insert_find_across_ranks():
    r, p = rp()
    m = pybcl.HashMap(400 * p + 1000)      # at most half full: inserts never fail
    for i in range(200):
        m.insert(i * p + r, 10 * (i * p + r))
    pybcl.barrier()
    keys = range(200 * p)
    ok = all(m.find(k) == 10 * k for k in keys)
    ok &= all(m[k] == 10 * k for k in keys[:50]) and all(k in m for k in keys[:50])
    ok &= m.find(10**9) is None and m.find(10**9, -1) == -1 and m.get(10**9, 5) == 5
    ok &= (10**9 not in m)
    try:
        m[10**9]
        ok = False
    except KeyError:
        pass
    assert all_ok(ok)
    assert m.size() == 200 * p


@pytest.mark.mpi
def test_overwrite_and_setitem():
    r, p = rp()
    m = pybcl.HashMap(100)
    if r == 0:
        m[5] = 1
        m[5] = 2
        m.insert(5, 3)
    pybcl.barrier()
    assert all_ok(m[5] == 3)
    assert m.size() == 1


@pytest.mark.mpi
def test_missing_keys_stop_early():
    m = pybcl.HashMap(1000)
    vals, found = m.find_many(np.arange(50))
    ok = not found.any() and m.find(3) is None and 3 not in m
    vals, found = m.find_many(np.arange(50), promise=FIND)
    ok &= not found.any() and m.find(3, promise=FIND) is None
    assert all_ok(ok)
    assert m.size() == 0


# ---- contention ---------------------------------------------------------------


@pytest.mark.mpi
@pytest.mark.parametrize("batched", [False, True])
def test_same_keys_from_all_ranks(batched):
    """Every rank inserts the same keys at once: each stored once, with the
    value of one of the writers, the same value seen by everybody."""
    r, p = rp()
    m = pybcl.HashMap(1000)
    keys = np.arange(300, dtype=np.int64)
    if batched:
        m.insert_many(keys, keys * 1000 + r)
    else:
        for k in keys.tolist():
            m.insert(k, k * 1000 + r)
    pybcl.barrier()
    vals, found = m.find_many(keys)
    ok = bool(found.all()) and bool(((vals // 1000) == keys).all())
    ok &= bool(((vals % 1000) < p).all())
    assert all_ok(ok)
    assert m.size() == len(keys)
    mine = np.array([k for k, _ in m.local_items()], dtype=np.int64)
    allkeys = np.sort(np.concatenate(pybcl.comm().allgather(mine)))
    assert all_ok(np.array_equal(allkeys, keys))
    # everybody sees the same value
    seen = pybcl.comm().allgather(vals)
    assert all_ok(all(np.array_equal(seen[0], s) for s in seen))


@pytest.mark.mpi
def test_accumulate_contention_exact():
    r, p = rp()
    m = pybcl.HashMap(500)
    for _ in range(20):
        for k in range(10):
            m.accumulate(k, k + 1)
    keys = np.tile(np.arange(10, 40), 5)              # duplicates in the batch
    m.accumulate_many(keys, 2)
    m.accumulate_many(np.arange(10, 40), np.arange(30))
    pybcl.barrier()
    ok = all(m[k] == 20 * p * (k + 1) for k in range(10))
    ok &= all(m[k] == p * (10 + (k - 10)) for k in range(10, 40))
    assert all_ok(ok)
    assert m.size() == 40


@pytest.mark.mpi
@pytest.mark.parametrize("vtype", ["int64", "float64"])
def test_batch_and_scalar_mixed_contention(vtype):
    """Batches (fetch-or reservation, indexed rounds) and the scalar protocol
    (CAS) on the same keys at once, from every rank: exact totals, then
    overwrites racing with finds see an old or a new value, never a torn or
    missing one."""
    r, p = rp()
    m = pybcl.HashMap(4000, value_type=vtype)
    keys = np.arange(300, dtype=np.int64)
    for rnd in range(6):
        if (r + rnd) % 2:
            m.accumulate_many(keys, 1)
        else:
            for k in keys[::-1].tolist():
                m.accumulate(k, 1)
    pybcl.barrier()
    vals, found = m.find_many(keys)
    ok = bool(found.all()) and bool((vals == 6 * p).all())
    ok &= all(m[k] == 6 * p for k in range(0, 300, 37))
    assert all_ok(ok)
    pybcl.barrier()
    new = keys * 1000 + r
    ok = True
    for rnd in range(4):
        if (r + rnd) % 2:
            m.insert_many(keys, new)
            got, f = m.find_many(keys)
        else:
            got = np.array([m.find(k) for k in keys.tolist()], dtype=vtype)
            f = np.ones(len(keys), bool)
        old = got == 6 * p
        fresh = (got // 1000 == keys) & (got % 1000 < p)
        ok &= bool(f.all()) and bool((old | fresh).all())
    assert all_ok(ok)
    assert m.size() == len(keys)


@pytest.mark.mpi
@pytest.mark.parametrize("vtype", ["float64", "int16", "uint32"])
def test_accumulate_other_numeric_types(vtype):
    r, p = rp()
    m = pybcl.HashMap(100, value_type=vtype)
    for _ in range(10):
        m.accumulate(1, 1)
        m.accumulate_many(np.array([2, 2, 3]), 1)
    pybcl.barrier()
    ok = m[1] == 10 * p and m[2] == 20 * p and m[3] == 10 * p
    assert all_ok(ok)


@pytest.mark.mpi
def test_accumulate_string_keys():
    r, p = rp()
    m = pybcl.HashMap(100, key_type=str)
    for _ in range(5):
        m.accumulate("ACGT")
    m.accumulate_many(["x", "y", "x"], 3)
    pybcl.barrier()
    assert all_ok(m["ACGT"] == 5 * p and m["x"] == 6 * p and m["y"] == 3 * p)


def test_accumulate_needs_numbers():
    m = pybcl.HashMap(10, value_type=str)
    with pytest.raises(TypeError):
        m.accumulate(1, 1)
    m2 = pybcl.HashMap(10, value_type="S4")
    with pytest.raises(TypeError):
        m2.accumulate_many([1], 1)


@pytest.mark.mpi
def test_modify_all_ranks():
    r, p = rp()
    m = pybcl.HashMap(100, key_type=str, value_type=object)
    for _ in range(10):
        m.modify("n", lambda v: (v or 0) + 1)
        m.modify("log", lambda v: (v or []) + [r])
    pybcl.barrier()
    log = m["log"]
    ok = m["n"] == 10 * p and sorted(log) == sorted(list(range(p)) * 10)
    assert all_ok(ok)


def test_modify_error_unlocks():
    r, p = rp()
    m = pybcl.HashMap(10 * p)
    a, b = 2 * r, 2 * r + 1          # this rank's keys

    def boom(v):
        raise RuntimeError("x")

    m[a] = 5
    with pytest.raises(RuntimeError):
        m.modify(a, boom)
    with pytest.raises(RuntimeError):
        m.modify(b, boom)
    assert m[a] == 5 and b not in m
    assert m.modify(a, lambda v: v * 2) == 10 and m[a] == 10
    assert m.modify(b, lambda v: 3 if v is None else -1) == 3


# ---- full table, resize ---------------------------------------------------


@pytest.mark.mpi
def test_full_table():
    r, p = rp()
    m = pybcl.HashMap(16 * p)
    n = 0
    failed = None
    if r == 0:
        for k in range(10**6):
            try:
                m.insert(k, k)
                n += 1
            except pybcl.ContainerFull:
                failed = k
                break
    pybcl.barrier()
    n = int(pybcl.broadcast(n, root=0))
    failed = pybcl.broadcast(failed, root=0)
    ok = failed is not None and n >= m.capacity // 2
    ok &= failed not in m and all(m[k] == k for k in range(n))
    assert all_ok(ok)
    assert m.size() == n
    # a batch that does not fit: ContainerFull, the keys that fit are stored
    if r == 0:
        with pytest.raises(pybcl.ContainerFull):
            m.insert_many(np.arange(10**6, 10**6 + 4 * m.capacity), 1)
        with pytest.raises(pybcl.ContainerFull):
            m.accumulate_many(np.arange(2 * 10**6, 2 * 10**6 + 4 * m.capacity), 1)
    pybcl.barrier()
    assert m.size() <= m.capacity


@pytest.mark.mpi
@pytest.mark.parametrize("types", [("int64", "int64"), (str, object)])
def test_resize_keeps_entries(types):
    """Every entry survives a resize and the inserts after it.  Each rank
    reads back the keys of the next rank (k % p == (r + 1) % p), so together
    the ranks check every key, each from a rank that did not insert it; a
    rank reading all 400 p keys one by one was 400 p^2 remote finds in all
    (a minute at 16 ranks on rma here) for the same check."""
    r, p = rp()
    m = pybcl.HashMap(40 * p, key_type=types[0], value_type=types[1])
    conv = (lambda k: k) if types[0] == "int64" else str
    theirs = (r + 1) % p                           # whose keys this rank checks
    for i in range(15):
        m.insert(conv(i * p + r), i * p + r)
    m.resize(1000 * p)
    ok = m.capacity >= 1000 * p
    ok &= all(m[conv(i * p + theirs)] == i * p + theirs for i in range(15))
    for i in range(15, 400):
        m.insert(conv(i * p + r), i * p + r)
    pybcl.barrier()
    ok &= all(m[conv(i * p + theirs)] == i * p + theirs for i in range(400))
    assert all_ok(ok)
    assert m.size() == 400 * p
    with pytest.raises(pybcl.ContainerFull):      # too small: table unchanged
        m.resize(10)
    assert all_ok(m.capacity >= 1000 * p
                  and all(m[conv(i * p + theirs)] == i * p + theirs for i in range(0, 400, 7)))


# ---- element types ------------------------------------------------------------


@pytest.mark.mpi
def test_fixed_dtypes():
    r, p = rp()
    rec = np.dtype([("x", "<f8"), ("n", "<i4"), ("tag", "S3")])
    m = pybcl.HashMap(200, key_type="S16", value_type=rec)
    m2 = pybcl.HashMap(200, key_type="uint32", value_type="float32")
    if r == p - 1:
        for i in range(20):
            m.insert(b"key%d" % i, (i / 2, i, b"ab"))
        m2.insert_many(np.arange(20, dtype=np.uint32), (np.arange(20) / 4).astype("f4"))
    pybcl.barrier()
    v = m[b"key7"]
    ok = v["x"] == 3.5 and v["n"] == 7 and v["tag"] == b"ab"
    vals, found = m.find_many(np.array([b"key3", b"nokey"], dtype="S16"))
    ok &= bool(found[0]) and not found[1] and vals[0]["n"] == 3 and vals.dtype == rec
    vals, found = m2.find_many(np.arange(25, dtype=np.uint32))
    ok &= bool(found[:20].all()) and not found[20:].any()
    ok &= bool(np.array_equal(vals[:20], (np.arange(20) / 4).astype(np.float32)))
    ok &= m2.key_type == np.dtype("uint32") and m.value_type == rec
    assert all_ok(ok)


@pytest.mark.mpi
def test_variable_length_types():
    r, p = rp()
    m = pybcl.HashMap(300, key_type=str, value_type=object)
    b = pybcl.HashMap(300, key_type=bytes, value_type=bytes)
    m["rank%d" % r] = {"r": r, "l": [1, 2.5, "x", None]}
    m["none%d" % r] = None
    b[b"\x00k%d" % r] = b"v" * (r + 1) * 1000
    m.insert_many(["a%d" % r, "b%d" % r], [[r], (r, r)])
    pybcl.barrier()
    ok = all(m["rank%d" % q] == {"r": q, "l": [1, 2.5, "x", None]} for q in range(p))
    ok &= all(("none%d" % q) in m and m["none%d" % q] is None for q in range(p))
    ok &= "missing" not in m and m.get("missing", 7) == 7
    ok &= all(b[b"\x00k%d" % q] == b"v" * (q + 1) * 1000 for q in range(p))
    vals, found = m.find_many(["a0", "b0", "zz"])
    ok &= vals[:2] == [[0], [0, 0]] and list(found) == [True, True, False]
    vals, found = m.find_many(["a0", "zz"], promise=FIND)
    ok &= vals == [[0], None] and list(found) == [True, False]
    ok &= all(isinstance(k, bytes) for k, _ in b.local_items())
    assert all_ok(ok)
    with pytest.raises(TypeError):
        m.insert(5, 1)                 # str keys only
    with pytest.raises(TypeError):
        m.insert("x", object())        # not serializable


@pytest.mark.mpi
def test_overwrite_reclaims_out_of_line_storage():
    """Overwrites far beyond the segment size: old values are freed, also
    when they live on another rank (remote-free stacks).  Values live in the
    writer's segment, so a rank proves reuse of its own segment only by
    writing more than it; CHURNERS ranks do that (2x the segment each), the
    others overwrite the shared key just as often, with values of the same
    sizes, so every rank's old shared values are freed by others
    throughout.  Every rank churning was 2 P segments written in all (80 s
    at 16 ranks on rma here) for the same per-rank check."""
    CHURNERS = 4
    r, p = rp()
    seg = pybcl._core.segment_size()
    m = pybcl.HashMap(64, key_type="int64", value_type=bytes)
    sizes = [300_000, 1_000_000, 50_000, 700_000]
    written, i, ok = 0, 0, True
    churner = r < CHURNERS
    try:
        while written < 2 * seg:
            n = sizes[i % len(sizes)]
            if churner:
                m[r] = bytes([i % 251]) * n      # this rank's key
            m[1000] = b"s" * (n // 10)           # a key every rank overwrites
            written += n + n // 10
            i += 1
        ok = not churner or m[r] == bytes([(i - 1) % 251]) * sizes[(i - 1) % len(sizes)]
    except pybcl.SegmentFull:
        ok = False
    pybcl.barrier()
    assert all_ok(ok)


# ---- promises -------------------------------------------------------------------


@pytest.mark.mpi
def test_find_only_promise_equals_atomic_find():
    r, p = rp()
    # 400 random keys per rank from [0, 5000): room for twice the distinct ones
    m = pybcl.HashMap(2 * min(400 * p, 5000) + 1000)
    s = pybcl.HashMap(2 * p + 300, key_type=str, value_type=object)
    rng = np.random.default_rng(r)
    keys = rng.integers(0, 5000, 400)
    m.insert_many(keys, keys * 3)
    s["k%d" % r] = [r]
    pybcl.barrier()
    probe = np.arange(5000)
    v1, f1 = m.find_many(probe)
    v2, f2 = m.find_many(probe, promise=FIND)
    ok = np.array_equal(f1, f2) and np.array_equal(v1[f1], v2[f2])
    ok &= bool((v1[f1] == probe[f1] * 3).all())
    ok &= all(m.find(int(k), promise=FIND) == m.find(int(k)) for k in probe[:300])
    ok &= all(s.find("k%d" % q, promise=FIND) == [q] for q in range(p))
    ok &= s.find("nokey", promise=FIND) is None
    assert all_ok(ok)


def test_promise_type_checked():
    m = pybcl.HashMap(10)
    with pytest.raises(TypeError):
        m.find(1, promise=1)
    with pytest.raises(TypeError):
        m.insert(1, 1, promise=ConProm.CircularQueue.push)


@pytest.mark.mpi
def test_local_promise_insert():
    r, p = rp()
    m = pybcl.HashMap(400 * p)
    mine = [k for k in range(2000) if m.owner(k) == r][:40]
    for k in mine:
        m.insert(k, k + 1, promise=ConProm.HashMap.local)
    m.insert_many(np.array(mine[:5]), 7, promise=ConProm.HashMap.local)
    foreign = next(k for k in range(2000) if m.owner(k) != r) if p > 1 else None
    ok = True
    if foreign is not None:
        try:
            m.insert(foreign, 1, promise=ConProm.HashMap.local)
            ok = False
        except ValueError:
            pass
    pybcl.barrier()
    lists = pybcl.comm().allgather(mine)
    ok &= all(m[k] == 7 for lst in lists for k in lst[:5])
    ok &= all(m[k] == k + 1 for lst in lists for k in lst[5:])
    assert all_ok(ok)
    assert m.size() == sum(len(lst) for lst in lists)


def test_repr_and_capacity():
    m = pybcl.HashMap(10)
    assert m.capacity >= 10 and "HashMap" in repr(m)
    with pytest.raises(ValueError):
        pybcl.HashMap(0)
    with pytest.raises(TypeError):
        pybcl.HashMap(10, key_type="notatype")


# ---- HashMapBuffer ----------------------------------------------------------------


@pytest.mark.mpi
def test_buffer_inserts_and_duplicates():
    r, p = rp()
    m = pybcl.HashMap(2 * (300 * p + 101) + 1000)
    with pybcl.HashMapBuffer(m, queue_size=1000, message_size=16) as buf:
        for i in range(300):
            buf.insert(i * p + r, i)
        buf.insert_many(np.arange(5000, 5100), r)     # same keys from every rank
        buf.insert(7777, 1)
        buf.insert(7777, 2)                           # duplicate in one buffer
        nothing_yet = m.find(7777)
    ok = all(m[i * p + q] == i for i in range(300) for q in range(p))
    vals, found = m.find_many(np.arange(5000, 5100))
    ok &= bool(found.all()) and bool(((vals >= 0) & (vals < p)).all())
    ok &= m[7777] in (1, 2)
    assert all_ok(ok)
    assert m.size() == 300 * p + 101
    del nothing_yet


@pytest.mark.mpi
def test_buffer_accumulates_combine():
    r, p = rp()
    m = pybcl.HashMap(1000)
    m.insert(1, 100)
    pybcl.barrier()
    buf = pybcl.HashMapBuffer(m, 500, 8)
    for _ in range(10):
        buf.accumulate(1, 2)
        buf.accumulate(2)
    buf.accumulate_many(np.tile(np.arange(10, 60), 3), 1)
    buf.flush()
    ok = m[1] == 100 + 20 * p and m[2] == 10 * p
    ok &= all(m[k] == 3 * p for k in range(10, 60))
    assert all_ok(ok)
    buf.accumulate(1, 1)          # the buffer is reusable after a flush
    buf.flush()
    assert all_ok(m[1] == 100 + 21 * p)


@pytest.mark.mpi
def test_buffer_tiny_queue_overflows_without_loss():
    r, p = rp()
    m = pybcl.HashMap(2 * (2000 * p + 100) + 1000)
    buf = pybcl.HashMapBuffer(m, queue_size=3, message_size=4)
    keys = np.arange(2000) * p + r
    buf.insert_many(keys, keys + 1)
    buf.accumulate_many(10**6 + np.arange(100), 1)
    buf.flush()
    vals, found = m.find_many(np.arange(2000 * p))
    ok = bool(found.all()) and bool((vals == np.arange(2000 * p) + 1).all())
    ok &= all(m[10**6 + k] == p for k in range(100))
    overflowed = pybcl.allreduce(np.array([buf.overflowed]), "sum")[0]
    ok &= p == 1 or overflowed > 0
    assert all_ok(ok)
    assert m.size() == 2000 * p + 100


@pytest.mark.mpi
def test_buffer_fastqueue_overflow_and_reuse():
    """Each rank's FastQueue holds 5 messages: with every rank pushing, most
    pushes are refused part-way through a phase and go in directly; nothing
    is lost, accumulates combine across the queued and direct paths, and the
    queues are reused (their counters wrap the ring) over several flushes."""
    r, p = rp()
    m = pybcl.HashMap(2 * (4 * 1500 * p + 200) + 1000)
    buf = pybcl.HashMapBuffer(m, queue_size=40, message_size=8)
    acc = 5 * 10**7 + np.arange(200)
    ok = True
    for cycle in range(4):
        keys = np.arange(1500) * p + r + cycle * 10**6
        buf.insert_many(keys, keys * 3)
        buf.accumulate_many(acc, 1)
        for k in acc[:20].tolist():
            buf.accumulate(k, 2)
        buf.flush()
        want = np.arange(1500 * p) + cycle * 10**6
        vals, found = m.find_many(want)
        ok &= bool(found.all()) and bool((vals == want * 3).all())
        got, f = m.find_many(acc)
        ok &= bool(f.all()) and bool((got[20:] == (cycle + 1) * p).all())
        ok &= bool((got[:20] == 3 * (cycle + 1) * p).all())
        pybcl.barrier()      # refused pushes of the next cycle land at once
    overflowed = pybcl.allreduce(np.array([buf.overflowed]), "sum")[0]
    ok &= p == 1 or overflowed > 0
    assert all_ok(ok)
    assert m.size() == 4 * 1500 * p + len(acc)


def test_repr_is_the_constructor_call():
    m = pybcl.HashMap(16 * pybcl.nprocs(), key_type=str, value_type="float64")
    b = pybcl.HashMapBuffer(m, 8, 4)
    cap = m.capacity
    want = f"pybcl.HashMap(capacity={cap}, key_type=str, value_type='float64')"
    ok = repr(m) == want
    ok &= repr(b) == (f"pybcl.HashMapBuffer(hashmap={want}, queue_size=8, message_size=4, "
                      "grow=False)")
    n = pybcl.HashMap(16 * pybcl.nprocs())
    g = pybcl.HashMapBuffer(n, 8, 4, grow=True)
    ok &= repr(g) == (f"pybcl.HashMapBuffer(hashmap=pybcl.HashMap(capacity={n.capacity}, "
                      "key_type='int64', value_type='int64'), queue_size=8, message_size=4, "
                      "grow=True)")
    ok &= g.grow is True and b.grow is False
    assert all_ok(ok)
