"""c.save(path) / pybcl.load(path) in one job: every container kind and
element type comes back with the same contents, kind, types and sizes;
pybcl.io.read and pybcl.io.info read the same files in this process; bad
arguments raise on every rank.  (Loads at other rank counts:
test_load_at_other_rank_counts.py.)"""
import os

import numpy as np
import pytest

import pybcl
from conftest import all_ok

import saved_contents


@pytest.fixture
def shared_dir(tmp_path):
    """A folder every rank names alike (rank 0's tmp_path)."""
    return pybcl.broadcast(str(tmp_path) if pybcl.rank() == 0 else None)


def _sizes(c):
    """What a container's kind and sizes are, as a comparable tuple."""
    out = [type(c).__name__]
    for attr in ("capacity", "key_type", "value_type", "dtype", "host", "nwords", "k",
                 "expected_items", "fpr"):
        if hasattr(c, attr) and not (attr == "capacity" and isinstance(c, pybcl.HashMap)):
            out.append((attr, getattr(c, attr)))
    if isinstance(c, (pybcl.DArray, pybcl.Array)):
        out.append(("len", len(c)))
    return out


def test_every_container_and_type_comes_back_from_its_file(shared_dir):
    made = saved_contents.build()
    problems = []
    for name, c in made.items():
        path = os.path.join(shared_dir, name)
        c.save(path, meta={"name": name, "ranks": pybcl.nprocs()})
        loaded = pybcl.load(path)
        if _sizes(loaded) != _sizes(c):
            problems.append((name, _sizes(loaded), _sizes(c)))
        problem = saved_contents.check(name, loaded)
        if problem:
            problems.append(problem)
        if pybcl.rank() == 0:
            problem = saved_contents.check_read(name, pybcl.io.read(path))
            info = pybcl.io.info(path)
            if problem or info["meta"] != {"name": name, "ranks": pybcl.nprocs()}:
                problems.append((problem, info))
        loaded.close()
        c.close()
    assert all_ok(not problems), problems


def test_info_says_what_the_file_holds(shared_dir):
    P = pybcl.nprocs()
    m = pybcl.HashMap(64 * P, key_type="uint64", value_type=str)
    m.insert(pybcl.rank(), "x" * pybcl.rank())
    a = pybcl.DArray(10 * P + 1, dtype="float32")
    pybcl.barrier()
    m.save(os.path.join(shared_dir, "m.pybcl"), meta={"k": 31, "tags": ["a", None]})
    a.save(os.path.join(shared_dir, "a.pybcl"))
    mi = pybcl.io.info(os.path.join(shared_dir, "m.pybcl"))
    ai = pybcl.io.info(os.path.join(shared_dir, "a.pybcl"))
    ok = (mi["kind"] == "HashMap" and mi["entries"] == P and mi["ranks"] == P and
          mi["key_type"] == np.dtype("uint64") and mi["value_type"] is str and
          mi["meta"] == {"k": 31, "tags": ["a", None]} and mi["capacity"] == m.capacity and
          mi["version"] == pybcl.__version__ and mi["format_version"] == 1)
    ok = ok and (ai["kind"] == "DArray" and ai["entries"] == ai["size"] == 10 * P + 1 and
                 ai["dtype"] == np.dtype("float32") and ai["meta"] is None)
    assert all_ok(ok), (mi, ai)


def test_a_later_save_replaces_the_file_whole(shared_dir):
    path = os.path.join(shared_dir, "a.pybcl")
    a = pybcl.DArray(1000 * pybcl.nprocs(), dtype="int64")
    for gen in range(3):
        a.local()[:] = gen
        pybcl.barrier()
        a.save(path, meta={"gen": gen})
    got = pybcl.load(path)
    ok = bool((np.asarray(got) == 2).all()) and pybcl.io.info(path)["meta"] == {"gen": 2}
    leftovers = [f for f in os.listdir(shared_dir) if f != "a.pybcl"]
    assert all_ok(ok and not leftovers), leftovers


def test_a_map_loaded_keeps_growing_and_finding(shared_dir):
    """A loaded map is an ordinary map: inserts, accumulates, resize, erase."""
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(100 * P, key_type="int64", value_type="int64")
    m.insert_many(np.arange(me, 40 * P, P), np.ones(40, dtype=np.int64))
    pybcl.barrier()
    m.save(os.path.join(shared_dir, "m"))
    n = pybcl.load(os.path.join(shared_dir, "m"))
    n.accumulate_many(np.arange(40 * P), np.ones(40 * P, dtype=np.int64))
    pybcl.barrier()
    n.resize(8 * n.capacity)
    n.erase(me)
    pybcl.barrier()
    vals, found = n.find_many(np.arange(40 * P))
    ok = int(found.sum()) == 39 * P and bool((vals[found] == 1 + P).all())
    assert all_ok(ok), (vals, found)


def test_bad_arguments_raise_on_every_rank(shared_dir):
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(16 * P, key_type="int64", value_type=object)
    path = os.path.join(shared_dir, "m")
    failures = []

    def expect(exc, words, fn, *args, **kw):
        try:
            fn(*args, **kw)
            failures.append(("no error", args, kw))
        except exc as e:
            if words not in str(e):
                failures.append((str(e), words))

    expect(TypeError, "meta", m.save, path, meta=[1])
    expect(TypeError, "meta", m.save, path, meta={"x": object()})
    expect(TypeError, "GlobalPtr", m.save, path, meta={"p": pybcl.NULL})
    expect(TypeError, "path", m.save, 42)
    expect(FileNotFoundError, "no such directory", m.save, os.path.join(shared_dir, "no", "m"))
    expect(IsADirectoryError, shared_dir, m.save, shared_dir)
    if P > 1:
        expect(ValueError, "path", m.save, path + str(me))
        expect(ValueError, "meta", m.save, path, meta={"rank": me})
        expect(ValueError, "path", pybcl.load, path + str(me))
    m[me] = [pybcl.alloc(1)] if me == P - 1 else [me]
    pybcl.barrier()
    expect(TypeError, "GlobalPtr", m.save, path)
    m.close()
    expect(ValueError, "closed", m.save, path)
    q = pybcl.FastQueue(0, 4, dtype=object)
    if me == 0:
        q.push(pybcl.NULL)
    pybcl.barrier()
    expect(TypeError, "GlobalPtr", q.save, path)
    pybcl.barrier()
    assert all_ok(not failures and not os.listdir(shared_dir)), failures
