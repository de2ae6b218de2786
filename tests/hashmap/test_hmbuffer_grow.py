"""HashMapBuffer(grow=True): a flush that fills the map doubles it and goes
on, so a counter need not know its distinct count in advance.

Every rank adds the same keys (the hottest case: every accumulate of a key
from every rank lands on one bucket) plus keys of its own, into a map far
too small for them; sized by P.
"""
import numpy as np
import pytest

import pybcl
from conftest import all_ok
from launch import job_env, run_script


def raised(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except Exception as e:          # noqa: BLE001 -- the tests compare classes
        return e
    return None


@pytest.mark.parametrize("rounds", [1, 3])
def test_grow_flush_completes_and_counts_exactly(rounds):
    r, P = pybcl.rank(), pybcl.nprocs()
    shared = np.arange(600, dtype=np.uint64) * 7919 + 1       # every rank's
    own = (np.arange(300, dtype=np.uint64) + 1) * 1_000_003 + np.uint64(r) * 7 + 5
    m = pybcl.HashMap(8 * P, key_type="uint64", value_type="int64")
    start = m.capacity
    buf = pybcl.HashMapBuffer(m, 64, 16, grow=True)
    for i in range(rounds):
        buf.accumulate_many(shared, 1)
        buf.insert_many(own, own.astype(np.int64))
        buf.flush()
    assert m.capacity > start
    vals, found = m.find_many(shared)
    ok = bool(found.all()) and bool((vals == rounds * P).all())
    nxt = (r + 1) % P                                         # another rank's own keys
    theirs = (np.arange(300, dtype=np.uint64) + 1) * 1_000_003 + np.uint64(nxt) * 7 + 5
    tv, tf = m.find_many(theirs)
    ok = ok and bool(tf.all()) and bool((tv == theirs.astype(np.int64)).all())
    assert all_ok(ok)
    assert len(m) == 600 + 300 * P


def test_flushing_keys_the_map_holds_does_not_grow_it():
    """A flush that only adds to keys the map holds (a counter's second
    flush, a recount) finds room as the map is: grow sizes the map by the
    keys that are new to it, not by every distinct key flushed."""
    r, P = pybcl.rank(), pybcl.nprocs()
    n = 150_000     # a rank's keys: its sample (1 in 1024) bounds the new ones below 5 %
    keys = (np.arange(r * n, (r + 1) * n, dtype=np.uint64) + 1) * np.uint64(0x9E3779B97F4A7C15)
    m = pybcl.HashMap(16 * P, key_type="uint64", value_type="int64")
    with pybcl.HashMapBuffer(m, 1 << 16, 4096, grow=True) as buf:
        buf.accumulate_many(keys)
        buf.flush()
        grown = m.capacity
        buf.accumulate_many(keys)            # every key again, none new
    vals, found = m.find_many(keys[::64])
    ok = bool(found.all()) and bool((vals == 2).all())
    assert all_ok(ok)
    assert m.capacity == grown > 16 * P


@pytest.mark.parametrize("key_type", [str, bytes, object])
def test_grow_works_over_variable_length_keys(key_type):
    r, P = pybcl.rank(), pybcl.nprocs()
    conv = {str: str, bytes: lambda s: s.encode(), object: lambda s: ("k", s)}[key_type]
    keys = [conv(f"word{i}") for i in range(150)]
    m = pybcl.HashMap(4 * P, key_type=key_type, value_type="int64")
    with pybcl.HashMapBuffer(m, 32, 8, grow=True) as buf:
        buf.accumulate_many(keys, 2)
    mine = keys[r::P]
    assert all_ok(all(m[k] == 2 * P for k in mine))
    assert len(m) == 150


def test_without_grow_a_full_map_still_raises_container_full():
    P = pybcl.nprocs()
    m = pybcl.HashMap(4 * P, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(m, 64, 16)
    buf.accumulate_many(np.arange(100 * P, dtype=np.uint64), 1)
    e = raised(buf.flush)
    assert all_ok(isinstance(e, pybcl.ContainerFull))
    m.resize(400 * P)
    buf.flush()                                 # kept entries go in now
    assert len(m) == 100 * P


@pytest.mark.parametrize("grow", ["yes", 1.0, None])
def test_grow_must_be_a_bool(grow):
    m = pybcl.HashMap(8 * pybcl.nprocs())
    e = raised(pybcl.HashMapBuffer, m, 16, 4, grow=grow)
    assert all_ok(isinstance(e, TypeError) and "grow" in str(e))


@pytest.mark.mpi(min_size=2)
def test_grow_that_differs_between_ranks_fails_on_every_rank():
    m = pybcl.HashMap(8 * pybcl.nprocs())
    e = raised(pybcl.HashMapBuffer, m, 16, 4, grow=pybcl.rank() == 0)
    assert all_ok(e is not None and "grow" in str(e))
    pybcl.HashMapBuffer(m, 16, 4, grow=True).flush()       # the next collective matches


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs", [1, 3])
def test_a_map_that_cannot_grow_raises_segment_full_naming_the_setting(tmp_path, nprocs):
    proc, _ = run_script(tmp_path, """
        import numpy as np, pybcl
        P = pybcl.nprocs()
        m = pybcl.HashMap(1024 * P, key_type="uint64", value_type="int64")
        # each rank's queue holds what the others send it; the map that
        # would hold every key needs more than the 2 MiB segment
        n = 60_000
        buf = pybcl.HashMapBuffer(m, n, 1024, grow=True)
        keys = np.arange(n * pybcl.rank(), n * (pybcl.rank() + 1), dtype=np.uint64)
        buf.insert_many(keys, keys.astype(np.int64))
        try:
            buf.flush()
        except pybcl.SegmentFull as e:
            assert "PYBCL_SEGMENT_SIZE" in str(e), e
            kept = len(m)
            print("segment full on rank", pybcl.rank(), "with", kept, "keys in", flush=True)
        else:
            raise SystemExit("flush did not raise SegmentFull")
        # nothing lost: what is not in the map is kept for the next flush
        from mpi4py import MPI
        kept_everywhere = MPI.COMM_WORLD.allreduce(buf.pending)
        assert kept_everywhere > 0
        assert len(m) + kept_everywhere == n * P, (len(m), kept_everywhere)
        """, nprocs=nprocs, timeout=120,
        env=job_env(PYBCL_SEGMENT_SIZE="2M"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert out.count("segment full on rank") == nprocs, out


def _sampled_keys(count):
    """`count` uint64 keys the grow sketch samples (bcl_hashmap_sketch.c: the
    map's hash has bits 40-49 clear), to fool its estimate of new keys."""
    out, k = [], 1
    while len(out) < count:
        h = pybcl.hash64(np.uint64(k).tobytes())
        if (h >> 40) & 1023 == 0:
            out.append(k)
        k += 1
    return np.array(out, dtype=np.uint64)


def test_a_flush_the_sketch_underestimates_grows_again_until_all_fit():
    """The keys the sketch samples are all known to the map, the others all
    new: it estimates few new keys, the map it grows for them fills, and the
    same flush grows it again (in the C core: no Python frame in between)
    until every entry is in, at most half full."""
    P = pybcl.nprocs()
    # one rank searches (about 1024 hashes a key), the others get its keys
    known = pybcl.comm().bcast(_sampled_keys(128 * P) if pybcl.rank() == 0 else None)
    # new keys: about five times the known ones, so the map the sketch's
    # estimate sizes fills several times over
    new = np.arange(600 * P, dtype=np.uint64) + np.uint64(1 << 40)     # none of `known`
    m = pybcl.HashMap(8 * P, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(m, 1 << 12, 256, grow=True)
    assert type(buf).flush is pybcl._core.HashMapBuffer.flush
    mine = slice(pybcl.rank(), None, P)
    buf.insert_many(known[mine], 1)
    buf.flush()
    before = m.capacity
    buf.insert_many(known[mine], 2)
    buf.insert_many(new[mine], 3)
    buf.flush()
    n = len(known) + len(new)
    assert len(m) == n and m.capacity >= 2 * n > before
    vals, found = m.find_many(new[mine])
    assert all_ok(bool(found.all()) and bool((vals == 3).all()) and buf.pending == 0)
