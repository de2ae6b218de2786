"""HashMapBuffer when an owner's queue is full: the entries wait, in order,
in the sending rank's memory, and flush() ships them in rounds.

Nothing is in the map before flush(), a later insert of a key still wins over
an earlier one, and every accumulate is counted once, however many times the
queues filled.  Every rank sends every other rank several queues' worth;
sized by P.
"""
import numpy as np
import pytest

import pybcl
from conftest import all_ok

QUEUE, MESSAGE = 64, 16


def keys_of_all_ranks(n):
    """n keys per rank, the same on every rank, spread over every owner."""
    return np.arange(n * pybcl.nprocs(), dtype=np.uint64) * 2654435761 + 17


@pytest.mark.mpi
def test_entries_past_a_full_queue_wait_for_flush():
    P = pybcl.nprocs()
    keys = keys_of_all_ranks(40 * QUEUE)
    m = pybcl.HashMap(4 * keys.size, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(m, QUEUE, MESSAGE)
    buf.accumulate_many(keys, 1)
    assert all_ok(P == 1 or buf.overflowed > 0)       # some queue did fill
    assert m.size() == 0                              # buffered, not yet visible
    buf.flush()
    vals, found = m.find_many(keys)
    assert all_ok(found.all() and (vals == P).all())
    assert m.size() == keys.size


@pytest.mark.mpi
def test_a_later_insert_wins_over_one_that_waited():
    r, P = pybcl.rank(), pybcl.nprocs()
    keys = keys_of_all_ranks(20 * QUEUE) + np.uint64(r)   # this rank's keys only
    m = pybcl.HashMap(4 * keys.size * P, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(m, QUEUE, MESSAGE)
    buf.insert_many(keys, np.full(keys.size, 1, np.int64))   # fills the queues
    buf.insert_many(keys, np.full(keys.size, 2, np.int64))   # waits behind them
    buf.flush()
    vals, found = m.find_many(keys)
    assert all_ok(found.all() and (vals == 2).all())


@pytest.mark.mpi
@pytest.mark.parametrize("grow", [False, True])
def test_hammered_keys_count_exactly_across_rounds(grow):
    """Every rank accumulates the same keys many times: each owner receives
    many queues' worth from every rank, over several flush rounds."""
    P = pybcl.nprocs()
    keys = keys_of_all_ranks(500)
    m = pybcl.HashMap(16 if grow else 4 * keys.size, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(m, QUEUE, MESSAGE, grow=grow)
    for _ in range(3):
        buf.accumulate_many(keys, 2)
    buf.flush()
    vals, found = m.find_many(keys)
    assert all_ok(found.all() and (vals == 6 * P).all())
    assert m.size() == keys.size


@pytest.mark.mpi
def test_local_arrays_are_this_ranks_items():
    P = pybcl.nprocs()
    keys = keys_of_all_ranks(100)
    m = pybcl.HashMap(4 * keys.size, key_type="uint64", value_type="int64")
    with pybcl.HashMapBuffer(m, QUEUE, MESSAGE) as buf:
        buf.accumulate_many(keys, 3)
    pybcl.barrier()
    k, v = m.local_arrays()
    assert k.dtype == np.uint64 and v.dtype == np.int64
    assert dict(zip(k.tolist(), v.tolist())) == dict(m.local_items())
    total = int(pybcl.allreduce(np.array([k.size], np.int64), "sum")[0])
    assert total == keys.size
    assert all_ok((v == 3 * P).all())


def test_local_arrays_refuses_variable_length_types():
    m = pybcl.HashMap(16, key_type=str, value_type="int64")
    with pytest.raises(TypeError, match="local_items"):
        m.local_arrays()


@pytest.mark.mpi
def test_mixed_inserts_and_accumulates_apply_in_order_per_key():
    """One delta for all keys, a delta per key, inserts and single calls,
    interleaved and queued past full: each key ends as the calls, applied
    in this rank's order, say.  Twice, so the second flush reuses the
    buffer's emptied lists."""
    r, P = pybcl.rank(), pybcl.nprocs()
    keys = keys_of_all_ranks(8 * QUEUE) * np.uint64(P) + np.uint64(r)   # this rank's own
    m = pybcl.HashMap(4 * keys.size * P, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(m, QUEUE, MESSAGE)
    steps = np.arange(keys.size, dtype=np.int64)
    for round_ in range(2):
        buf.accumulate_many(keys)                        # one delta: 1
        buf.insert_many(keys, steps * 10 + round_)       # replaces it
        buf.accumulate_many(keys, 5)                     # one delta again
        buf.accumulate(keys[0], 7)
        buf.insert(keys[1], -3)
        buf.accumulate_many(keys, steps)                 # a delta per key
        buf.accumulate_many(keys[::2], 2)
        assert m.size() == (0 if round_ == 0 else keys.size * P)
        buf.flush()
        want = steps * 11 + round_ + 5
        want[0] += 7
        want[1] = -3 + 1
        want[::2] += 2
        vals, found = m.find_many(keys)
        assert all_ok(found.all() and (vals == want).all())


@pytest.mark.mpi
def test_a_key_repeated_within_one_long_call_keeps_its_last_value():
    """One insert_many call tens of thousands long, each key in it four times
    far apart with rising values, from every rank to every owner: the
    entries are grouped by owner in pieces, and each key still ends with the
    last value any rank gave it last (ranks write disjoint keys)."""
    r, P = pybcl.rank(), pybcl.nprocs()
    keys = keys_of_all_ranks(5000) * np.uint64(P) + np.uint64(r)
    reps = np.concatenate([keys] * 4)
    vals = np.arange(reps.size, dtype=np.int64)
    m = pybcl.HashMap(4 * keys.size * P, key_type="uint64", value_type="int64")
    with pybcl.HashMapBuffer(m, QUEUE, MESSAGE) as buf:
        buf.insert_many(reps, vals)
        buf.accumulate_many(reps[: keys.size], 1)            # then + 1 each
    got, found = m.find_many(keys)
    assert all_ok(found.all() and (got == vals[-keys.size:] + 1).all())
