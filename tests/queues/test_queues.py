"""FastQueue and CircularQueue (docs/api.md, FastQueue and CircularQueue; docs/queues.md).

Every test runs on every rank (constructors are collective) and works at any
number of ranks, 1 included.  Outcomes are agreed with `all_ok` before
asserting so a failure on one rank never leaves the others in a barrier.
"""
import re
import traceback
from collections import Counter

import numpy as np
import pytest

import pybcl
from conftest import all_ok

KINDS = [pybcl.FastQueue, pybcl.CircularQueue]
CQ = pybcl.ConProm.CircularQueue


def rank():
    return pybcl.rank()


def nprocs():
    return pybcl.nprocs()


class guard:
    """Rank-dependent code runs inside `with guard() as g:`; an exception
    there (a failed pytest.raises included) is printed and turns g.ok False
    instead of leaving this rank's peers waiting in the next collective."""

    def __enter__(self):
        self.ok = True
        return self

    def __exit__(self, et, ev, tb):
        if et is not None:
            traceback.print_exception(et, ev, tb)
            self.ok = False
        return True


def raises(exc, fn, match=None):
    """True iff fn() raises exc (with `match` in its message)."""
    try:
        fn()
    except exc as e:
        return match is None or re.search(match, str(e)) is not None
    except Exception:
        traceback.print_exc()
    return False


def allgather(obj):
    return pybcl.comm().allgather(obj)


def drain(q, promise=None):
    """Pop until Empty; a list of Python values."""
    out = []
    while True:
        try:
            v = q.pop(promise=promise)
        except pybcl.Empty:
            return out
        out.append(v.item() if isinstance(v, np.generic) else v)


# ---- single-host behaviour ------------------------------------------------

@pytest.mark.parametrize("cls", KINDS)
def test_fifo_order_and_wraparound(cls):
    """Pushes and pops of varying block sizes go around a 7-slot ring many
    times; order is FIFO throughout."""
    host = nprocs() - 1
    q = cls(host, 7)
    ok = True
    with guard() as g:
        if rank() == host:
            rng = np.random.default_rng(1)
            expect, nxt = [], 0
            for _ in range(300):                     # ~150 trips around the ring
                k = int(rng.integers(1, 8 - len(expect)))  if len(expect) < 7 else 0
                if k == 1:
                    ok &= q.push(nxt) is True
                elif k > 1:
                    ok &= q.push_many(np.arange(nxt, nxt + k)) is True
                expect += list(range(nxt, nxt + k))
                nxt += k
                m = int(rng.integers(0, len(expect) + 1))
                got = [int(q.pop()) for _ in range(min(m, 1))]
                got += q.pop_many(m - len(got)).tolist()
                ok &= got == expect[:m]
                expect = expect[m:]
                ok &= q.size() == len(expect)
            ok &= drain(q) == expect
            ok &= nxt > 10 * 7
    ok &= g.ok
    assert all_ok(ok)


@pytest.mark.parametrize("cls", KINDS)
def test_full_and_empty_edges(cls):
    host = 0
    q = cls(host, 5)
    ok = True
    with guard() as g:
        if rank() == host:
            with pytest.raises(pybcl.Empty):
                q.pop()
            ok &= len(q.pop_many(3)) == 0 and q.pop_many(3).dtype == np.int64
            ok &= q.push_many([1, 2, 3]) is True
            ok &= q.push_many([4, 5, 6]) is False        # only 2 free: all or nothing
            ok &= q.size() == 3
            ok &= q.push(4) is True and q.push(5) is True
            ok &= q.push(6) is False                      # full
            ok &= q.push_many([]) is True                 # nothing to push fits
            with pytest.raises(ValueError, match="values: 9 elements can never fit"):
                q.push_many(np.arange(9))                 # more than capacity: never fits
            ok &= q.size() == 5
            ok &= q.pop_many(10).tolist() == [1, 2, 3, 4, 5]   # at most n; nothing extra
            with pytest.raises(pybcl.Empty):
                q.pop()
            ok &= q.push(7) is True and int(q.pop()) == 7
            ok &= q.size() == 0
    ok &= g.ok
    assert all_ok(ok)


@pytest.mark.parametrize("cls", KINDS)
def test_attributes(cls):
    q = cls(nprocs() - 1, 11, dtype="float32")
    ok = q.capacity == 11 and q.host == nprocs() - 1
    ok &= q.dtype == np.dtype("float32")
    ok &= cls.__name__ in repr(q)
    pybcl.barrier()
    with guard() as g:
        if rank() == 0:
            ok &= q.push(1.5) and q.push_many([2.5, 3.5])
    ok &= g.ok
    pybcl.barrier()
    ok &= q.size() == 3
    pybcl.barrier()
    with guard() as g:
        if rank() == q.host:
            ok &= q.pop_many(3).tolist() == [1.5, 2.5, 3.5]
    ok &= g.ok
    assert all_ok(ok)


@pytest.mark.parametrize("dtype", ["S300", np.dtype([("k", "<u4"), ("v", "<f8")])])
def test_large_and_structured_dtypes(dtype):
    q = pybcl.CircularQueue(0, 4, dtype=dtype)
    ok = True
    with guard() as g:
        if rank() == 0:
            dt = np.dtype(dtype)
            vals = np.zeros(3, dtype=dt)
            if dt.names:
                vals["k"] = [1, 2, 3]
                vals["v"] = [0.5, 1.5, 2.5]
            else:
                vals[:] = [b"a" * 300, b"b", b"c" * 299]
            ok &= q.push(vals[0])
            ok &= q.push_many(vals[1:])
            got = [q.pop()] + list(q.pop_many(5))
            ok &= [bytes(np.asarray(g).tobytes()) for g in got] == \
                [bytes(np.asarray(v).tobytes()) for v in vals]
    ok &= g.ok
    assert all_ok(ok)


# ---- many ranks -----------------------------------------------------------

def _pushes(r, n=60):
    """This rank's values: singles then blocks, all distinct across ranks."""
    base = (r + 1) * 1_000_000
    return base + np.arange(n)


def _push_all(q, vals, promise=None):
    ok = True
    half = len(vals) // 2
    for v in vals[:half]:
        ok &= q.push(int(v), promise=promise)
    for i in range(half, len(vals), 7):
        ok &= q.push_many(vals[i:i + 7], promise=promise)
    return ok


@pytest.mark.mpi
@pytest.mark.parametrize("cls", KINDS)
def test_many_to_one(cls):
    """All ranks push into one queue, then all ranks pop concurrently: every
    element comes out exactly once."""
    P = nprocs()
    q = cls(0, 60 * P)
    ok = _push_all(q, _pushes(rank()))
    pybcl.barrier()
    ok &= q.size() == 60 * P
    pybcl.barrier()
    mine = []
    while True:
        got = q.pop_many(5).tolist()
        try:
            got.append(int(q.pop()))
        except pybcl.Empty:
            pass
        if not got:
            break
        mine += got
    everything = [x for part in allgather(mine) for x in part]
    expect = [int(x) for r in range(P) for x in _pushes(r)]
    ok &= Counter(everything) == Counter(expect)
    assert all_ok(ok)


@pytest.mark.mpi
@pytest.mark.parametrize("cls", KINDS)
def test_many_to_many(cls):
    """One queue per rank; every rank pushes to every queue; each host drains
    its own and together they hold everything once."""
    P, r = nprocs(), rank()
    qs = [cls(h, 40 * P) for h in range(P)]
    ok = True
    for h in range(P):
        vals = (r * P + h + 1) * 1000 + np.arange(40)
        ok &= _push_all(qs[h], vals)
    pybcl.barrier()
    mine = qs[r].pop_many(10**6).tolist()
    ok &= all(((x // 1000) - 1) % P == r for x in mine)   # all went to the right host
    everything = [x for part in allgather(mine) for x in part]
    expect = [(s * P + h + 1) * 1000 + i for s in range(P) for h in range(P) for i in range(40)]
    ok &= Counter(everything) == Counter(expect)
    assert all_ok(ok)


@pytest.mark.mpi
@pytest.mark.parametrize("cls", KINDS)
def test_concurrent_pushes_overflow_all_or_nothing(cls):
    """More pushes than room, from every rank at once, with blocks of mixed
    sizes, over many fill/drain cycles: the pushes that returned True are
    exactly what comes out (no stale slot from an earlier cycle, nothing
    lost), the queue holds at most its capacity, and a failed push wrote
    nothing.  Catches a give-back that lets a later claim overtake it."""
    P, r = nprocs(), rank()
    cap = 64
    q = cls(0, cap)
    # big blocks that stop fitting at 3/8 full, between singles that fit:
    # many refused claims race with accepted ones near the tail
    sizes = [40, 1, 1, 2, 1, 1]
    ok = True
    # about as many pushes in all at 16 ranks as at 4 (every cycle already
    # has all P ranks racing); 16 ranks on 2 cores over rma take minutes else
    cycles = min(25, max(6, 100 // P))
    for cycle in range(cycles):
        accepted, nxt = [], ((cycle * P + r) + 1) * 1_000_000
        for j in range(60):
            k = sizes[(j + r) % len(sizes)]
            vals = np.arange(nxt, nxt + k)
            nxt += k
            if (q.push(int(vals[0])) if k == 1 else q.push_many(vals)):
                accepted += vals.tolist()
        pybcl.barrier()
        with guard() as g:
            if r == 0:
                out = q.pop_many(cap + 5).tolist()
                ok &= drain(q) == []
        ok &= g.ok
        everything = [x for part in allgather(accepted) for x in part]
        if r == 0:
            ok &= Counter(out) == Counter(everything)
            ok &= cap // 2 <= len(out) <= cap
        pybcl.barrier()
        if not all_ok(ok):
            break
    assert all_ok(ok)


@pytest.mark.mpi
def test_circular_concurrent_producers_and_consumers():
    """Every rank pushes and pops at the same time on one small CircularQueue
    with no promise: nothing lost, nothing duplicated, each producer's
    elements come out in the order it pushed them, and every rank is done
    soon after its last push.  The retrying on a nearly empty queue is what
    a work queue does; before CircularQueue claimed by CAS, an empty pop
    over-claimed with a fetch-and-add and gave back last-in-first-out, and
    a rank whose claim (holding the last elements) lay under the claims of
    ranks that kept retrying never got its moment to give back: at 16 ranks
    on rma on this 2-core machine this test never ended (2 of 2 runs, 8
    ranks stuck in the give-back for 10 minutes); at 8 ranks it drained
    5-42 s after the pushes, under 1 s now."""
    import time
    P, r = nprocs(), rank()
    N = max(24, 600 // P)      # per producer: 600 elements through 8 slots in all
    DRAIN_BOUND = 60.0         # s from this rank's last push to its end
    q = pybcl.CircularQueue(0, 8)
    counter = pybcl.broadcast(pybcl.alloc(1) if r == 0 else None, root=0)
    if r == 0:
        pybcl.atomic_store(counter, 0)
    pybcl.barrier()
    vals = (r + 1) * 1_000_000 + np.arange(N)
    i, popped, pushed_at, drained = 0, [], None, True
    while True:
        if i < N:
            k = 1 + (i % 3)
            if (q.push(int(vals[i])) if k == 1 else q.push_many(vals[i:i + k])):
                i += k if k > 1 else 1
                pushed_at = time.monotonic() if i >= N else None
        got = q.pop_many(2).tolist()
        try:
            got.append(int(q.pop()))
        except pybcl.Empty:
            pass
        if got:
            popped += got
            pybcl.fetch_and_add(counter, len(got))
        if i >= N and pybcl.atomic_load(counter) >= N * P:
            break
        if pushed_at is not None and time.monotonic() - pushed_at > DRAIN_BOUND:
            print(f"rank {r}: not drained {DRAIN_BOUND:g} s after its last push",
                  flush=True)
            drained = False
            break
    everything = [x for part in allgather(popped) for x in part]
    expect = [(s + 1) * 1_000_000 + j for s in range(P) for j in range(N)]
    ok = drained and Counter(everything) == Counter(expect)
    # per producer, this consumer saw that producer's elements in push order
    for s in range(P):
        seq = [x for x in popped if x // 1_000_000 == s + 1]
        ok &= seq == sorted(seq)
    pybcl.barrier()
    with guard() as g:
        if r == 0:
            pybcl.free(counter)
    ok &= g.ok
    assert all_ok(ok)


@pytest.mark.mpi
def test_circular_promises_phases():
    """ConProm.push during a push-only phase, ConProm.pop during a pop-only
    phase (Table 4 b and e), ConProm.local on the host."""
    P, r = nprocs(), rank()
    q = pybcl.CircularQueue(P - 1, 50 * P)
    ok = _push_all(q, _pushes(r, 50), promise=CQ.push)
    pybcl.barrier()
    ok &= q.size() == 50 * P
    pybcl.barrier()
    mine = []
    while True:
        got = q.pop_many(4, promise=CQ.pop).tolist()
        if not got:
            break
        mine += got
    everything = [x for part in allgather(mine) for x in part]
    ok &= Counter(everything) == Counter(int(x) for s in range(P) for x in _pushes(s, 50))
    pybcl.barrier()
    with guard() as g:
        if r == q.host:
            ok &= q.size() == 0
            ok &= q.push(5, promise=CQ.local) and q.push_many([6, 7], promise=CQ.local)
            ok &= int(q.pop(promise=CQ.local)) == 5
            ok &= q.pop_many(5, promise=CQ.local).tolist() == [6, 7]
            ok &= q.push(8, promise=CQ.push | CQ.pop)
            ok &= int(q.local_nonatomic_pop()) == 8
            with pytest.raises(pybcl.Empty):
                q.local_nonatomic_pop()
        elif P > 1:
            with pytest.raises(ValueError, match="host"):
                q.push(1, promise=CQ.local)
            with pytest.raises(ValueError, match="host"):     # as Array.local()
                q.local_nonatomic_pop()
            with pytest.raises(ValueError, match="host"):
                q.local()
    ok &= g.ok
    assert all_ok(ok)


# ---- variable-length elements ----------------------------------------------

@pytest.mark.parametrize("cls", KINDS)
@pytest.mark.parametrize("dtype,make", [
    (object, lambda r, i: {"r": r, "i": i, "l": [i, str(i), None, 1.5]}),
    (bytes, lambda r, i: bytes([r % 256]) * (i % 40)),
    (str, lambda r, i: "é%d-%d" % (r, i) * (i % 5)),
])
def test_variable_length_elements(cls, dtype, make):
    P, r = nprocs(), rank()
    q = cls(0, 20 * P, dtype=dtype)
    mine = [make(r, i) for i in range(20)]
    ok = all(q.push(v) for v in mine[:10])
    ok &= q.push_many(mine[10:])
    pybcl.barrier()
    out = []
    with guard() as g:
        if r == 0:
            out = [q.pop() for _ in range(5)]
            out += q.pop_many(10**6)
            exp = [make(s, i) for s in range(P) for i in range(20)]
            ok &= len(out) == len(exp)
            ok &= sorted(map(repr, out)) == sorted(map(repr, exp))
            # per-rank push order survives
            if dtype is object:
                for s in range(P):
                    ok &= [v["i"] for v in out if v["r"] == s] == list(range(20))
    ok &= g.ok
    assert all_ok(ok)


def test_variable_length_storage_is_reclaimed():
    """Object elements are stored out of line; popping (and failed pushes)
    give the storage back, so churn does not fill the segment."""
    q = pybcl.CircularQueue(0, 4, dtype=object)
    big = "x" * 5000
    pybcl.barrier()
    before = pybcl._core.bytes_in_use()
    ok = True
    with guard() as g:
        if rank() == 0:
            for _ in range(200):
                ok &= q.push_many([big, big, big])
                ok &= q.push_many([big, big]) is False          # no room: freed again
                ok &= q.pop_many(3) == [big] * 3
                ok &= q.push(big) and q.pop() == big
                ok &= q.push(big) and q.local_nonatomic_pop() == big
                ok &= raises(ValueError, lambda: q.push_many([big] * 5), "values")  # > capacity
    ok &= g.ok
    pybcl.barrier()
    ok &= pybcl._core.bytes_in_use() - before < 20000
    assert all_ok(ok)


def test_str_queue_rejects_bytes():
    q = pybcl.FastQueue(0, 4, dtype=str)
    ok = raises(TypeError, lambda: q.push(b"abc"), "value")
    ok &= raises(TypeError, lambda: q.push_many(["ok", 3]), "values")
    ok &= raises(TypeError, lambda: q.push_many("abc"), "values")
    pybcl.barrier()
    ok &= q.size() == 0          # the failed push_many wrote nothing
    q2 = pybcl.FastQueue(0, 4, dtype=object)
    ok &= raises(TypeError, lambda: q2.push(object()))
    ok &= raises(TypeError, q2.local, "fixed-size")
    assert all_ok(ok)


# ---- local view, resize, migrate ---------------------------------------------

@pytest.mark.parametrize("cls", KINDS)
def test_local_view_unwraps_and_sort_changes_pop_order(cls):
    host = nprocs() - 1
    q = cls(host, 8)
    ok = True
    with guard() as g:
        if rank() == host:
            ok &= q.push_many(np.arange(6))
            ok &= q.pop_many(5).tolist() == [0, 1, 2, 3, 4]
            ok &= q.push_many([9, 8, 7, 6, 10, 11, 3])      # wraps: slots 6,7,0..4
            v = q.local()
            ok &= v.tolist() == [5, 9, 8, 7, 6, 10, 11, 3]  # FIFO order, contiguous
            ok &= v.flags.c_contiguous and v.flags.writeable
            v.sort()
            ok &= q.pop_many(3).tolist() == [3, 5, 6]
            ok &= q.push_many([1, 2, 4]) and q.size() == 8
            ok &= q.local().tolist() == [7, 8, 9, 10, 11, 1, 2, 4]
            ok &= q.push(0) is False
    ok &= g.ok
    pybcl.barrier()
    with guard() as g:
        if rank() == 0 and host != 0:
            ok &= q.push(100) is False          # other ranks still see it full
    ok &= g.ok
    pybcl.barrier()
    with guard() as g:
        if rank() == host:
            ok &= drain(q) == [7, 8, 9, 10, 11, 1, 2, 4]
    ok &= g.ok
    assert all_ok(ok)


def wrapped_queue(cls, capacity, first, popped, then):
    """Collective: a queue on rank 0 whose contents wrap around its ring's end
    (`first` pushed, `popped` of them popped, then `then` pushed)."""
    q = cls(0, capacity)
    ok = True
    with guard() as g:
        if rank() == 0:
            ok &= q.push_many(first) and q.pop_many(popped).tolist() == first[:popped]
            ok &= q.push_many(then)
    return q, ok & g.ok


@pytest.mark.parametrize("cls", KINDS)
def test_resize_keeps_contents(cls):
    P, r = nprocs(), rank()
    q, ok = wrapped_queue(cls, 6, [1, 2, 3, 4, 5], 3, [6, 7, 8, 9])     # wrapped: 4..9
    q.resize(6 + 4 * P)
    ok &= q.capacity == 6 + 4 * P and q.size() == 6
    pybcl.barrier()
    ok &= q.push_many(np.full(4, 100 + r))
    pybcl.barrier()
    with guard() as g:
        if r == 0:
            out = q.pop_many(100).tolist()
            ok &= out[:6] == [4, 5, 6, 7, 8, 9]
            ok &= Counter(out[6:]) == Counter({100 + s: 4 for s in range(P)})
            ok &= q.push_many([1, 2, 3])
    ok &= g.ok
    q.resize(3)                                          # exactly the contents
    ok &= q.capacity == 3 and q.size() == 3
    ok &= raises(ValueError, lambda: q.resize(2), "smaller")   # every rank learns why
    ok &= q.capacity == 3
    pybcl.barrier()
    with guard() as g:
        if r == 0:
            ok &= q.push(4) is False and q.pop_many(5).tolist() == [1, 2, 3]
    ok &= g.ok
    assert all_ok(ok)


@pytest.mark.parametrize("cls", KINDS)
def test_migrate_keeps_contents(cls):
    P, r = nprocs(), rank()
    q, ok = wrapped_queue(cls, 5, [1, 2, 3, 4], 2, [5, 6, 7])           # wrapped: 3..7
    q.migrate(P - 1)
    ok &= q.host == P - 1 and q.size() == 5 and q.capacity == 5
    pybcl.barrier()
    with guard() as g:
        if r == P - 1:
            ok &= q.local().tolist() == [3, 4, 5, 6, 7]
            ok &= q.pop_many(2).tolist() == [3, 4]
    ok &= g.ok
    pybcl.barrier()
    with guard() as g:
        if r == 0:
            ok &= q.push_many([8, 9]) and q.push(10) is False
    ok &= g.ok
    pybcl.barrier()
    q.migrate(P - 1)                                      # no-op
    q.migrate(0)
    pybcl.barrier()
    with guard() as g:
        if r == 0:
            ok &= drain(q) == [5, 6, 7, 8, 9]
    ok &= g.ok
    assert all_ok(ok)


def test_migrate_object_queue():
    P, r = nprocs(), rank()
    q = pybcl.CircularQueue(0, P + 2, dtype=object)     # one push per rank, and room
    ok = q.push(["from", r])
    pybcl.barrier()
    q.migrate(P - 1)
    pybcl.barrier()
    with guard() as g:
        if r == P - 1:
            ok &= sorted(q.pop_many(P + 2)) == sorted(["from", s] for s in range(P))
    ok &= g.ok
    assert all_ok(ok)


# ---- ISx-style bucket exchange --------------------------------------------------

@pytest.mark.parametrize("cls", KINDS)
def test_isx_bucket_exchange(cls):
    """Paper Figure 3: one queue per rank, keys buffered per destination and
    pushed with push_many, then a local sort on local()."""
    P, r = nprocs(), rank()
    n_local, key_max, msg = 2000, 1 << 20, 64
    rng = np.random.default_rng(100 + r)
    keys = rng.integers(0, key_max, n_local)
    all_keys = np.concatenate(allgather(keys))
    per_rank = key_max // P + 1
    counts = np.bincount(all_keys // per_rank, minlength=P)
    qs = [cls(h, int(counts[h]) + 1) for h in range(P)]
    bufs = [[] for _ in range(P)]
    ok = True
    for k in keys:
        d = int(k) // per_rank
        bufs[d].append(k)
        if len(bufs[d]) == msg:
            ok &= qs[d].push_many(np.array(bufs[d]))
            bufs[d].clear()
    for d in range(P):
        ok &= qs[d].push_many(np.array(bufs[d], dtype=np.int64))
    pybcl.barrier()
    mine = qs[r].local()
    mine.sort()
    ok &= len(mine) == counts[r]
    result = np.concatenate(allgather(mine.copy()))
    ok &= np.array_equal(result, np.sort(all_keys))
    assert all_ok(ok)


# ---- bad input ------------------------------------------------------------------

@pytest.mark.parametrize("args,exc,word", [
    ((0, 0), ValueError, "capacity"),
    ((0, -3), ValueError, "capacity"),
    ((0, "x"), TypeError, "capacity"),
    ((0, 2.5), TypeError, "capacity"),
    ((10**6, 4), ValueError, "host"),
    ((-1, 4), ValueError, "host"),
    (("0", 4), TypeError, "host"),
    ((0, 4, "not-a-dtype"), TypeError, "dtype"),
    ((0, 4, "U"), TypeError, "dtype"),
    ((0, 10**30), ValueError, "capacity"),
])
@pytest.mark.parametrize("cls", KINDS)
def test_bad_constructor_arguments(cls, args, exc, word):
    assert all_ok(raises(exc, lambda: cls(*args), word))


@pytest.mark.mpi
def test_bad_argument_on_one_rank_fails_everywhere():
    """A collective call with a bad argument on one rank must not hang the
    others: they fail too (ValueError), the bad rank with its own error."""
    if nprocs() < 2:
        pytest.skip("needs two ranks to disagree")
    r, cap = rank(), nprocs() + 2        # room for one push per rank
    ok = raises(TypeError if r == 0 else ValueError,
                lambda: pybcl.FastQueue(0, "x" if r == 0 else cap))
    ok &= raises(ValueError, lambda: pybcl.CircularQueue(0, cap + r), "different")
    q = pybcl.CircularQueue(0, cap)
    ok &= raises(TypeError if r == 0 else ValueError,
                 lambda: q.resize(None if r == 0 else 2 * cap))
    ok &= raises(ValueError, lambda: q.migrate(-1 if r == 0 else 0))
    ok &= q.capacity == cap and q.host == 0
    ok &= q.push(1)
    pybcl.barrier()
    ok &= q.size() == nprocs()
    assert all_ok(ok)


def test_bad_method_arguments():
    q = pybcl.CircularQueue(0, 4)
    ok = raises(TypeError, lambda: q.push("abc"), "value")
    ok &= raises(TypeError, lambda: q.push([1, 2]), "value")      # a list is no int64
    ok &= raises(TypeError, lambda: q.push())
    ok &= raises(TypeError, lambda: q.push(1, 2, 3))
    ok &= raises(TypeError, lambda: q.push(1, bogus=2), "keyword")
    ok &= raises(TypeError, lambda: q.push(1, promise=pybcl.ConProm.HashMap.find), "promise")
    ok &= raises(TypeError, lambda: q.pop(promise=2), "promise")
    ok &= raises(ValueError, lambda: q.push_many(np.zeros((2, 2), dtype=np.int64)), "one-dimensional")
    ok &= raises(TypeError, lambda: q.push_many(5), "values")
    ok &= raises(TypeError, lambda: q.push_many(np.array([1.5, 2.5])), "values")   # float -> int64 is not safe
    ok &= raises(TypeError, lambda: q.push_many(["a", "b"]), "values")
    ok &= raises(ValueError, lambda: q.pop_many(-1), "n must")
    ok &= raises(TypeError, lambda: q.pop_many("3"), "n must")
    ok &= raises(TypeError, lambda: q.resize("big"), "new_capacity")
    ok &= raises(ValueError, lambda: q.resize(0), "new_capacity")
    ok &= raises(ValueError, lambda: q.migrate(nprocs()), "new_host")
    pybcl.barrier()
    ok &= q.size() == 0 and q.capacity == 4      # nothing was written
    pybcl.barrier()
    with guard() as g:
        if rank() == 0:
            ok &= q.push_many(np.array([1, 2], dtype=np.int32))   # safe cast is fine
            ok &= q.push(promise=None, value=3)
            ok &= q.pop_many(n=5, promise=None).tolist() == [1, 2, 3]
    ok &= g.ok
    assert all_ok(ok)


@pytest.mark.parametrize("cls", KINDS)
def test_len_is_size(cls):
    """len(q) == q.size() while every rank pushes into the same queue."""
    q = cls(nprocs() - 1, 4 * nprocs())
    ok = len(q) == 0 and not q
    pybcl.barrier()
    with guard() as g:
        ok &= q.push(rank()) and q.push(rank())
    pybcl.barrier()
    ok &= len(q) == q.size() == 2 * nprocs() and bool(q)
    pybcl.barrier()
    ok &= g.ok
    assert all_ok(ok)


def test_exceptions_subclass_the_standard_queue_ones():
    import queue
    ok = issubclass(pybcl.Empty, queue.Empty) and issubclass(pybcl.Empty, pybcl.Error)
    ok &= issubclass(pybcl.ContainerFull, queue.Full)
    ok &= issubclass(pybcl.ContainerFull, pybcl.Error)
    q = pybcl.CircularQueue(0, 2)
    pybcl.barrier()
    if rank() == 0:
        try:
            q.pop()
            ok = False
        except queue.Empty:                  # code written for queue.Queue catches it
            pass
    pybcl.barrier()
    assert all_ok(ok)


@pytest.mark.parametrize("cls", KINDS)
def test_repr_is_the_constructor_call(cls):
    q = cls(0, 5, dtype="float32")
    s = cls(0, 5, dtype=str)
    ok = repr(q) == f"pybcl.{cls.__name__}(host=0, capacity=5, dtype='float32')"
    ok &= repr(s) == f"pybcl.{cls.__name__}(host=0, capacity=5, dtype=str)"
    assert all_ok(ok)
