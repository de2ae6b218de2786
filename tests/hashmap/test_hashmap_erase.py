"""HashMap deletion and the mapping protocol.

erase / del m[k] / erase_many, tombstone reuse (scalar, batch, buffer and
resize paths), reclamation of out-of-line keys and values, the collective
len/iter/items views, and erase racing insert / find / accumulate / modify
on the same keys from every rank (invariants in test_race_*).

Every multi-rank test agrees on its outcome with all_ok() before asserting.
"""
import collections.abc as abc
import inspect

import numpy as np
import pytest

import pybcl

from conftest import all_ok
from races import write_logged, writer_log_ok


def rp():
    return pybcl.rank(), pybcl.nprocs()


# ---- semantics --------------------------------------------------------------------


@pytest.mark.mpi
def test_erase_del_semantics():
    r, p = rp()
    m = pybcl.HashMap(64 * p)
    mine = [i * p + r for i in range(20)]
    for k in mine:
        m[k] = 10 * k
    pybcl.barrier()
    ok = len(m) == 20 * p and m.size() == 20 * p
    pybcl.barrier()
    ok &= all(m.erase(k) is True for k in mine[:10])
    ok &= all(m.erase(k) is False for k in mine[:10])      # gone already
    ok &= m.erase(10**9) is False                           # never stored
    for k in mine[10:15]:
        del m[k]
    try:
        del m[mine[0]]
        ok = False
    except KeyError:
        pass
    pybcl.barrier()
    everyone = [i * p + q for q in range(p) for i in range(20)]
    for k in everyone:
        live = (k // p) >= 15
        ok &= (k in m) == live and m.get(k) == (10 * k if live else None)
    ok &= len(m) == 5 * p
    pybcl.barrier()
    # erased keys come back with a new value
    for k in mine[:5]:
        m.insert(k, -k)
    pybcl.barrier()
    ok &= all(m[i * p + q] == -(i * p + q) for q in range(p) for i in range(5))
    ok &= len(m) == 10 * p
    assert all_ok(ok)


@pytest.mark.mpi
def test_erase_many_masks():
    r, p = rp()
    m = pybcl.HashMap(100 * p)
    keys = np.arange(50 * p, dtype=np.int64)
    if r == 0:
        m.insert_many(keys, keys * 2)
    pybcl.barrier()
    # each rank erases its own residue class, plus absent keys, plus a repeat
    mine = keys[keys % p == r]
    probe = np.concatenate([mine, mine[:3], np.array([-1, -2], dtype=np.int64)])
    found = m.erase_many(probe)
    ok = found.dtype == np.bool_ and found.shape == probe.shape
    ok &= bool(found[:len(mine)].all()) and not bool(found[len(mine):].any())
    ok &= m.erase_many(np.array([], dtype=np.int64)).shape == (0,)
    pybcl.barrier()
    vals, f = m.find_many(keys)
    ok &= not bool(f.any()) and len(m) == 0
    assert all_ok(ok)


@pytest.mark.mpi
def test_erase_many_variable_keys_and_errors():
    r, p = rp()
    m = pybcl.HashMap(64 * p, key_type=str, value_type=object)
    km = {i: "k%d-%d" % (r, i) for i in range(10)}        # this rank's keys
    for i in range(10):
        m[km[i]] = [i] * i
    ok = m.erase_many([km[1], km[2], "zz", km[1]]).tolist() == [True, True, False, False]
    ok &= m.erase(km[3]) and km[3] not in m and m[km[4]] == [4] * 4
    ints = pybcl.HashMap(8 * p)                            # collective
    for bad in (lambda: m.erase(5),                        # not a str key
                lambda: m.erase_many(5)):                  # not a sequence
        try:
            bad()
            ok = False
        except TypeError:
            pass
    try:                          # not 1-d: the keys conversion of find_many
        ints.erase_many([[1, 2]])
        ok = False
    except (TypeError, ValueError) as e:
        ok &= "keys" in str(e)
    del m[km[4]]
    try:
        del m[km[4]]
        ok = False
    except KeyError:
        pass
    assert all_ok(ok)


def test_method_signatures_and_docs():
    for name in ("erase", "erase_many"):
        f = getattr(pybcl.HashMap, name)
        assert "key" in str(inspect.signature(f)) and f.__doc__
    for name in ("items", "keys", "values", "__iter__"):
        assert "ollective" in getattr(pybcl.HashMap, name).__doc__


# ---- tombstones ---------------------------------------------------------------------


@pytest.mark.mpi
def test_finds_pass_tombstones():
    """Keys stored after (along their probe sequence) an erased key are still
    found by every find path; erased keys are missed by every path."""
    r, p = rp()
    m = pybcl.HashMap(40 * p)                  # dense: long probe sequences
    keys = np.arange(18 * p, dtype=np.int64)
    if r == 0:
        for k in keys:
            m[int(k)] = int(k) + 1
    pybcl.barrier()
    gone = keys[(keys % 3 == 0) & (keys % p == r)]
    ok = bool(m.erase_many(gone).all())
    pybcl.barrier()
    live = keys % 3 != 0
    for promise in (None, pybcl.ConProm.HashMap.find):
        vals, f = m.find_many(keys, promise=promise)
        ok &= bool((f == live).all()) and bool((vals[live] == keys[live] + 1).all())
        ok &= all(m.find(int(k), promise=promise) == (int(k) + 1 if lv else None)
                  for k, lv in zip(keys, live))
    assert all_ok(ok)


@pytest.mark.mpi
@pytest.mark.parametrize("path", ["scalar", "batch", "accumulate", "buffer"])
def test_tombstones_are_reused(path):
    """Insert and erase many more distinct keys than the table has buckets:
    without reuse the table would be full after the first rounds.  All ranks
    together insert 2x (buffer: 1x) the buckets, as at one rank; each
    rank's share shrinks with P, so the work stays bounded (at P ranks
    every rank inserting 2x the buckets itself was 2P x the buckets, 3
    minutes at 16 ranks on rma here), while every round still has all
    ranks inserting, finding and erasing in the same buckets."""
    r, p = rp()
    cap = 16 * p
    m = pybcl.HashMap(cap)
    ok, per_round = True, 4
    try:
        buckets = m.capacity
        rounds = -(-(1 if path == "buffer" else 2) * buckets // (per_round * p))
        for rnd in range(rounds):                   # rounds * 4 * P keys in all
            ks = np.array([(rnd * per_round + j) * p + r for j in range(per_round)],
                          dtype=np.int64)
            if path == "scalar":
                for k in ks:
                    m.insert(int(k), int(k))
            elif path == "batch":
                m.insert_many(ks, ks)
            elif path == "accumulate":
                m.accumulate_many(ks, ks)
            if path == "buffer":            # collective flush: same rounds everywhere
                with pybcl.HashMapBuffer(m, 64, 4) as buf:
                    buf.insert_many(ks, ks)
            vals, f = m.find_many(ks)
            ok &= bool(f.all()) and bool((vals == ks).all())
            ok &= bool(m.erase_many(ks).all())
    except pybcl.ContainerFull:
        ok = False
    pybcl.barrier()
    ok &= len(m) == 0 and m.local_items() == []
    assert all_ok(ok)


@pytest.mark.mpi
def test_resize_drops_tombstones():
    r, p = rp()
    m = pybcl.HashMap(30 * p, key_type=str, value_type=bytes)
    for i in range(10):
        m["%d-%d" % (r, i)] = b"v" * (i + 1)
    pybcl.barrier()
    for i in range(0, 10, 2):
        m.erase("%d-%d" % (r, i))
    m.resize(50 * p)
    ok = m.capacity >= 50 * p and len(m) == 5 * p
    for q in range(p):
        for i in range(10):
            ok &= m.get("%d-%d" % (q, i)) == (b"v" * (i + 1) if i % 2 else None)
    assert all_ok(ok)


# ---- reclamation ---------------------------------------------------------------------


@pytest.mark.mpi
@pytest.mark.parametrize("what", ["value", "key"])
def test_erase_reclaims_out_of_line_storage(what):
    """Insert/erase of large objects far beyond the segment's free room: erased
    keys and values are freed, also when another rank erases them
    (remote-free stacks), so the segment never fills."""
    r, p = rp()
    hold, room = _hold_most_of_the_segment()
    m = pybcl.HashMap(64, key_type=bytes, value_type=bytes)
    n, written, i, ok = 400_000, 0, 0, True
    try:
        while written < room + room // 4 + 4 * n:    # more than fits at once
            big = bytes([i % 251]) * n
            if what == "value":
                m[b"k%d" % r] = big                 # stored in our segment
                m.erase(b"k%d" % ((r + 1) % p))     # maybe the next rank's
            else:
                m[big + b"%d" % r] = b"x"
                ok &= m.erase(big + b"%d" % r)
            written += n
            i += 1
    except pybcl.SegmentFull:
        ok = False
    pybcl.barrier()
    if hold is not None:
        pybcl.free(hold)
    assert all_ok(ok)


def _hold_most_of_the_segment():
    """(block, room): allocate most of this rank's segment, so that writing
    past the room left costs little (over TCP the bytes dominate); room is an
    upper bound on the free bytes left.  (None, segment size) if no large
    block could be had."""
    seg = pybcl._core.segment_size()
    for frac in (0.9, 0.8, 0.6, 0.4):
        nbytes = int(seg * frac) // 8 * 8
        try:
            return pybcl.alloc(nbytes // 8, "int64"), seg - nbytes
        except pybcl.SegmentFull:
            continue
    return None, seg


# ---- the collective views ---------------------------------------------------------------


@pytest.mark.mpi
def test_len_iter_items_are_collective():
    r, p = rp()
    m = pybcl.HashMap(16 * p, key_type=str, value_type=object)
    m["r%d" % r] = [r]
    m["gone%d" % r] = None
    m.erase("gone%d" % r)
    items = m.items()                           # every rank: every rank's share
    expect = {"r%d" % q: [q] for q in range(p)}
    ok = dict(items) == expect and len(items) == p
    ok &= sorted(m.keys()) == sorted(expect) and sorted(m) == sorted(expect)
    ok &= sorted(v[0] for v in m.values()) == list(range(p))
    ok &= len(m) == p and dict(m) == expect
    ok &= isinstance(m, abc.Container) and not isinstance(m, abc.Mapping)
    assert all_ok(ok)


# ---- races -------------------------------------------------------------------------


def _gather(obj):
    return pybcl.comm().allgather(obj)


def _outcome(m, keys, log, seen):
    """After a race: the keys' final values and every rank's log and sightings."""
    pybcl.barrier()
    final = {k: m.get(k) for k in keys}
    return final, _gather(log), _gather(seen)


@pytest.mark.mpi
def test_race_erase_accumulate_find():
    """Every rank accumulates, finds and erases the same few keys.  Each
    accumulate adds a distinct bit, so a value is the set of accumulates of
    the key's current epoch.  Invariants: no find (nor the final state)
    shows a bit never added; a bit added by a rank before that rank's own
    successful erase of the key is gone at the end; erase succeeds at most
    once per epoch (successes <= accumulates)."""
    r, p = rp()
    per = 64 // p                            # bits per rank and key
    keys = [3, 11, 19, 27]
    m = pybcl.HashMap(8 * p, value_type="uint64")
    rng = np.random.default_rng(100 + r)
    log = {k: [] for k in keys}                  # ("a", bit) / ("e", found)
    used = {k: 0 for k in keys}
    seen = []
    for step in range(40 * per):
        k = keys[int(rng.integers(len(keys)))]
        c = rng.random()
        if c < 0.4 and used[k] < per:
            bit = r * per + used[k]
            used[k] += 1
            if rng.random() < 0.5:
                m.accumulate(k, np.uint64(1) << np.uint64(bit))
            else:
                m.accumulate_many(np.array([k]), np.array([1 << bit], dtype=np.uint64))
            log[k].append(("a", bit))
        elif c < 0.7:
            log[k].append(("e", m.erase(k)))
        else:
            v = m.find(k)
            if rng.random() < 0.5:
                vals, f = m.find_many(np.array([k]))
                seen.append((k, int(vals[0]) if f[0] else None))
            seen.append((k, None if v is None else int(v)))
    final, logs, seen_all = _outcome(m, keys, log, seen)
    ok = True
    for k in keys:
        added = {b for lg in logs for op, b in lg[k] if op == "a"}
        mask = sum(1 << b for b in added)
        fv = 0 if final[k] is None else int(final[k])
        ok &= fv & ~mask == 0
        for lg in logs:
            last_erase = max((i for i, (op, f) in enumerate(lg[k]) if op == "e" and f),
                             default=-1)
            before = [b for op, b in lg[k][:last_erase] if op == "a"]
            ok &= all(not (fv >> b) & 1 for b in before)
        n_erased = sum(1 for lg in logs for op, f in lg[k] if op == "e" and f)
        ok &= n_erased <= len(added) and (fv != 0 or final[k] is None)
        ok &= all(v is None or (v & ~mask == 0 and v != 0)
                  for s in seen_all for kk, v in s if kk == k)
    items = _gather([int(k) for k, _ in m.local_items()])
    flat = [k for share in items for k in share]
    ok &= len(flat) == len(set(flat)) == len(m)
    assert all_ok(ok)


@pytest.mark.mpi
@pytest.mark.parametrize("value_type", ["int64", "object"])
def test_race_erase_insert_find_modify(value_type):
    """Every rank inserts (scalar and batch), modifies, finds and erases the
    same few keys, whose values name their writer (key, rank, sequence).
    Invariants: a find returns only values some rank wrote for that key; the
    final value of a key, if any, was written by a rank that neither wrote
    nor successfully erased that key afterwards; erase succeeds at most once
    per insert; no key is stored twice (tombstone reuse made no duplicate)."""
    r, p = rp()
    keys = [5, 13, 21, 29, 37, 45]
    m = pybcl.HashMap(12 * p, value_type=value_type)
    rng = np.random.default_rng(7 + r)
    log = {k: [] for k in keys}                   # ("w", value) / ("e", found)
    seen, seq = [], 0

    def val(k):
        return k * 10**6 + r * 10**4 + seq

    for step in range(400):
        k = keys[int(rng.integers(len(keys)))]
        c = rng.random()
        seq += 1
        if c < 0.25:
            write_logged(m, k, val(k), "insert", log[k])
        elif c < 0.35 and value_type == "int64":
            write_logged(m, k, val(k), "insert_many", log[k])
        elif c < 0.45:
            write_logged(m, k, val(k), "modify", log[k])
        elif c < 0.7:
            log[k].append(("e", m.erase(k)))
        else:
            v = m.get(k)
            seen.append((k, None if v is None else int(v)))
    final, logs, seen_all = _outcome(m, keys, log, seen)
    ok = writer_log_ok(keys, logs, seen_all, final)
    items = _gather([int(k) for k, _ in m.local_items()])
    flat = [k for share in items for k in share]
    ok &= len(flat) == len(set(flat)) == len(m)
    ok &= sorted(flat) == sorted(k for k in keys if final[k] is not None)
    assert all_ok(ok)


@pytest.mark.mpi
@pytest.mark.parametrize("op", ["insert_many", "accumulate_many"])
def test_batches_over_tombstones_with_refilled_slots(op, monkeypatch):
    """Batches larger than their slots (PYBCL_BATCH_CHUNK=64: slots are
    refilled with the next keys) over a table of tombstones: every key that
    met a tombstone and went to the scalar protocol is stored."""
    monkeypatch.setenv("PYBCL_BATCH_CHUNK", "64")
    r, p = rp()
    m = pybcl.HashMap(3000 * p)
    old = np.arange(1000, dtype=np.int64) * p + r
    m.insert_many(old, old)
    pybcl.barrier()
    ok = bool(m.erase_many(old).all())
    pybcl.barrier()
    new = np.arange(1000, dtype=np.int64) * p + r + 10**6
    vals = np.concatenate([new[500:], new[:500]])
    getattr(m, op)(np.concatenate([new, new[:200]]), np.concatenate([vals, vals[:200]]))
    pybcl.barrier()
    got, f = m.find_many(new)
    want = vals.copy()
    if op == "accumulate_many":
        want[:200] *= 2
    ok &= bool(f.all()) and bool((got == want).all()) and len(m) == 1000 * p
    assert all_ok(ok)


@pytest.mark.mpi
def test_modify_reentry_through_erase_and_tombstone_reuse():
    """modify() holds its bucket -- a stored entry, or a tombstone reserved
    for reuse -- while fn runs: erase of that key or a placement that would
    wait on the bucket raises RuntimeError instead of deadlocking, and the
    bucket is given back."""
    r, p = rp()
    m = pybcl.HashMap(64 * p)
    key = 1000 + r
    m.insert(key, 5)
    ok = True
    for fn in (lambda v: m.erase(key), lambda v: m.erase_many([key]),
               lambda v: m.__delitem__(key)):
        try:
            m.modify(key, fn)
            ok = False
        except RuntimeError:
            pass
    ok &= m.find(key) == 5
    ok &= m.erase(key)                      # key's bucket: now a tombstone
    try:                                    # modify reuses it (TOMB|BUSY held)
        m.modify(key, lambda v: m.insert(key, 1))
        ok = False
    except RuntimeError:
        pass
    ok &= m.find(key) is None
    ok &= m.modify(key, lambda v: 7 if v is None else -1) == 7 and m.find(key) == 7
    ok &= m.erase(key) and m.find(key) is None
    assert all_ok(ok)


@pytest.mark.mpi
def test_overflow_rule_over_tombstones():
    """Accumulates whose keys meet tombstones (placement lock, scalar
    protocol inside a batch) apply the overflow rule too: a sum that does not
    fit is not applied and is reported; the others are applied."""
    r, p = rp()
    cap = 32 * p
    m = pybcl.HashMap(cap)                  # int64 values
    hi = 2**63 - 10
    ks = np.arange(6, dtype=np.int64) * p + r
    junk = (np.arange(16, dtype=np.int64) + 100) * p + r
    m.insert_many(junk, junk)               # first: ks probe past them
    big, small = ks[::2], ks[1::2]
    m.accumulate_many(big, np.full(big.size, hi, dtype=np.int64))
    m.accumulate_many(small, np.ones(small.size, dtype=np.int64))
    ok = bool(m.erase_many(junk).all())     # tombstones on ks' probe paths
    try:
        m.accumulate_many(ks, np.full(ks.size, 20, dtype=np.int64))
        ok = False
    except OverflowError as e:
        ok &= "accumulate_many" in str(e) and ("%d of %d" % (big.size, ks.size)) in str(e)
    vals, f = m.find_many(ks)
    ok &= bool(f.all()) and bool((vals[::2] == hi).all()) and bool((vals[1::2] == 21).all())
    try:
        m.accumulate(int(big[0]), 20)
        ok = False
    except OverflowError:
        pass
    m.accumulate(int(big[0]), 9)
    ok &= m.find(int(big[0])) == hi + 9
    ok &= bool(m.erase_many(ks).all())
    m.accumulate(int(big[0]), 20)           # erased: fresh again, no overflow
    ok &= m.find(int(big[0])) == 20
    assert all_ok(ok)
