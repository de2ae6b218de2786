"""Keys, values and elements convert without loss or raise: Python's rules for scalars, NumPy's casting="safe" for arrays
(integers and S/U strings checked by value), the same in every container.
docs/api.md "Casting rules".
"""
import numpy as np
import pytest

import pybcl

from conftest import all_ok

I64MAX = 2**63 - 1


# ---- HashMap keys -----------------------------------------------------------


def test_float_keys_into_an_int_map_raise():
    m = pybcl.HashMap(100)
    for bad in (2.9, 2.0, np.float64(3.0), np.float32(1.5)):
        with pytest.raises(TypeError, match="key"):
            m.insert(bad, 1)
        with pytest.raises(TypeError, match="key"):
            m.find(bad)
    with pytest.raises(TypeError, match="keys"):
        m.find_many([1.5])
    with pytest.raises(TypeError, match="keys"):
        m.find_many(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="keys"):
        m.insert_many(np.array([2.9]), [1])
    m.insert(True, 7)                     # bool is an int (Python's rule)
    m.insert(np.int32(2), 8)
    assert m.find(1) == 7 and m.find(2) == 8
    assert m.find_many(np.array([1, 2], dtype=np.uint8))[0].tolist() == [7, 8]


def test_out_of_range_integers_raise_overflow():
    m = pybcl.HashMap(100)
    with pytest.raises(OverflowError, match="keys"):
        m.insert_many(np.array([2**64 - 1], dtype=np.uint64), [1])
    with pytest.raises(OverflowError, match="keys"):
        m.insert_many([2**63, -1], [1, 2])
    with pytest.raises(OverflowError, match="key"):
        m.insert(np.uint64(2**64 - 1), 1)
    with pytest.raises(OverflowError, match="values"):
        m.insert_many([1], np.array([2**64 - 1], dtype=np.uint64))
    m.insert_many(np.array([5, 6], dtype=np.uint64), [1, 2])   # fits: by value
    u = pybcl.HashMap(100, key_type="uint64", value_type="int32")
    with pytest.raises(OverflowError, match="key"):
        u.insert(-1, 0)
    with pytest.raises(OverflowError, match="keys"):
        u.insert_many(np.array([-1, 2]), [0, 0])
    with pytest.raises(OverflowError, match="value"):
        u.insert(1, 2**31)
    u.insert_many(np.arange(3), np.arange(3))                  # int64 -> uint64 by value
    assert u.find(2) == 2
    assert u.find(-1 + 1) == 0


def test_bytes_longer_than_the_dtype_raise():
    m = pybcl.HashMap(100, key_type="S8", value_type="S4")
    with pytest.raises(ValueError, match="key"):
        m.insert(b"ABCDEFGH_one", b"x")
    with pytest.raises(ValueError, match="keys"):
        m.insert_many([b"ABCDEFGH_one", b"ABCDEFGH_two"], [b"a", b"b"])
    with pytest.raises(ValueError, match="keys"):
        m.insert_many(np.array([b"ABCDEFGH_one"]), [b"a"])
    with pytest.raises(ValueError, match="value"):
        m.insert(b"ABCDEFGH", b"toolong")
    with pytest.raises(ValueError, match="values"):
        m.insert_many([b"k"], [b"toolong"])
    with pytest.raises(TypeError, match="key"):
        m.insert("text", b"x")            # str is not bytes
    m.insert(b"ABCDEFGH", b"four")
    m.insert_many(np.array([b"ab", b"cd"], dtype="S16"), [b"1", b"2"])  # fit by value
    assert m.find(b"ABCDEFGH") == b"four" and m.find(b"cd") == b"2"
    u = pybcl.HashMap(100, key_type="U3", value_type="int64")
    with pytest.raises(ValueError, match="key"):
        u.insert("abcd", 1)


def test_float_values():
    m = pybcl.HashMap(100, value_type="float32")
    with pytest.raises(OverflowError, match="value"):
        m.insert(1, 1e300)
    with pytest.raises(TypeError, match="values"):
        m.insert_many([1], np.array([0.1]))        # float64 -> float32 is not safe
    m.insert(1, 0.5)
    m.insert_many([2, 3], [1, 2])                  # Python ints: the scalar rule
    assert m.find(1) == 0.5 and m.find(3) == 2.0
    with pytest.raises(TypeError, match="value"):
        m.insert(4, "1.5")                         # no string parsing


# ---- accumulate ---------------------------------------------------------------


@pytest.mark.parametrize("vt", ["int64", "int32", "uint64", "uint32", "int16", "uint8"])
def test_accumulate_past_the_limit_raises_and_keeps_the_value(vt):
    hi = int(np.iinfo(vt).max)
    k = 10 * pybcl.rank()                 # every rank its own keys
    m = pybcl.HashMap(100, value_type=vt)
    m.insert(k + 1, hi)
    m.insert(k + 2, hi - 1)
    with pytest.raises(OverflowError, match="accumulate"):
        m.accumulate(k + 1, 1)
    assert m.find(k + 1) == hi
    with pytest.raises(OverflowError, match="accumulate_many"):
        m.accumulate_many([k + 1, k + 2], [1, 1])
    assert m.find(k + 1) == hi and m.find(k + 2) == hi      # key 2 was applied
    with pytest.raises(OverflowError, match="accumulate_many"):
        m.accumulate_many([k + 3, k + 3], [hi, 1])          # the batch's own sum
    with pytest.raises(OverflowError, match="delta"):
        m.accumulate(k + 1, hi + 1)                         # the delta itself
    if vt.startswith("int"):
        lo = int(np.iinfo(vt).min)
        m.insert(k + 4, lo)
        with pytest.raises(OverflowError, match="accumulate"):
            m.accumulate(k + 4, -1)
        assert m.find(k + 4) == lo
        m.accumulate(k + 4, hi)
        assert m.find(k + 4) == -1
    else:
        with pytest.raises(OverflowError, match="delta"):
            m.accumulate(k + 1, -1)
    pybcl.barrier()


def test_accumulate_near_the_limit_from_every_rank_is_exact():
    # Ranks hammer one key close to INT64_MAX: every add either lands or
    # raises, the total equals the landed adds, and nothing ever wraps.
    r, p = pybcl.rank(), pybcl.nprocs()
    for vt in ("int64", "int32"):
        hi = int(np.iinfo(vt).max)
        m = pybcl.HashMap(64 * p, value_type=vt)
        start = hi - 50 * p
        if r == 0:
            m.insert(9, start)
        pybcl.barrier()
        landed = 0
        for i in range(100):
            try:
                if i % 2:
                    m.accumulate(9, 1)
                else:
                    m.accumulate_many([9], [1])
                landed += 1
            except OverflowError:
                pass
        pybcl.barrier()
        total = int(pybcl.allreduce(landed))
        assert all_ok(m.find(9) == start + total and total == 50 * p), (m.find(9), total)


def test_big_deltas_and_far_values_take_the_exact_path():
    r, p = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(64 * p)
    pybcl.barrier()
    m.accumulate_many([r * 1000 + 1, 77], [2**61, 2**55])   # big deltas
    m.accumulate(77, -(2**55))
    pybcl.barrier()
    assert all_ok(m.find(77) == 0 and m.find(r * 1000 + 1) == 2**61)


# ---- messages that name the argument (item 14) --------------------------------


def test_accumulate_on_a_non_numeric_map_names_the_type():
    m = pybcl.HashMap(100, key_type=str, value_type=object)
    with pytest.raises(TypeError, match="value_type is 'object'") as e:
        m.accumulate("a", 1)
    assert "NULL" not in str(e.value)
    with pytest.raises(TypeError, match="accumulate_many.*'object'"):
        m.accumulate_many(["a"], [1])


def test_accumulate_many_none_names_deltas():
    m = pybcl.HashMap(100)
    with pytest.raises(TypeError, match="deltas"):
        m.accumulate_many([1, 2], None)
    with pytest.raises(TypeError, match="deltas"):
        m.accumulate_many([1, 2], [1.5, 2])
    s = pybcl.HashMap(100, key_type=str, value_type="int64")
    with pytest.raises(TypeError, match="deltas"):
        s.accumulate_many(["a"], None)
    with pytest.raises(TypeError, match="deltas"):
        pybcl.HashMapBuffer(m, 10, 2).accumulate_many([1], None)


# ---- the same rules in the other containers ------------------------------------


def test_queues_push_and_push_many_agree():
    p = pybcl.nprocs()
    for cls in (pybcl.FastQueue, pybcl.CircularQueue):
        q = cls(p - 1, 16)
        with pytest.raises(TypeError, match="value"):
            q.push(1.5)
        with pytest.raises(TypeError, match="values"):
            q.push_many(np.array([1.5]))
        with pytest.raises(TypeError, match="values"):
            q.push_many([1.5])
        with pytest.raises(OverflowError, match="value"):
            q.push(2**63)
        pybcl.barrier()


def test_bloom_arrays_and_buffer_elements():
    b = pybcl.BloomFilter(100)
    with pytest.raises(TypeError, match="^x: "):
        b.insert(1.5)
    with pytest.raises(TypeError, match="xs"):
        b.insert_many(np.array([1.5]))
    with pytest.raises(OverflowError, match="xs"):
        b.insert_many(np.array([-1]))
    b.insert_many(np.arange(5))                   # int64 into uint64 keys, by value
    s = pybcl.BloomFilter(100, key_type="S4")
    with pytest.raises(ValueError, match="^x: "):
        s.insert(b"12345")
    d = pybcl.DArray(8 * pybcl.nprocs())
    with pytest.raises(TypeError, match="value"):
        d[0] = 1.5
    with pytest.raises(TypeError, match="value"):
        d[0:2] = np.array([1.5, 2.5])
    with pytest.raises(OverflowError, match="value"):
        d[0:2] = [2**63, 1]
    a = pybcl.Array(0, 4, dtype="S2")
    with pytest.raises(ValueError, match="value"):
        a[0] = b"abc"
    g = pybcl.alloc(2, dtype="int32")
    with pytest.raises(OverflowError, match="value"):
        g[0] = 2**40
    with pytest.raises(TypeError, match="value"):
        g[0:2] = np.array([1.0, 2.0])
    pybcl.free(g)
    buf = pybcl.HashMapBuffer(pybcl.HashMap(100), 10, 2)
    with pytest.raises(TypeError, match="key"):
        buf.insert(2.5, 1)
    with pytest.raises(OverflowError, match="keys"):
        buf.insert_many(np.array([2**64 - 1], dtype=np.uint64), [1])
    pybcl.barrier()
