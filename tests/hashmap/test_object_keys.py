"""Object keys follow Python's == where msgpack allows:
1, True and 1.0 are one key; a list key is refused as unhashable (it would
pack like the tuple); a stored value that could not be read back is refused
at insert.  docs/api.md "Key equality".
"""
import numpy as np
import pytest

import pybcl

from conftest import all_ok


@pytest.mark.mpi
def test_equal_numbers_are_one_key_on_every_rank():
    r, p = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(64 * p, key_type=object, value_type="int64")
    # every rank writes an equal spelling of the same few keys
    spell = [(1, True, 1.0, np.int8(1), np.float64(1.0), np.bool_(True)),
             (0, False, 0.0, -0.0, np.uint64(0), np.bool_(False)),
             ((1, 2), (1.0, 2), (True, 2.0), (np.int64(1), 2)),
             (2**63, float(2**63))]
    for group in spell:
        m.insert(group[r % len(group)], r)
    pybcl.barrier()
    ok = True
    for group in spell:
        got = [m.find(k, default=-1) for k in group]
        ok &= len(set(got)) == 1 and got[0] in range(p)
    ok &= m.size() == len(spell)
    assert all_ok(ok)
    items = dict(m.local_items())
    assert all_ok(all(isinstance(k, (int, tuple)) for k in items))   # tuples stay tuples


def test_unhashable_keys_raise_type_error():
    m = pybcl.HashMap(100, key_type=object, value_type="int64")
    for bad in ([1, 2], {"a": 1}, (1, [2]), bytearray(b"x")):
        with pytest.raises(TypeError, match="unhashable"):
            m.insert(bad, 1)
        with pytest.raises(TypeError, match="unhashable"):
            m.find(bad)
    with pytest.raises(TypeError, match="unhashable"):
        m.insert_many([[1, 2]], [1])
    b = pybcl.BloomFilter(100, key_type=object)
    with pytest.raises(TypeError, match="unhashable"):
        b.insert([1, 2])
    k = 1000 + pybcl.rank()
    assert b.insert(k) is False and b.find(float(k)) and b.find(np.float32(k))
    pybcl.barrier()


def test_distinct_keys_stay_distinct():
    m = pybcl.HashMap(100, key_type=object, value_type=object)
    keys = [1, 1.5, "1", b"1", None, (1,), ((1,),), float("inf"), 2**64 - 1, -2**63]
    if pybcl.rank() == 0:
        for i, k in enumerate(keys):
            m.insert(k, i)
    pybcl.barrier()
    assert all_ok([m.find(k) for k in keys] == list(range(len(keys))))
    got = pybcl.allreduce(np.array([len(m.local_items())]))
    assert all_ok(int(got[0]) == len(keys))


def test_values_that_cannot_round_trip_are_refused_at_insert():
    m = pybcl.HashMap(100, key_type=str, value_type=object)
    with pytest.raises(TypeError, match="value"):
        m.insert("a", {(1, 2): 3})
    with pytest.raises(TypeError, match="value"):
        m.insert("a", [{"ok": {(1,): 0}}])
    assert "a" not in m
    m.insert("b%d" % pybcl.rank(), {1: (1, 2), "x": [None, b"y"], 2.5: {None: True}})
    assert m["b%d" % pybcl.rank()] == {1: [1, 2], "x": [None, b"y"], 2.5: {None: True}}
    q = pybcl.CircularQueue(pybcl.nprocs() - 1, 4, dtype=object)
    with pytest.raises(TypeError, match="value"):
        q.push({(1, 2): 3})
    pybcl.barrier()
    # pybcl.packb itself stays msgpack.packb's exact twin
    assert pybcl.packb({(1, 2): 3}) == b"\x81\x92\x01\x02\x03"
    assert pybcl.packb(True) == b"\xc3" and pybcl.packb(1.0) == b"\xcb?\xf0\x00\x00\x00\x00\x00\x00"
