"""HashMapBuffer never drops what a full map refuses.

The entries that find no free bucket stay in the buffer; flush() raises
ContainerFull on every rank (a collective failure surfaces everywhere), the
adding calls never raise it on some ranks only, and a flush after resize()
inserts the kept entries.  Sized by P: every rank adds N keys of its own.
"""
import numpy as np
import pytest

import pybcl

from conftest import all_ok


def flush_outcome(buf):
    """The exception class flush() raised on this rank (None if none)."""
    try:
        buf.flush()
    except Exception as e:          # noqa: BLE001 -- the test compares classes
        return type(e)
    return None


def raised(fn, *args):
    try:
        fn(*args)
    except Exception as e:          # noqa: BLE001
        return type(e)
    return None


@pytest.mark.mpi
@pytest.mark.parametrize("queue_size,message_size", [(100, 10), (12, 5)])
def test_full_map_keeps_entries_until_resize(queue_size, message_size):
    # 300 keys per rank into 64 buckets per rank, scaled down: every refused key probes half the table before it is
    # refused, which over TCP costs a round trip per probe.
    r, p = pybcl.rank(), pybcl.nprocs()
    n = 75
    keys = np.arange(n, dtype=np.int64) * p + r
    m = pybcl.HashMap(16 * p)
    b = pybcl.HashMapBuffer(m, queue_size, message_size)
    # a tiny queue overflows into direct inserts while adding: never a raise
    err_add = raised(b.insert_many, keys, keys * 10)
    assert all_ok(err_add is None), err_add
    assert all_ok(flush_outcome(b) is pybcl.ContainerFull)
    assert all_ok(flush_outcome(b) is pybcl.ContainerFull)   # still full, still kept
    m.resize(256 * p)
    assert all_ok(flush_outcome(b) is None)
    every = np.arange(n * p, dtype=np.int64)
    vals, found = m.find_many(every)
    assert all_ok(bool(found.all()) and bool((vals == every * 10).all())), \
        int((~found).sum())
    assert m.size() == n * p


@pytest.mark.mpi
def test_kept_accumulates_count_once_and_later_inserts_win():
    r, p = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(8 * p)
    b = pybcl.HashMapBuffer(m, 50, 7)
    keys = np.arange(25 * p, dtype=np.int64)       # the same keys on every rank
    b.accumulate_many(keys, 1)
    b.accumulate_many(keys[:12], 2)                # duplicates combine
    assert all_ok(flush_outcome(b) is pybcl.ContainerFull)
    m.resize(256 * p)
    b.insert(10**6 + r, 1)
    assert all_ok(flush_outcome(b) is None)
    vals, found = m.find_many(keys)
    want = np.where(keys < 12, 3 * p, p)
    ok = bool(found.all()) and bool((vals == want).all())
    ok &= all(m[10**6 + q] == 1 for q in range(p))
    assert all_ok(ok)
    # a kept insert goes in before what is buffered after the failed flush
    small = pybcl.HashMap(8 * p)
    b2 = pybcl.HashMapBuffer(small, 50, 4)
    b2.insert_many(np.arange(25, dtype=np.int64) * p + r, 1)
    assert all_ok(flush_outcome(b2) is pybcl.ContainerFull)
    small.resize(128 * p)
    b2.insert_many(np.arange(25, dtype=np.int64) * p + r, 2)    # later: must win
    assert all_ok(flush_outcome(b2) is None)
    vals, found = small.find_many(np.arange(25 * p, dtype=np.int64))
    assert all_ok(bool(found.all()) and bool((vals == 2).all()))


@pytest.mark.mpi
def test_context_manager_raises_full_on_every_rank():
    p = pybcl.nprocs()
    m = pybcl.HashMap(16 * p)
    outcome = None
    try:
        with pybcl.HashMapBuffer(m, 40, 8) as b:
            b.insert_many(np.arange(32 * p, dtype=np.int64), 1)   # twice the buckets
    except pybcl.ContainerFull:
        outcome = pybcl.ContainerFull
    assert all_ok(outcome is pybcl.ContainerFull)


@pytest.mark.mpi
def test_buffered_accumulate_overflow_raises_on_every_rank():
    r, p = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(64 * p)
    if r == 0:
        m.insert(5, 2**63 - 1)
        m.insert(6, 0)
    pybcl.barrier()
    b = pybcl.HashMapBuffer(m, 50, 4)
    b.accumulate(5, 1)                    # would pass INT64_MAX: not applied
    b.accumulate(6, 1)
    assert all_ok(flush_outcome(b) is OverflowError)
    assert all_ok(m[5] == 2**63 - 1 and m[6] == p)
    b.accumulate(6, 1)                    # reported once: the next flush is clean
    assert all_ok(flush_outcome(b) is None)
    assert all_ok(m[6] == 2 * p)


@pytest.mark.mpi
def test_buffered_unsigned_accumulate_sums_past_int64_and_refuses_past_uint64():
    """uint64 values add as unsigned: a sum above INT64_MAX is no overflow,
    one above UINT64_MAX is (not applied, raised on every rank).  Many keys
    per rank, so most go through the owner's bulk apply."""
    r, p = pybcl.rank(), pybcl.nprocs()
    n = 500
    m = pybcl.HashMap(4 * n * p, "uint64", "uint64")
    keys = np.arange(n * p, dtype=np.uint64)             # the same keys on every rank
    if r == 0:
        m.insert_many(keys, np.full(n * p, 2**63, dtype=np.uint64))
        m.insert(n * p, 2**64 - 2)
    pybcl.barrier()
    b = pybcl.HashMapBuffer(m, 4 * n * p, 64)
    b.accumulate_many(keys, np.full(n * p, 3, dtype=np.uint64))
    b.accumulate(n * p, 1)                               # fits once, then overflows
    assert all_ok(flush_outcome(b) is (OverflowError if p > 1 else None))
    vals, found = m.find_many(keys)
    ok = bool(found.all()) and bool((vals == 2**63 + 3 * p).all())
    ok &= m[n * p] == 2**64 - 1
    assert all_ok(ok), vals[:4]
