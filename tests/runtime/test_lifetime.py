"""Container lifetime: dropping a container on some ranks never frees storage
another rank still uses; close() is collective and frees at once; every
container is a context manager; dropped containers are reclaimed.

The drop tests are deterministic: the dropping rank D (the last one) drops its
handle, then fills every free byte of its segment with zeros through alloc()
(so anything it had freed is overwritten), then meets the others in a barrier
(a collective not on the dropped container).  The others then read and write
the container; D finally checks that none of their writes landed in its
zeroed allocations.
"""
import gc

import numpy as np
import pytest

import pybcl
from pybcl import _core
from conftest import all_ok

N = 64          # keys / elements per rank


def scribble():
    """Allocate every free byte of this rank's segment, zeroed."""
    ptrs = []
    for chunk in (1 << 22, 1 << 16, 1 << 12, 1 << 8, 16):
        while True:
            try:
                p = pybcl.alloc(chunk, "uint8")
            except pybcl.SegmentFull:
                break
            p.local(chunk)[:] = 0
            ptrs.append((p, chunk))
    return ptrs


def unscribble(ptrs):
    """Free the allocations; True if they are all still zero."""
    clean = all(not p.local(n).any() for p, n in ptrs)
    for p, _ in ptrs:
        pybcl.free(p)
    return clean


def drop_and_scribble(drop):
    """Rank D runs drop() and scribbles; everyone meets after it."""
    P, r = pybcl.nprocs(), pybcl.rank()
    ptrs = None
    if r == P - 1:
        drop()
        gc.collect()
        ptrs = scribble()
    pybcl.barrier()
    return ptrs


def finish(ptrs, ok):
    """Everyone: the readers' verdict and D's check of its zeroed memory."""
    pybcl.barrier()                 # the others' writes are done
    if ptrs is not None:
        ok = unscribble(ptrs) and ok
    return all_ok(ok)


KINDS = {
    "int64": ("int64", "int64", lambda k: k, lambda k: 7 * k + 1),
    "fixed-bytes": ("S8", "S16", lambda k: b"k%d" % k, lambda k: b"value-%d" % k),
    "bytes": (bytes, bytes, lambda k: b"key-%d" % k, lambda k: b"v" * (k % 40) + b"%d" % k),
    "str": (str, str, lambda k: "key-%d" % k, lambda k: "value-%d-" % k + "x" * (k % 30)),
    "object": (object, object, lambda k: ("k", k), lambda k: {"v": k, "pad": "y" * (k % 50)}),
}


class Holder:
    """One reference to a container that a test can drop on one rank."""

    def __init__(self, c):
        self.c = c

    def drop(self):
        self.c = None


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("kind", list(KINDS))
def test_hashmap_dropped_on_one_rank_keeps_every_entry_for_the_others(kind):
    P, r = pybcl.nprocs(), pybcl.rank()
    kt, vt, key, val = KINDS[kind]
    h = Holder(pybcl.HashMap(8 * N * P, kt, vt))
    for i in range(N):
        h.c[key(i * P + r)] = val(i * P + r)
    pybcl.barrier()
    ptrs = drop_and_scribble(h.drop)
    ok = True
    if h.c is not None:
        m = h.c
        ok = all(m.get(key(k)) == val(k) for k in range(N * P))
        for i in range(N):                       # writes into every rank's buckets
            k = N * P + i * P + r
            m[key(k)] = val(k)
        ok = ok and all(m.get(key(N * P + i * P + r)) == val(N * P + i * P + r)
                        for i in range(N))
    assert finish(ptrs, ok)


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("kind", ["int64", "object"])
def test_queue_dropped_by_its_host_keeps_its_elements(kind):
    P, r = pybcl.nprocs(), pybcl.rank()
    D = P - 1
    cls = pybcl.FastQueue if kind == "int64" else pybcl.CircularQueue
    h = Holder(cls(D, 2 * N * P, kind if kind == "int64" else object))
    for i in range(N):
        h.c.push(r * N + i if kind == "int64" else ("e", r * N + i))
    pybcl.barrier()
    ptrs = drop_and_scribble(h.drop)
    got = []
    if h.c is not None:
        while True:
            try:
                v = h.c.pop()
            except pybcl.Empty:
                break
            got.append(v if kind == "int64" else v[1])
    pybcl.barrier()                     # every pop done before the next push
    if h.c is not None:
        h.c.push(0 if kind == "int64" else ("e", 0))    # a write after the drop
    tot = pybcl.allreduce(np.array([len(got), sum(got), sum(g * g for g in got)],
                                   dtype=np.int64))
    want = np.arange(N * P, dtype=np.int64)
    ok = (tot[0], tot[1], tot[2]) == (N * P, want.sum(), (want * want).sum())
    assert finish(ptrs, ok)


@pytest.mark.mpi(min_size=2)
def test_bloom_filter_dropped_on_one_rank_has_no_false_negatives_for_the_others():
    P, r = pybcl.nprocs(), pybcl.rank()
    h = Holder(pybcl.BloomFilter(4 * N * P, 0.01))
    h.c.insert_many(np.arange(r * N, (r + 1) * N, dtype=np.int64))
    pybcl.barrier()
    ptrs = drop_and_scribble(h.drop)
    ok = True
    if h.c is not None:
        ok = bool(np.all(h.c.find_many(np.arange(N * P, dtype=np.int64))))
        h.c.insert_many(np.arange(N * P, 2 * N * P, dtype=np.int64))
    assert finish(ptrs, ok)


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("hosted", [False, True])
def test_array_dropped_on_one_rank_keeps_its_elements_for_the_others(hosted):
    P, r = pybcl.nprocs(), pybcl.rank()
    size = N * P
    h = Holder(pybcl.Array(P - 1, size, "int64") if hosted else pybcl.DArray(size, "int64"))
    lo, hi = h.c.local_range()
    if hi > lo:
        h.c.local()[:] = np.arange(lo, hi, dtype=np.int64) * 3 + 1
    pybcl.barrier()
    ptrs = drop_and_scribble(h.drop)
    ok = True
    if h.c is not None:
        ok = bool(np.array_equal(h.c[0:size], np.arange(size, dtype=np.int64) * 3 + 1))
    pybcl.barrier()                     # every read done before the writes
    if h.c is not None:
        h.c[size - N:size] = np.full(N, -5, dtype=np.int64)   # the last rank's block
    assert finish(ptrs, ok)


@pytest.mark.mpi(min_size=2)
def test_hashmap_buffer_dropped_on_one_rank_keeps_its_queue_for_the_others():
    """The others push into the dropping rank's incoming queue."""
    P, r = pybcl.nprocs(), pybcl.rank()
    D = P - 1
    m = pybcl.HashMap(16 * N * P)
    mine = [k for k in range(16 * N * P) if m.owner(k) == D][:N]
    h = Holder(pybcl.HashMapBuffer(m, 4 * N * P, 1))
    ptrs = drop_and_scribble(h.drop)
    if h.c is not None:
        for k in mine:
            h.c.insert(k, k)
        ok = h.c.overflowed == 0
    else:
        ok = True
    assert finish(ptrs, ok)


@pytest.mark.mpi(min_size=2)
def test_darray_buffer_dropped_on_one_rank_keeps_its_queue_for_the_others():
    """The others push updates into the dropping rank's owner queue."""
    P, r = pybcl.nprocs(), pybcl.rank()
    a = pybcl.DArray(N * P, "int64")
    h = Holder(pybcl.DArrayBuffer(a, 1))
    ptrs = drop_and_scribble(h.drop)
    if h.c is not None:
        lo = a.block * (P - 1)
        for i in range(lo, N * P):
            h.c.update_many(np.array([i]), np.array([1]))
    assert finish(ptrs, True)


@pytest.mark.mpi(min_size=2)
def test_create_drop_loop_neither_reuses_a_map_a_peer_holds_nor_leaks():
    """Rank 0 keeps each map one iteration longer than the others and reads
    it after they dropped it and built the next; the maps together need
    more than twice the segment, so a leak raises SegmentFull."""
    P, r = pybcl.nprocs(), pybcl.rank()
    gc.collect()
    probe = pybcl.HashMap(P)        # its constructor reclaims earlier tests' maps
    base = _core.bytes_in_use()
    one = pybcl.HashMap(1024 * P)
    per_bucket = max(1, (_core.bytes_in_use() - base) // 1024)
    per_bucket = int(pybcl.allreduce(np.array([per_bucket], np.int64), "max")[0])
    del probe, one
    cap = P * (_core.segment_size() // 128 // per_bucket)
    prev, ok = None, True
    for i in range(300):
        m = pybcl.HashMap(cap)
        m[r] = i * P + r
        pybcl.barrier()
        if r == 0 and prev is not None:
            ok = ok and all(prev.get(q) == (i - 1) * P + q for q in range(P))
        if r == 0:
            prev = m
        del m
    prev = None
    assert all_ok(ok)


# ---- close() and with ----------------------------------------------------------

def settle():
    """Reclaim what earlier tests dropped (a constructor's agreement does),
    so that bytes_in_use() changes only with the containers made here."""
    gc.collect()
    pybcl.DArray(1).close()


def make_all():
    P = pybcl.nprocs()
    m, m2 = pybcl.HashMap(64 * P, str, object), pybcl.HashMap(64 * P)
    d = pybcl.DArray(10 * P)
    sbuf = pybcl.HashMapBuffer(m, 64, 4)
    STR_BUFFERS[:] = [sbuf]
    return [
        m,
        m2,
        pybcl.HashMapBuffer(m2, 64, 4),
        sbuf,
        pybcl.FastQueue(0, 16),
        pybcl.CircularQueue(P - 1, 16, object),
        pybcl.BloomFilter(100),
        d,
        pybcl.Array(0, 10),
        pybcl.DArrayBuffer(d, 4),
    ]


STR_BUFFERS = []         # the buffers over a str-keyed map (make_all)


def use(c):
    if isinstance(c, pybcl.DArrayBuffer):
        c.update_many(np.array([0]), np.array([1]))
    elif isinstance(c, pybcl.HashMapBuffer):
        c.insert("k" if any(c is b for b in STR_BUFFERS) else 1, 1)
    elif isinstance(c, pybcl.HashMap):
        c.find("k")
    elif isinstance(c, (pybcl.FastQueue, pybcl.CircularQueue)):
        c.push(1)
    elif isinstance(c, pybcl.BloomFilter):
        c.insert(1)
    else:
        c[0]


def test_close_frees_at_once_and_every_later_use_raises_value_error_naming_it():
    settle()
    base = _core.bytes_in_use()
    cs = make_all()
    ok = _core.bytes_in_use() > base or pybcl.nprocs() > 1
    for c in reversed(cs):
        c.close()
        c.close()                       # idempotent
    ok = ok and _core.bytes_in_use() == base
    for c in cs:
        name = type(c).__name__
        try:
            use(c)
        except ValueError as e:
            ok = ok and str(e) == f"operation on a closed {name}"   # the name users know
        else:
            ok = False
    assert all_ok(ok)


def test_every_container_is_a_context_manager_that_closes_at_exit():
    settle()
    base = _core.bytes_in_use()
    cs = make_all()
    for c in reversed(cs):
        with c as same:
            ok = same is c
    ok = ok and _core.bytes_in_use() == base
    for c in cs:
        with pytest.raises(ValueError, match="closed"):
            use(c)
    assert all_ok(ok)


def test_with_left_by_an_exception_keeps_the_container_open():
    m = pybcl.HashMap(16 * pybcl.nprocs())
    with pytest.raises(KeyError):
        with m:
            m[pybcl.rank()] = 1
            m[10**9]
    pybcl.barrier()
    ok = m.get(pybcl.rank()) == 1
    m.close()
    assert all_ok(ok)


@pytest.mark.mpi(min_size=2)
def test_close_of_different_containers_on_different_ranks_raises_on_every_rank():
    a, b = pybcl.DArray(10), pybcl.DArray(10)
    try:
        (a if pybcl.rank() == 0 else b).close()
    except ValueError as e:
        ok = "close()" in str(e) and "different" in str(e)
    else:
        ok = False
    a.close()
    b.close()
    assert all_ok(ok)


@pytest.mark.serial_only
@pytest.mark.parametrize("transport", ["shm", "rma"])
def test_close_on_some_ranks_only_raises_on_every_rank_within_seconds(tmp_path, transport):
    """Rank 0 closes the map; the others are in another collective."""
    from launch import job_env, run_script
    proc, seconds = run_script(tmp_path, """
        import pybcl
        m = pybcl.HashMap(64)
        try:
            m.close() if pybcl.rank() == 0 else pybcl.allreduce(1)
        except (ValueError, pybcl.Error) as e:
            print(f"<raised on {pybcl.rank()}: {e}>", flush=True)
    """, nprocs=2, timeout=60, env=job_env(PYBCL_TRANSPORT=transport,
                                           PYBCL_SEGMENT_SIZE="4M"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert seconds < 30, out
    for r in range(2):
        assert f"<raised on {r}: " in out, out
    assert "HashMap.close()" in out and "not all in the same collective call" in out, out


@pytest.mark.serial_only
@pytest.mark.parametrize("transport", ["shm", "rma"])
def test_global_ptr_from_before_finalize_raises_after_reinit(tmp_path, transport):
    from launch import job_env, run_script
    proc, _ = run_script(tmp_path, """
        import pybcl
        pybcl.init(segment_size="4M")
        p = pybcl.alloc(4, "int64")
        q = p + 1
        pybcl.finalize()
        pybcl.init(segment_size="4M")
        new = pybcl.alloc(4, "int64")
        new[0:4] = [7, 7, 7, 7]
        for name, fn in [("get", lambda: p[0]), ("put", lambda: q.__setitem__(0, 1)),
                         ("local", lambda: p.local(4)), ("rget", lambda: pybcl.rget(p, 1)),
                         ("rput", lambda: pybcl.rput(p, [1])),
                         ("atomic", lambda: pybcl.fetch_and_add(p, 1)),
                         ("free", lambda: pybcl.free(p))]:
            try:
                fn()
            except pybcl.Error as e:
                assert "finalize" in str(e), e
            else:
                raise AssertionError(f"stale GlobalPtr: {name} went through")
        assert list(new[0:4]) == [7, 7, 7, 7]
        print("<stale ok>", flush=True)
    """, nprocs=2, timeout=60, env=job_env(PYBCL_TRANSPORT=transport))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert proc.stdout.count("<stale ok>") == 2, out


def test_global_ptr_access_outside_its_alloc_block_raises_index_error():
    P, r = pybcl.nprocs(), pybcl.rank()
    p = pybcl.alloc(4, "int64")
    guard = pybcl.alloc(4, "int64")          # a neighbour the stray access would hit
    p[0:4] = np.arange(4)
    guard[0:4] = np.full(4, 9)
    ptrs = [pybcl.broadcast(p, root=q) for q in range(P)]
    pybcl.barrier()
    ok = True
    target = ptrs[(r + 1) % P]
    for fn in (lambda: target[4], lambda: target[2:5], lambda: (target + 4)[0],
               lambda: (target - 1)[0], lambda: pybcl.rget(target, 5),
               lambda: pybcl.rput(target + 3, [1, 2]),
               lambda: pybcl.fetch_and_add(target + 4, 1)):
        try:
            fn()
        except IndexError as e:
            ok = ok and "alloc() block" in str(e)
        else:
            ok = False
    ok = ok and list(target[0:4]) == [0, 1, 2, 3] and (target + 3)[0] == 3
    pybcl.barrier()
    ok = ok and list(guard[0:4]) == [9, 9, 9, 9]
    pybcl.barrier()
    pybcl.free(p)
    pybcl.free(guard)
    assert all_ok(ok)


def _loop_makers():
    """Each kind of container alone (its helpers built once), sized later."""
    P = pybcl.nprocs()
    return {
        "FastQueue": lambda n: pybcl.FastQueue(0, n),
        "CircularQueue": lambda n: pybcl.CircularQueue(P - 1, n),
        "HashMap": lambda n: pybcl.HashMap(n * P),
        "DArray": lambda n: pybcl.DArray(n * P),
        "Array": lambda n: pybcl.Array(0, n),
        "BloomFilter": lambda n: pybcl.BloomFilter(n * P),
    }


@pytest.mark.mpi
@pytest.mark.parametrize("kind", sorted(_loop_makers()))
def test_every_kind_created_and_dropped_in_a_loop_is_reclaimed(kind):
    """Each container takes about an eighth of the segment, and the loop
    makes three segments' worth: one that is not reclaimed by the next
    constructor raises SegmentFull."""
    make = _loop_makers()[kind]
    settle()
    base = _core.bytes_in_use()
    one = make(1 << 12)
    per = int(pybcl.allreduce(np.array([max(1, _core.bytes_in_use() - base)], np.int64),
                              "max")[0])
    one.close()
    n = max(1 << 12, (1 << 12) * (_core.segment_size() // 8) // per)
    for _ in range(24):
        c = make(n)
        pybcl.barrier()
        del c
    settle()
    assert all_ok(_core.bytes_in_use() - base < _core.segment_size() // 8)
