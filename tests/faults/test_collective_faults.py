"""Bad input to collective calls and re-entrant modify().

A collective call whose arguments are bad on one rank, or differ between
ranks, must raise on every rank (no rank left waiting), naming the argument."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok

P = pybcl.nprocs()
R = pybcl.rank()
LAST = P - 1


def raises_everywhere(make, exc=(ValueError, TypeError), match=None):
    """`make()` raises `exc` on every rank; returns this rank's message."""
    try:
        make()
    except exc as e:
        msg = str(e)
    else:
        msg = None
    assert all_ok(msg is not None), "the collective call did not raise on every rank"
    if match is not None:
        assert all_ok(any(m in msg for m in match)), msg
    return msg


BAD_ON_LAST_RANK = {
    "HashMap capacity": lambda: pybcl.HashMap(-1 if R == LAST else 64),
    "HashMap value_type": lambda: pybcl.HashMap(64, value_type="nope" if R == LAST else "int64"),
    "BloomFilter fpr": lambda: pybcl.BloomFilter(100, "x" if R == LAST else 0.01),
    "DArray dtype": lambda: pybcl.DArray(8, "nope" if R == LAST else "int64"),
    "DArray size": lambda: pybcl.DArray(-1 if R == LAST else 8),
    "Array host": lambda: pybcl.Array(P if R == LAST else 0, 8),
    "CircularQueue host": lambda: pybcl.CircularQueue(P if R == LAST else 0, 8),
    "FastQueue arity": lambda: pybcl.FastQueue(0) if R == LAST else pybcl.FastQueue(0, 8),
    "FastQueue dtype": lambda: pybcl.FastQueue(0, 8, "nope" if R == LAST else "int64"),
    "allreduce op": lambda: pybcl.allreduce(1, op="plus" if R == LAST else "sum"),
    "allreduce x": lambda: pybcl.allreduce("1" if R == LAST else 1),
}


@pytest.mark.parametrize("case", sorted(BAD_ON_LAST_RANK))
def test_bad_argument_on_one_rank_raises_on_every_rank(case):
    msg = raises_everywhere(BAD_ON_LAST_RANK[case])
    if R != LAST:
        assert f"rank {LAST}" in msg, msg


def test_bad_resize_argument_on_one_rank_raises_on_every_rank():
    m = pybcl.HashMap(64)
    raises_everywhere(lambda: m.resize("x" if R == LAST else 128))
    raises_everywhere(lambda: m.resize(0 if R == LAST else 128))
    m.resize(128)                      # still usable, collectively
    assert m.capacity >= 128


def test_hashmap_buffer_bad_argument_on_one_rank():
    m = pybcl.HashMap(64)
    raises_everywhere(lambda: pybcl.HashMapBuffer(m, 0 if R == LAST else 8, 4))


DIFFERENT_PER_RANK = {
    "HashMap capacity": (lambda: pybcl.HashMap(100 + R), "capacity"),
    "HashMap value_type": (lambda: pybcl.HashMap(64, value_type=("int64", "float64")[R % 2]),
                           "value_type"),
    "HashMap key_type": (lambda: pybcl.HashMap(64, key_type=("int64", "S8")[R % 2]), "key_type"),
    "BloomFilter expected_items": (lambda: pybcl.BloomFilter(1000 + R), "expected_items"),
    "BloomFilter key_type": (lambda: pybcl.BloomFilter(100, key_type=("uint64", "S8")[R % 2]),
                             "key_type"),
    "DArray size": (lambda: pybcl.DArray(10 * (R + 1)), "size"),
    "DArray dtype": (lambda: pybcl.DArray(8, ("int64", "float32")[R % 2]), "dtype"),
    "Array size": (lambda: pybcl.Array(0, 10 + R), "size"),
    "FastQueue dtype": (lambda: pybcl.FastQueue(0, 8, ("int64", "float64")[R % 2]), "dtype"),
    "CircularQueue values or bytes": (lambda: pybcl.CircularQueue(0, 8, (object, "S16")[R % 2]),
                                      "element size"),
    "allreduce dtype": (lambda: pybcl.allreduce(1 if R % 2 == 0 else 1.5), "dtype"),
    "allreduce size": (lambda: pybcl.allreduce(np.zeros(1 + R)), "size"),
}


@pytest.mark.parametrize("case", sorted(DIFFERENT_PER_RANK))
def test_ranks_passing_different_arguments_raise_everywhere(case):
    make, name = DIFFERENT_PER_RANK[case]
    if P == 1:
        make()                          # one rank always agrees with itself
        return
    raises_everywhere(make, ValueError, match=[f"different {name}"])


def test_resize_with_different_capacities_raises_everywhere():
    m = pybcl.HashMap(64)
    if P > 1:
        raises_everywhere(lambda: m.resize(128 + R), ValueError, match=["new_capacity"])
    m.resize(256)
    assert m.capacity >= 256


def test_modify_reentering_its_own_bucket_raises_runtime_error():
    m = pybcl.HashMap(64)
    key = 1000 + R
    m.insert(key, 5)
    with pytest.raises(RuntimeError, match="modify"):
        m.modify(key, lambda v: m.find(key))
    with pytest.raises(RuntimeError):
        m.modify(key, lambda v: m.insert(key, 6))
    with pytest.raises(RuntimeError):
        m.modify(key, lambda v: int(m.find_many(np.array([key]))[0][0]))
    # the bucket was given back each time: the map still works on that key
    assert m.modify(key, lambda v: v + 1) == 6
    assert m.find(key) == 6
    other = 5000 + R                    # a different key inside fn is fine
    m.insert(other, 1)
    assert m.modify(key, lambda v: v + m.find(other)) == 7


@pytest.mark.parametrize("call, name", [
    (lambda: pybcl.HashMap(2**63), "capacity"),
    (lambda: pybcl.HashMap(64).resize(2**63), "new_capacity"),
])
def test_huge_sizes_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_segment_size_text_names_the_argument():
    from pybcl import _env
    for bad in ("inf", "nan", "-inf", "12Q"):
        with pytest.raises(ValueError, match="segment_size"):
            _env.parse_size(bad, "segment_size")


@pytest.mark.parametrize("call, exc, words", [
    (lambda: pybcl.CircularQueue(2**31, 10), ValueError, ["host 2147483648"]),
    (lambda: pybcl.CircularQueue(-2**40, 10), ValueError, ["host -1099511627776"]),
    (lambda: pybcl.Array(P, 4), ValueError, [f"host {P} is not a rank in [0, {P})"]),
    (lambda: pybcl.FastQueue(0, 4).migrate(P), ValueError,
     [f"new_host {P} is not a rank in [0, {P})"]),
    (lambda: pybcl.DArray(2**40 * P), pybcl.SegmentFull, ["1099511627776 elements", "8 bytes"]),
    (lambda: pybcl.alloc(2**63), ValueError, ["count"]),
    (lambda: pybcl.rget(pybcl.alloc(1), 2**62), IndexError, ["count"]),
    (lambda: pybcl.rput(pybcl.alloc(1), None), TypeError, ["rput: array", "None"]),
    (lambda: pybcl.rput(pybcl.alloc(1), "text"), TypeError, ["rput: array", "'text'"]),
])
def test_messages_name_the_argument(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), str(info.value)
