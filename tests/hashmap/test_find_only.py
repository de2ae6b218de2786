"""find_many under the find-only promise (pybcl.ConProm.HashMap.find).

On the shm transport the lookups read the buckets with plain loads; they
must answer exactly as the atomic protocol does, across every rank's
block, past tombstones and other keys' buckets on long probe sequences.
Sized by the number of ranks."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok


@pytest.mark.mpi
def test_find_only_agrees_with_the_protocol_past_tombstones():
    r, P = pybcl.rank(), pybcl.nprocs()
    n = 3000 * P
    keys = np.arange(n, dtype=np.uint64) * np.uint64(7919) + np.uint64(3)
    m = pybcl.HashMap(2 * n + 64, key_type="uint64", value_type="int64")  # ~half full
    m.insert_many(keys[r::P], keys[r::P].astype(np.int64) * 2)
    pybcl.barrier()
    m.erase_many(keys[r::P][::3])
    pybcl.barrier()
    erased = np.concatenate([keys[q::P][::3] for q in range(P)])
    queries = np.concatenate([keys, keys + np.uint64(1)])    # present, erased, absent
    want = np.isin(queries, keys) & ~np.isin(queries, erased)
    vals, found = m.find_many(queries, promise=pybcl.ConProm.HashMap.find)
    avals, afound = m.find_many(queries)
    assert all_ok((found == want).all() and (afound == want).all())
    assert all_ok((vals[found] == queries[found].astype(np.int64) * 2).all())
    assert all_ok((vals[found] == avals[afound]).all())
    pybcl.barrier()


@pytest.mark.mpi
def test_find_only_on_an_empty_and_a_full_probe():
    P = pybcl.nprocs()
    m = pybcl.HashMap(16 * P, key_type="uint64", value_type="uint64")
    keys = np.arange(100, dtype=np.uint64)
    vals, found = m.find_many(keys, promise=pybcl.ConProm.HashMap.find)
    assert all_ok(not found.any())
    pybcl.barrier()
    if pybcl.rank() == 0:
        m.insert_many(keys[:8 * P], keys[:8 * P])       # half the buckets: the limit
    pybcl.barrier()
    vals, found = m.find_many(keys, promise=pybcl.ConProm.HashMap.find)
    assert all_ok(found[:8 * P].all() and not found[8 * P:].any())
    assert all_ok((vals[:8 * P] == keys[:8 * P]).all())
    pybcl.barrier()
