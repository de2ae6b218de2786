"""Bad input across the whole API gets the project's standard answer: a clear
exception naming the argument, on every rank where the call is collective,
never a desynchronised job.

Each case checks the message names the argument (not CPython's / NumPy's
generic conversion errors, nor the msgpack writer's "pybcl.packb: ...")
and that the call leaves the ranks in step."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok
from launch import each_transport, run_ok, run_script

P = pybcl.nprocs()
R = pybcl.rank()
LAST = P - 1


# ---- broadcast: root's failure reaches every rank ------------------------------

def test_broadcast_of_an_unpicklable_object_raises_on_every_rank():
    try:
        pybcl.broadcast(lambda: 0, root=LAST)
    except TypeError as e:                 # root: its own pickling error
        ok = R == LAST and "obj" in str(e)
    except pybcl.Error as e:               # the others: root could not send
        ok = R != LAST and f"root {LAST}" in str(e)
    else:
        ok = False
    assert all_ok(ok)
    # the ranks are still in step: the next broadcast gets the next object
    assert pybcl.broadcast(("next", LAST), root=LAST) == ("next", LAST)


@pytest.mark.parametrize("bad", ["0", None, 1.0, -1, "P", 2**63])
def test_broadcast_bad_root_on_one_rank_raises_everywhere(bad):
    bad = P if bad == "P" else bad
    try:
        pybcl.broadcast(R, root=bad if R == LAST else 0)
    except (TypeError, ValueError) as e:
        ok = "root" in str(e) or f"rank {LAST}" in str(e)
    else:
        ok = False
    assert all_ok(ok)
    assert pybcl.broadcast(R, root=0) == 0


def test_broadcast_with_different_roots_raises_everywhere():
    if P == 1:
        pytest.skip("one rank always agrees with itself")
    with pytest.raises(ValueError, match="root"):
        pybcl.broadcast(R, root=R)
    assert pybcl.broadcast(R, root=LAST) == LAST


# ---- messages name the argument -------------------------------------------------

def _ptr():
    return pybcl.alloc(4)


def _object_map():
    return pybcl.HashMap(16, key_type=object, value_type=object)


LOCAL_CASES = {
    "GlobalPtr rank str": (lambda: pybcl.GlobalPtr("0", 0), TypeError, "rank"),
    "GlobalPtr rank 2**63": (lambda: pybcl.GlobalPtr(2**63, 0), ValueError, "rank"),
    "GlobalPtr offset None": (lambda: pybcl.GlobalPtr(0, None), TypeError, "offset"),
    "GlobalPtr offset 2**64": (lambda: pybcl.GlobalPtr(0, 2**64), ValueError, "offset"),
    "ptr[str]": (lambda: _ptr()["a"], TypeError, "index"),
    "ptr[None] = 1": (lambda: _ptr().__setitem__(None, 1), TypeError, "index"),
    "ptr[0:str]": (lambda: _ptr()[0:"b"], TypeError, "slice stop"),
    "ptr[0:2**61] (bytes overflow size_t)": (lambda: _ptr()[0:2**61], IndexError, "count"),
    "ptr.local(str)": (lambda: _ptr().local("x"), TypeError, "count"),
    "ptr.local(2**62) (bytes overflow size_t)": (lambda: _ptr().local(2**62), IndexError,
                                                 "count"),
    "hash64 str": (lambda: pybcl.hash64("text"), TypeError, "data"),
    "hash64 seed -1": (lambda: pybcl.hash64(b"a", seed=-1), OverflowError, "seed"),
    "hash64 seed float": (lambda: pybcl.hash64(b"a", seed=1.5), TypeError, "seed"),
    "hash_u64 2**64": (lambda: pybcl.hash_u64(2**64), OverflowError, "x"),
    "BloomFilter.predict n<0": (lambda: pybcl.BloomFilter.predict(-1, 10, 3), ValueError,
                                "n must be a finite number >= 0, got -1"),
    "BloomFilter.predict k=0": (lambda: pybcl.BloomFilter.predict(10, 10, 0), ValueError, "k"),
    "BloomFilter.predict nwords=0": (lambda: pybcl.BloomFilter.predict(10, 0, 3), ValueError,
                                     "nwords must be a finite number >= 1, got 0"),
    # the core's finalize refuses a bad guard before it does anything
    "finalize exit_guard<0": (lambda: pybcl._core.finalize(-1.5), ValueError,
                              "exit_guard must be 0 or a positive number of seconds, got -1.5"),
}


@pytest.mark.parametrize("case", sorted(LOCAL_CASES))
def test_local_calls_name_the_argument(case):
    call, exc, name = LOCAL_CASES[case]
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value), str(info.value)


# Cases on containers: the container is made collectively, the bad call is local.
CONTAINER_CASES = {
    "insert_many keys None": (lambda: pybcl.HashMap(16), lambda m: m.insert_many(None, [1]),
                              (TypeError, ValueError), "keys"),
    "find_many keys None": (lambda: pybcl.HashMap(16), lambda m: m.find_many(None),
                            (TypeError, ValueError), "keys"),
    "accumulate delta ndarray": (lambda: pybcl.HashMap(16),
                                 lambda m: m.accumulate(1, np.array([1, 2])), TypeError,
                                 "delta"),
    "modify fn None": (lambda: pybcl.HashMap(16), lambda m: m.modify(1, None), TypeError,
                       "fn"),
    "object value unserializable": (_object_map, lambda m: m.insert(1, object()), TypeError,
                                    "value"),
    "object key unserializable": (_object_map, lambda m: m.insert({1}, 1), TypeError, "key"),
    "object value 2**64": (_object_map, lambda m: m.insert(1, 2**64), OverflowError,
                           "value"),
    "object value cycle": (_object_map, lambda m: m.insert(1, _cycle()), ValueError,
                           "value"),
    "str key surrogate": (lambda: pybcl.HashMap(16, key_type=str),
                          lambda m: m.insert("\ud800", 1), ValueError, "key"),
    "queue push unserializable": (lambda: pybcl.CircularQueue(LAST, 8, object),
                                  lambda q: q.push(object()), TypeError, "value"),
    "bloom object key": (lambda: pybcl.BloomFilter(100, key_type=object),
                         lambda b: b.insert(object()), TypeError, "x: "),
}


def _cycle():
    cycle = []
    cycle.append(cycle)
    return cycle


@pytest.mark.parametrize("case", sorted(CONTAINER_CASES))
def test_container_calls_name_the_argument(case):
    make, call, exc, name = CONTAINER_CASES[case]
    c = make()
    with pytest.raises(exc) as info:
        call(c)
    assert name in str(info.value), str(info.value)


def test_modify_with_a_non_callable_leaves_the_bucket_free():
    # every rank inserts one key: at most half full at any P (16 keys in 16
    # buckets at 16 ranks left a key with no free bucket among those it may use)
    m = pybcl.HashMap(16 + 2 * P)
    key = 100 + R
    with pytest.raises(TypeError, match="fn"):
        m.modify(key, 5)
    ok = m.modify(key, lambda v: 7) == 7         # not locked by the failed call
    assert all_ok(ok)


COLLECTIVE_CASES = {
    "HashMapBuffer hashmap None": (lambda m: pybcl.HashMapBuffer(None, 8, 4), TypeError,
                                   "hashmap"),
    "HashMapBuffer queue_size None": (lambda m: pybcl.HashMapBuffer(m, None, 4), TypeError,
                                      "queue_size"),
    "HashMapBuffer message_size 2**63": (lambda m: pybcl.HashMapBuffer(m, 8, 2**63),
                                         ValueError, "message_size"),
    "DArray size ndarray": (lambda m: pybcl.DArray(np.array([1, 2])), TypeError, "size"),
    "CircularQueue capacity ndarray": (lambda m: pybcl.CircularQueue(0, np.array([8, 9])),
                                       TypeError, "capacity"),
    "BloomFilter expected_items ndarray": (lambda m: pybcl.BloomFilter(np.array([8, 9])),
                                           TypeError, "expected_items"),
}


@pytest.mark.parametrize("case", sorted(COLLECTIVE_CASES))
def test_collective_calls_name_the_argument_on_every_rank(case):
    call, exc, name = COLLECTIVE_CASES[case]
    m = pybcl.HashMap(16)
    try:
        call(m)
    except exc as e:
        ok = name in str(e)
    else:
        ok = False
    assert all_ok(ok)


@pytest.mark.parametrize("case", ["HashMapBuffer queue_size None",
                                  "HashMapBuffer hashmap None"])
def test_collective_bad_argument_on_one_rank_raises_everywhere(case):
    call, exc, name = COLLECTIVE_CASES[case]
    m = pybcl.HashMap(16)
    try:
        call(m) if R == LAST else pybcl.HashMapBuffer(m, 8, 4)
    except (TypeError, ValueError) as e:
        ok = name in str(e) if R == LAST else f"rank {LAST}" in str(e)
    else:
        ok = False
    assert all_ok(ok)


# ---- ranks in different collectives: a clear error, not garbage ranks -------------

@pytest.mark.serial_only
@pytest.mark.parametrize("transport", ["shm", "rma"])
def test_barrier_against_an_agreeing_collective_names_the_mismatch(tmp_path, transport):
    """MPICH matches rank 0's Ibarrier with the other rank's argument
    agreement (an allreduce): that rank must name the mismatch, not report
    "the arguments were invalid on ranks 1505311347..0" from the garbage it
    received."""
    from launch import job_env
    proc, seconds = run_script(tmp_path, """
        import pybcl
        pybcl.barrier() if pybcl.rank() == 0 else pybcl.allreduce(1)
    """, nprocs=2, timeout=120, env=job_env(PYBCL_TRANSPORT=transport,
                                            PYBCL_SEGMENT_SIZE="4M"))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "invalid on ranks" not in out, out
    if "allreduce()" in out:
        assert "not all in the same collective call" in out, out


def test_hashmap_buffer_message_size_of_a_wide_type_cannot_wrap_the_buffer_size():
    """message_size * entry bytes * P must not wrap size_t for a wide key
    type (S100000), which would under-allocate the buffers then filled."""
    m = pybcl.HashMap(2 * P, key_type="S100000")
    try:
        pybcl.HashMapBuffer(m, 8, 2**48)
    except MemoryError as e:
        ok = "message_size" in str(e)
    else:
        ok = False
    assert all_ok(ok)


# ---- smaller defects: the right exception, naming the argument --------------------

def test_a_python_type_other_than_object_is_not_an_element_type():
    """NumPy maps any Python type to dtype object: key_type=list was
    silently taken as `object`.  Refused on every rank, naming key_type."""
    try:
        pybcl.HashMap(4 * P, key_type=list)
    except TypeError as e:
        ok = "key_type" in str(e) and "list" in str(e)
    else:
        ok = False
    assert all_ok(ok)


def test_pop_many_of_a_huge_n_pops_at_most_what_the_queue_holds():
    q = pybcl.CircularQueue(0, 8)
    pybcl.barrier()
    if R == 0:
        q.push_many(np.arange(3))
    pybcl.barrier()
    ok = True
    if R == 0:
        got = q.pop_many(2**63)              # "at most n": not an OverflowError
        ok = got.tolist() == [0, 1, 2]
        try:
            q.pop_many(-2**63)
        except ValueError as e:
            ok = ok and "n must be" in str(e)
        else:
            ok = False
    assert all_ok(ok)


@pytest.mark.parametrize("call", ["insert_many", "find_many", "accumulate_many",
                                  "erase_many", "buffer insert_many"])
def test_none_where_an_array_belongs_is_a_type_error_naming_it(call):
    m = pybcl.HashMap(8 * P)
    fns = {"insert_many": lambda: m.insert_many(None, None),
           "find_many": lambda: m.find_many(None),
           "accumulate_many": lambda: m.accumulate_many(None, 1),
           "erase_many": lambda: m.erase_many(None)}
    if call == "buffer insert_many":
        buf = pybcl.HashMapBuffer(m, 8, 4)
        fns[call] = lambda: buf.insert_many(None, None)
    try:
        fns[call]()
    except TypeError as e:
        ok = "keys" in str(e) and "NoneType" in str(e)
    else:
        ok = False
    assert all_ok(ok)


@pytest.mark.parametrize("collective", ["barrier", "allreduce", "HashMap", "CircularQueue",
                                        "size", "items"])
def test_a_collective_inside_modify_raises_instead_of_deadlocking(collective):
    """Every rank modifies the same key and calls a collective from fn:
    the rank holding the bucket would wait in the collective for peers
    spinning on that bucket.  fn's collective raises at once; the bucket is
    released and the value unchanged."""
    m = pybcl.HashMap(8 * P)
    m.insert(7, 70)
    pybcl.barrier()
    calls = {"barrier": pybcl.barrier, "allreduce": lambda: pybcl.allreduce(1),
             "HashMap": lambda: pybcl.HashMap(8), "CircularQueue":
             lambda: pybcl.CircularQueue(0, 8), "size": m.size, "items": m.items}

    def fn(v):
        calls[collective]()
        return v + 1

    try:
        m.modify(7, fn)
    except pybcl.Error as e:
        ok = "inside a HashMap.modify() fn" in str(e)
    else:
        ok = False
    pybcl.barrier()
    ok = ok and m.find(7) == 70
    assert all_ok(ok)


# ---- SegmentFull keeps a buffer's entries, as ContainerFull does --------------------

SEGMENT_FULL_JOB = """
    import numpy as np
    import pybcl
    pybcl.init(segment_size="8M")
    me, P = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(4096 * P, key_type=str, value_type=object)
    blocks = []
    while True:                       # fill this rank's segment
        try:
            blocks.append(pybcl.alloc(1 << 17, dtype="uint8"))
        except pybcl.SegmentFull:
            break
    pybcl.free(blocks.pop())          # leave ~128 KiB: far less than the values
    pybcl.barrier()
    keys = [f"k{me}-{i}" for i in range(300)]
    value = "v" * 2000
    buf = pybcl.HashMapBuffer(m, 64, 16)
    buf.insert_many(keys, [value] * len(keys))
    try:
        buf.flush()
    except pybcl.SegmentFull as e:
        assert "kept for the next flush()" in str(e), e
    else:
        raise AssertionError("600 KiB of values fit in 128 KiB")
    for b in blocks:
        pybcl.free(b)
    pybcl.barrier()
    buf.flush()                       # the kept entries go in now
    assert m.size() == 300 * P, m.size()
    assert all(m.find(f"k{r}-{i}") == value for r in range(P) for i in range(300))

    # insert_many says which keys went in when the segment runs out
    local = pybcl.HashMap(4096 * P, key_type=str, value_type=object)
    blocks = []
    while True:
        try:
            blocks.append(pybcl.alloc(1 << 16, dtype="uint8"))
        except pybcl.SegmentFull:
            break
    pybcl.free(blocks.pop())
    pybcl.barrier()
    mine = [f"x{me}-{i}" for i in range(200)]
    try:
        local.insert_many(mine, [value] * len(mine))
    except pybcl.SegmentFull as e:
        text = str(e)
        assert "keys[:" in text and "were stored" in text, text
        stored = int(text.split("keys[:", 1)[1].split("]", 1)[0])
        assert all(local.find(k) == value for k in mine[:stored])
        assert all(local.find(k) is None for k in mine[stored:])
    else:
        raise AssertionError("400 KiB of values fit in 64 KiB")
    for b in blocks:
        pybcl.free(b)
    pybcl.barrier()
    print(f"<ok {me}>", flush=True)
"""


@each_transport()
def test_segment_full_keeps_buffered_entries_and_insert_many_says_what_went_in(
        tmp_path, nprocs, transport):
    from launch import job_env
    run_ok(tmp_path, SEGMENT_FULL_JOB, nprocs, timeout=120,
           env=job_env(PYBCL_TRANSPORT=transport))


# ---- local() views outlive finalize() -----------------------------------------------

VIEWS_AFTER_FINALIZE_JOB = """
    import numpy as np
    import pybcl
    pybcl.init(segment_size="4M")
    me, P = pybcl.rank(), pybcl.nprocs()
    a = pybcl.DArray(64 * P)
    a.local()[:] = np.arange(64) + 1000 * me
    q = pybcl.CircularQueue(0, 16)
    ptr = pybcl.alloc(32)
    ptr.local()[:] = 7 + me
    if me == 0:
        q.push_many(np.arange(5))
    pybcl.barrier()
    views = [a.local(), a.local()[10:20], ptr.local()]
    if me == 0:
        views.append(q.local())
    before = [v.copy() for v in views]
    pybcl.finalize()
    # Reading (and writing) a view after finalize() must not fault on shm,
    # where the window's memory is unmapped.
    for v, b in zip(views, before):
        assert (v == b).all(), (v, b)
    for v in views:
        v[:] = 1
    pybcl.init(segment_size="4M")
    fresh = pybcl.DArray(8 * P)
    fresh.local()[:] = me
    pybcl.barrier()
    assert (fresh.local() == me).all()
    assert all((v == 1).all() for v in views)
    print(f"<ok {me}>", flush=True)
"""


@each_transport()
def test_local_views_stay_readable_after_finalize(tmp_path, nprocs, transport):
    from launch import job_env
    run_ok(tmp_path, VIEWS_AFTER_FINALIZE_JOB, nprocs, timeout=120,
           env=job_env(PYBCL_TRANSPORT=transport))
