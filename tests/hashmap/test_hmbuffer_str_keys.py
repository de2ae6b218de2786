"""HashMapBuffer over a map with str keys (and object values): the records
are serialized in C when added, combined per key on the adding rank, and
shipped to their owners at flush().  The promises are the fixed buffer's:
nothing visible before flush(), a later insert wins, nothing lost when the
map is full, grow=True completes, every rank learns a failure.

Sized by P: every rank hammers the same words (and some of its own).
"""
import numpy as np
import pytest

import pybcl

from conftest import all_ok

WORDS = ["the", "of", "and", "a", "to", "in", "is", "\u00e9t\u00e9", "\u4e2d\u6587", ""]


def outcome(fn, *args):
    try:
        fn(*args)
    except Exception as e:          # noqa: BLE001 -- the test compares classes
        return type(e)
    return None


@pytest.mark.mpi
def test_same_words_from_every_rank_over_many_rounds_count_exactly():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(64 * P, key_type=str, value_type="int64")
    rounds = 8
    with pybcl.HashMapBuffer(m, 64, 8) as buf:
        for r in range(rounds):
            buf.accumulate_many(WORDS * 50)                   # a list
            buf.accumulate_many(tuple(WORDS), deltas=2)       # a tuple, one delta
            buf.accumulate_many((w for w in WORDS[:3]), [r, r, r])   # a generator
            buf.accumulate_many(np.array(WORDS[:4]))          # NumPy str_ items
            buf.accumulate(f"rank{me}", 3)
            buf.flush()
    want = {w: P * rounds * 52 for w in WORDS}
    for w in WORDS[:3]:
        want[w] += P * sum(range(rounds))
    for w in WORDS[:4]:
        want[w] += P * rounds
    want.update({f"rank{r}": 3 * rounds for r in range(P)})
    assert dict(m.items()) == want


@pytest.mark.mpi
@pytest.mark.parametrize("vtype, delta", [("float64", 0.5), ("uint64", 3 * 2**61),
                                          ("int32", 7)])
def test_words_combine_in_every_numeric_value_type(vtype, delta):
    """Repeats combine on the adding rank in the map's own arithmetic: a
    float's halves, an unsigned sum past the int64 range, a 32-bit integer.
    Each rank adds its own word twice; the shared words every rank adds
    (not for uint64: P such sums would overflow)."""
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(64 * P, key_type=str, value_type=vtype)
    shared = [] if vtype == "uint64" else WORDS[:5] * 40
    with pybcl.HashMapBuffer(m, 64, 8) as buf:
        buf.accumulate_many(shared + [f"own{me}", f"own{me}"], deltas=delta)
    want = {w: delta * 40 * P for w in set(shared)}
    want.update({f"own{r}": 2 * delta for r in range(P)})
    assert dict(m.items()) == want


@pytest.mark.mpi
def test_repeated_words_travel_once_per_rank():
    """pending counts records after combining: a counter's repeats are one."""
    m = pybcl.HashMap(16 * pybcl.nprocs(), key_type=str, value_type="int64")
    buf = pybcl.HashMapBuffer(m, 16, 4)
    buf.accumulate_many(["x", "y"] * 1000)
    buf.accumulate("x")
    ok = buf.pending == 2
    buf.flush()
    ok &= buf.pending == 0 and m["x"] == 1001 * pybcl.nprocs()
    assert all_ok(ok)


@pytest.mark.mpi
def test_nothing_is_visible_before_flush_and_a_later_insert_wins():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(16 * P, key_type=str, value_type="int64")
    buf = pybcl.HashMapBuffer(m, 16, 4)
    mine = f"k{me}"
    buf.insert(mine, 1)
    buf.accumulate(mine, 10)           # 11
    buf.insert(mine, 5)                # the later insert wins: 5
    buf.accumulate(mine, 2)            # 7
    buf.insert_many([f"j{me}", f"j{me}"], [1, 2])      # 2
    buf.accumulate("shared", 1)
    pybcl.barrier()
    ok = mine not in m and "shared" not in m and f"j{me}" not in m
    buf.flush()
    ok &= m[mine] == 7 and m[f"j{me}"] == 2 and m["shared"] == P
    buf.insert(mine, 100)              # a later flush overwrites
    buf.flush()
    ok &= m[mine] == 100
    assert all_ok(ok)


@pytest.mark.mpi
def test_object_values_later_insert_wins_whatever_its_size():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(16 * P, key_type=str, value_type=object)
    with pybcl.HashMapBuffer(m, 16, 4) as buf:
        buf.insert(f"v{me}", [1, 2, 3])
        buf.insert(f"v{me}", "a much longer value than the list before it")
        buf.insert_many([f"w{me}", f"w{me}"], [{"a": 1}, {"b": 2}])
        with pytest.raises(TypeError):
            buf.accumulate(f"v{me}", 1)          # object values are not numeric
    ok = m[f"v{me}"] == "a much longer value than the list before it"
    ok &= m[f"w{me}"] == {"b": 2}
    assert all_ok(ok)


@pytest.mark.mpi
def test_a_non_str_key_raises_type_error_naming_it_and_nothing_is_lost():
    P = pybcl.nprocs()
    m = pybcl.HashMap(16 * P, key_type=str, value_type="int64")
    buf = pybcl.HashMapBuffer(m, 16, 4)
    buf.accumulate_many(["a", "b"])
    msgs = []
    for call in (lambda: buf.accumulate_many(["a", 3, "b"]),
                 lambda: buf.insert_many(["a", b"b"], [1, 2]),
                 lambda: buf.accumulate(7)):
        try:
            call()
        except TypeError as e:
            msgs.append(str(e))
    # a value that does not convert raises when buffered, not from flush()
    ok = outcome(buf.insert, "a", "not a number") is TypeError
    ok &= len(msgs) == 3 and "keys[1]" in msgs[0] and "keys[1]" in msgs[1]
    ok &= "key" in msgs[2]
    buf.flush()                        # the good entries, and only those
    ok &= m["a"] == P and m["b"] == P and m.size() == 2
    assert all_ok(ok)


@pytest.mark.mpi
def test_overflowing_accumulates_are_reported_once_and_not_applied():
    me = pybcl.rank()
    m = pybcl.HashMap(16 * pybcl.nprocs(), key_type=str, value_type="int64")
    buf = pybcl.HashMapBuffer(m, 16, 4)
    for _ in range(3):
        buf.accumulate(f"big{me}", 2**62)      # the 2nd and 3rd overflow
    buf.insert(f"ins{me}", 2**63 - 1)
    buf.accumulate(f"ins{me}", 1)              # overflows the inserted value
    ok = outcome(buf.flush) is OverflowError
    ok &= m[f"big{me}"] == 2**62 and m[f"ins{me}"] == 2**63 - 1
    ok &= outcome(buf.flush) is None           # reported once
    assert all_ok(ok)


@pytest.mark.mpi
def test_full_map_raises_everywhere_keeps_entries_and_grow_completes():
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(4 * P, key_type=str, value_type="int64")
    words = [f"w{i}" for i in range(20 * P)]
    buf = pybcl.HashMapBuffer(m, 16, 4)
    buf.accumulate_many(words)
    ok = outcome(buf.flush) is pybcl.ContainerFull        # on every rank
    m.resize(64 * P)
    buf.accumulate_many(words)                            # newer entries after the kept
    ok &= outcome(buf.flush) is None
    ok &= dict(m.items()) == {w: 2 * P for w in words}
    g = pybcl.HashMap(2 * P, key_type=str, value_type="int64")
    with pybcl.HashMapBuffer(g, 16, 4, grow=True) as gbuf:
        gbuf.accumulate_many(words + [f"own{me}"])
    ok &= g.size() == len(words) + P and g.capacity >= 2 * (len(words) + P)
    ok &= g["w0"] == P and g[f"own{me}"] == 1
    assert all_ok(ok)


@pytest.mark.mpi
def test_buffer_and_map_agree_on_keys_with_atomic_inserts_between_flushes():
    """Keys stored by m.insert (in the inserting rank's segment) and keys the
    buffer's owners stored are the same keys."""
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(32 * P, key_type=str, value_type="int64")
    m.accumulate("seed", 1)
    m.insert(f"m{me}", 10)
    pybcl.barrier()
    with pybcl.HashMapBuffer(m, 16, 4) as buf:
        buf.accumulate_many(["seed"] + [f"m{r}" for r in range(P)])
    ok = m["seed"] == 2 * P and all(m[f"m{r}"] == 10 + P for r in range(P))
    ok &= m.size() == P + 1
    assert all_ok(ok)
