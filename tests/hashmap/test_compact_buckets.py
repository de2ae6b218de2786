"""The compact bucket layout (maps of fixed keys of at most 8 bytes): its
bucket size, keys equal to its reserved key words (which live in a side
map), and every rank hammering the same keys -- accumulates that must not be
lost, inserts / erases / finds / modifies racing on the same buckets, and
find-only lookups between insert phases as the table fills past half.

Each test sizes itself by P = pybcl.nprocs(): the ranks share the same hot
keys, and every rank's own work is bounded (a rank reads back all keys, a
few hundred); outcomes are agreed with all_ok() before asserting.
"""
import gc

import numpy as np
import pytest

import pybcl
from pybcl import _core

from conftest import all_ok
from races import write_logged, writer_log_ok

EMPTY, TOMB, BUSY = _core._HASHMAP_RESERVED_WORDS


def rp():
    return pybcl.rank(), pybcl.nprocs()


def special_keys(key_type):
    """The keys whose word is reserved, in the map's key type."""
    if key_type == "int32":
        return np.array([0], dtype=np.int32)          # TOMB, BUSY have no zero byte
    return np.array([EMPTY, TOMB, BUSY], dtype=np.uint64).view(key_type)


def hot_keys(key_type, n=6):
    """The reserved keys and a few ordinary ones, all shared by every rank."""
    ordinary = np.arange(1, n + 1, dtype=np.int64) * 977
    return np.concatenate([special_keys(key_type), ordinary.astype(key_type)])


def gather(obj):
    return pybcl.comm().allgather(obj)


# ---- layout -------------------------------------------------------------------------


@pytest.mark.mpi
def test_a_uint64_counter_bucket_is_16_bytes():
    """A uint64 -> int64 bucket is the key word and the value: a map of n
    buckets takes about 16 n bytes of a rank's segment (24 n in the classic
    layout with its status word)."""
    P = pybcl.nprocs()
    # Containers that earlier tests dropped are freed at the next collective
    # agreement (a constructor's): let a small map's construction free them,
    # with the cyclic collector run first and then held off, so that none is
    # freed inside the measurement.
    gc.collect()
    gc.disable()
    try:
        pybcl.HashMap(16 * P, "uint64", "int64").close()
        before = _core.bytes_in_use()
        m = pybcl.HashMap(1 << 16, "uint64", "int64")
        used = _core.bytes_in_use() - before
    finally:
        gc.enable()
    block = m.capacity // P
    ok = 16 * block <= used < 17 * block
    m.close()
    assert all_ok(ok)


# ---- keys equal to a reserved word --------------------------------------------------


@pytest.mark.mpi
@pytest.mark.parametrize("key_type", ["uint64", "int64", "int32"])
def test_keys_equal_to_reserved_words_are_ordinary_keys(key_type):
    """Every operation treats a key whose bytes equal a reserved word like any
    other key, from every rank: scalar, batch, find-only, collective find,
    buffered, modify, erase, resize, the local views and the count."""
    r, P = rp()
    sp = special_keys(key_type)
    m = pybcl.HashMap(64 * P, key_type, "int64")
    other = np.arange(1, 40, dtype=np.int64).astype(key_type)   # company in the table
    if r == 0:
        for i, k in enumerate(sp):
            m.insert(k, 100 + i)
        m.insert_many(other, other.astype(np.int64))
    pybcl.barrier()
    ok = all(m.find(k) == 100 + i and k in m and m[k] == 100 + i for i, k in enumerate(sp))
    ok &= all(m.find(k, promise=pybcl.ConProm.HashMap.find) == 100 + i
              for i, k in enumerate(sp))
    for kw in ({}, {"promise": pybcl.ConProm.HashMap.find},
               {"promise": pybcl.ConProm.HashMap.find, "collective": True}):
        vals, f = m.find_many(np.concatenate([sp, other]), **kw)
        ok &= bool(f.all()) and vals[:len(sp)].tolist() == list(range(100, 100 + len(sp)))
    pybcl.barrier()
    m.accumulate_many(sp, 1)                   # every rank, the same keys
    for k in sp:
        m.accumulate(k, 2)
    m.modify(sp[0], lambda v: v + 1000)
    pybcl.barrier()
    vals, f = m.find_many(sp)
    want = np.arange(100, 100 + len(sp)) + 3 * P
    want[0] += 1000 * P
    ok &= bool(f.all()) and bool((vals == want).all())
    with pybcl.HashMapBuffer(m, 64, 8) as buf:
        buf.accumulate_many(sp, 1)
    m.resize(128 * P)
    vals, f = m.find_many(sp)
    ok &= bool(f.all()) and bool((vals == want + P).all())
    keys = [k for share in gather([int(k) for k, _ in m.local_items()]) for k in share]
    ks, _ = m.local_arrays()
    ok &= sorted(keys) == sorted(int(k) for k in np.concatenate([sp, other]))
    ok &= len(m) == len(sp) + len(other) and len(keys) == len(set(keys))
    ok &= sum(gather(len(ks))) == len(keys)
    pybcl.barrier()
    if r == P - 1:
        ok &= all(m.erase(k) for k in sp) and not any(k in m for k in sp)
        ok &= not bool(m.erase_many(sp).any())
    pybcl.barrier()
    ok &= not bool(m.find_many(sp)[1].any()) and len(m) == len(other)
    assert all_ok(ok)


# ---- every rank on the same keys ----------------------------------------------------


@pytest.mark.mpi
@pytest.mark.parametrize("path", ["scalar", "batch", "buffer", "modify"])
@pytest.mark.parametrize("key_type", ["uint64", "int32"])
def test_no_accumulate_is_lost_on_shared_keys(path, key_type):
    """All ranks add to the same keys (reserved words included) at once,
    each in its own order, in a table dense enough that probe sequences pass
    the hot buckets: every key ends at exactly P x the adds of one rank."""
    r, P = rp()
    keys = hot_keys(key_type, 3)
    m = pybcl.HashMap(4 * len(keys) * P, key_type, "int64")
    fill = (np.arange(len(keys) * P, dtype=np.int64) + 5000).astype(key_type)
    m.insert_many(fill[r::P], np.zeros(len(fill[r::P]), dtype=np.int64))
    pybcl.barrier()
    rounds = {"buffer": 40, "batch": 200}.get(path, 500)   # enough to lose adds unlocked
    rng = np.random.default_rng(r)
    for _ in range(rounds):
        order = keys[rng.permutation(len(keys))]
        if path == "scalar":
            for k in order:
                m.accumulate(k, 1)
        elif path == "batch":
            m.accumulate_many(np.concatenate([order, order[:2]]),
                              np.array([1] * len(order) + [0, 0], dtype=np.int64))
        elif path == "modify":
            for k in order:
                m.modify(k, lambda v: 1 if v is None else v + 1)
        else:
            with pybcl.HashMapBuffer(m, 16, 4) as buf:
                buf.accumulate_many(order, 1)
    pybcl.barrier()
    vals, f = m.find_many(keys)
    ok = bool(f.all()) and bool((vals == rounds * P).all())
    assert all_ok(ok)


@pytest.mark.mpi
@pytest.mark.parametrize("key_type", ["uint64", "int64"])
def test_race_insert_erase_find_on_shared_keys(key_type):
    """Every rank inserts (scalar and batch), erases (scalar and batch),
    finds (atomic, batch, find-only batch on a separate phase) and modifies
    the same keys, reserved words among them, in a dense table whose
    tombstones are reused.  Values name their writer (key index, rank,
    sequence).  Invariants: a find sees only a value written for that key;
    a key's final value was written by a rank that neither wrote nor erased
    it afterwards; erases succeed at most once per write; no key is stored
    twice."""
    r, P = rp()
    keys = hot_keys(key_type, 5)
    m = pybcl.HashMap(3 * len(keys) * P, key_type, "int64")
    rng = np.random.default_rng(31 + r)
    log = [[] for _ in keys]                  # ("w", value) / ("e", found)
    seen, seq = [], 0

    def val(i):
        return i * 10**6 + r * 10**4 + seq

    for step in range(240):
        i = int(rng.integers(len(keys)))
        k, c = keys[i], rng.random()
        seq += 1
        if c < 0.4:
            how = "insert" if c < 0.2 else "insert_many" if c < 0.3 else "modify"
            write_logged(m, k, val(i), how, log[i])
        elif c < 0.55:
            log[i].append(("e", m.erase(k)))
        elif c < 0.65:
            log[i].append(("e", bool(m.erase_many(np.array([k]))[0])))
        elif c < 0.8:
            v = m.get(k)
            seen.append((i, None if v is None else int(v)))
        else:
            vals, f = m.find_many(keys)
            seen.extend((j, int(vals[j]) if f[j] else None) for j in range(len(keys)))
    pybcl.barrier()
    # a find-only phase: nobody writes now
    vals, f = m.find_many(keys, promise=pybcl.ConProm.HashMap.find)
    final = [int(vals[j]) if f[j] else None for j in range(len(keys))]
    ok = all(m.find(k, promise=pybcl.ConProm.HashMap.find) == final[j]
             for j, k in enumerate(keys))
    ok &= writer_log_ok(range(len(keys)), gather(log), gather(seen), final)
    stored = [k for share in gather([int(k) for k, _ in m.local_items()]) for k in share]
    ok &= len(stored) == len(set(stored)) == len(m)
    ok &= sorted(stored) == sorted(int(keys[j]) for j in range(len(keys)) if final[j] is not None)
    assert all_ok(ok)


@pytest.mark.mpi
def test_find_only_lookups_between_insert_phases():
    """Insert phases fill the table to 20, 40, 60 and 80 %; after each, every
    rank looks every key up under the find-only promise (scalar, batch,
    collective) and atomically: no key inserted so far is missed, none of a
    later phase is found, every value is right."""
    r, P = rp()
    per_phase = 40                            # keys per rank and phase
    m = pybcl.HashMap(5 * per_phase * P, "uint64", "int64")
    n_slots = m.capacity
    phases = 4
    all_keys = []
    ok = True
    F = pybcl.ConProm.HashMap.find
    for ph in range(phases):
        want = n_slots * (ph + 1) // 5 - len(all_keys)     # this phase's keys, all ranks
        mine = np.arange(r, want, P, dtype=np.uint64) + np.uint64(ph * 10**6 + 1)
        if ph % 2:
            m.insert_many(mine, mine.astype(np.int64) * 3)
        else:
            for k in mine:
                m.insert(k, int(k) * 3)
        pybcl.barrier()
        all_keys.extend(k for share in gather(mine.tolist()) for k in share)
        keys = np.array(all_keys, dtype=np.uint64)
        later = keys + np.uint64(10**6)
        later = later[~np.isin(later, keys)]
        for kw in ({"promise": F}, {"promise": F, "collective": True}, {}):
            vals, f = m.find_many(keys, **kw)
            ok &= bool(f.all()) and bool((vals == keys.astype(np.int64) * 3).all())
            ok &= not bool(m.find_many(later, **kw)[1].any())
        sample = keys[r::max(1, len(keys) // 16)]
        ok &= all(m.find(k, promise=F) == int(k) * 3 for k in sample)
        pybcl.barrier()
    ok &= len(m) == len(all_keys)
    assert all_ok(ok)


# ---- values read in place -----------------------------------------------------------


@pytest.mark.mpi
def test_local_histogram_and_select_read_the_block_in_place():
    r, P = rp()
    m = pybcl.HashMap(256 * P, "uint64", "int64")
    keys = np.concatenate([special_keys("uint64"), np.arange(1, 120, dtype=np.uint64)])
    m.accumulate_many(keys, (keys % np.uint64(7)).astype(np.int64) + 1)
    m.erase_many(keys[5::9])                          # tombstones are no entries
    pybcl.barrier()
    if r == 0:
        m.accumulate(keys[4], 5000)                   # past the first guess of a length
    pybcl.barrier()
    ks, vs = m.local_arrays()
    h = m.local_histogram()
    ok = np.array_equal(h, np.bincount(vs)) if len(vs) else len(h) == 0
    ok &= np.array_equal(m.local_histogram(every=1), h)
    sample = m.local_histogram(every=3)                # a third of the buckets
    ok &= len(sample) <= len(h) and bool((sample <= h[:len(sample)]).all())
    sk, sv = m.local_select(3 * P)
    pick = vs >= 3 * P
    ok &= sorted(zip(sk.tolist(), sv.tolist())) == sorted(zip(ks[pick].tolist(),
                                                              vs[pick].tolist()))
    total = sum(gather(int(h.sum())))
    ok &= total == len(m)
    assert all_ok(ok)


def test_local_histogram_refuses_what_it_cannot_count():
    m = pybcl.HashMap(16 * pybcl.nprocs(), "uint64", "int64", )
    f = pybcl.HashMap(16 * pybcl.nprocs(), "uint64", "float64")
    if m.owner(5) == pybcl.rank():
        m.insert(5, -1)
    try:
        with pytest.raises(TypeError, match="integer"):
            f.local_histogram()
        with pytest.raises(TypeError, match="integer"):
            f.local_select(1)
        with pytest.raises(ValueError, match="every"):
            m.local_histogram(every=0)
        if m.owner(5) == pybcl.rank():
            with pytest.raises(ValueError, match="negative"):
                m.local_histogram()
        assert m.local_select(-1)[0].tolist() == ([5] if m.owner(5) == pybcl.rank() else [])
    finally:
        pybcl.barrier()
