"""The values of a batch follow NumPy's broadcasting: as many values as keys
(or indices), or one value -- a scalar or a one-element array -- repeated for
every key; any other count is a ValueError naming both counts, raised before
anything is stored.  The same rule for HashMap.insert_many/accumulate_many,
HashMapBuffer.insert_many, DArray.update_many and DArray slice assignment.

Every rank hammers the same keys, so the counts check that no insert or
update was lost; outcomes are agreed with all_ok() before asserting."""
import numpy as np
import pytest

import pybcl

from conftest import all_ok


@pytest.mark.mpi
def test_a_one_element_value_array_is_repeated_for_every_key():
    r, p = pybcl.rank(), pybcl.nprocs()
    keys = np.arange(50 * p, dtype=np.int64)          # the same keys on every rank
    m = pybcl.HashMap(400 * p + 1000)
    m.insert_many(keys, np.array([7]))
    pybcl.barrier()
    values, found = m.find_many(keys)
    ok = bool(found.all() and (values == 7).all())
    pybcl.barrier()
    m.accumulate_many(keys, np.array([2]))             # every rank adds 2 to every key
    pybcl.barrier()
    values, _ = m.find_many(keys)
    ok &= bool((values == 7 + 2 * p).all())
    pybcl.barrier()
    buf = pybcl.HashMapBuffer(m, 64, 16)
    buf.insert_many(keys[r::p], np.array([r + 100]))
    buf.flush()
    values, _ = m.find_many(keys)
    ok &= bool((values == keys % p + 100).all())
    assert all_ok(ok)


@pytest.mark.mpi
def test_array_batches_repeat_one_value_like_numpy():
    r, p = pybcl.rank(), pybcl.nprocs()
    a = pybcl.DArray(20 * p, "int64")
    if r == 0:
        a[0:20 * p] = np.array([3])                    # one element fills the slice
    pybcl.barrier()
    ok = bool((np.asarray(a) == 3).all())
    a.update_many(np.arange(20 * p), np.array([1]))    # every rank adds 1 everywhere
    pybcl.barrier()
    ok &= bool((np.asarray(a) == 3 + p).all())
    assert all_ok(ok)


@pytest.mark.mpi
def test_a_value_count_that_is_neither_one_nor_the_key_count_is_refused():
    p = pybcl.nprocs()
    m = pybcl.HashMap(100 * p + 100)
    a = pybcl.DArray(10 * p, "int64")
    keys = np.arange(5, dtype=np.int64)
    messages = []
    for call in (lambda: m.insert_many(keys, np.arange(3)),
                 lambda: m.accumulate_many(keys, [1, 2]),
                 lambda: a.update_many(np.arange(4), np.arange(3)),
                 lambda: a.__setitem__(slice(0, 4), np.arange(3))):
        with pytest.raises(ValueError) as e:
            call()
        messages.append(str(e.value))
    pybcl.barrier()
    ok = ("3 values for 5 keys" in messages[0] and "2 values for 5 keys" in messages[1]
          and "3 values for 4 indices" in messages[2] and "3 values for 4" in messages[3])
    ok &= m.size() == 0 and not np.asarray(a).any()
    assert all_ok(ok), messages
