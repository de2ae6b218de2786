"""A fixed-size map loaded at the rank count that saved it: each rank's rows
go straight into its own block, and every key must land where the map's
own inserts put it (its owner's block), none lost, none twice; where a
probe leaves its block or a share's rows belong to another rank, the
entries take the buffer, with the same outcome.  (Every type at the
saving rank count: test_save_load.py; other rank counts:
test_load_at_other_rank_counts.py.)"""
import os

import numpy as np
import pytest

import pybcl
from conftest import all_ok


@pytest.fixture
def shared_dir(tmp_path):
    """A folder every rank names alike (rank 0's tmp_path)."""
    return pybcl.broadcast(str(tmp_path) if pybcl.rank() == 0 else None)


def _keys(n, seed):
    """n distinct random uint64 keys, the same on every rank."""
    rng = np.random.default_rng(seed)
    return np.unique(rng.integers(1, 2**63, 2 * n, dtype=np.uint64))[:n]


def _same_map(m, keys, vals):
    """Every key found from every rank with its value, len(m) the number of
    keys, and the ranks' local entries together exactly the keys."""
    local = m.local_arrays()[0]
    pybcl.barrier()          # the scans end before any rank's finds lock buckets
    got, found = m.find_many(keys)
    ok = bool(found.all()) and bool((got == vals).all()) and len(m) == len(keys)
    every = np.concatenate(pybcl.comm().allgather(local))
    return ok and len(every) == len(keys) and bool((np.sort(every) == np.sort(keys)).all())


@pytest.mark.parametrize("key_type,value_type", [("uint64", "int64"), ("int32", "float64"),
                                                 ("S12", "int16")])
def test_each_rank_holds_the_keys_it_held_when_saved(shared_dir, key_type, value_type):
    """At a low load every key sits in its home's block: the loaded map's
    local keys on each rank are the saved map's."""
    P = pybcl.nprocs()
    n = 3000 * P
    keys = _keys(n, 5).astype(key_type)
    vals = np.arange(n).astype(value_type)
    m = pybcl.HashMap(8 * n, key_type=key_type, value_type=value_type)
    me = pybcl.rank()
    m.insert_many(keys[me::P], vals[me::P])
    pybcl.barrier()
    path = os.path.join(shared_dir, "m")
    m.save(path)
    n_map = pybcl.load(path)
    before, after = np.sort(m.local_arrays()[0]), np.sort(n_map.local_arrays()[0])
    ok = _same_map(n_map, keys, vals) and len(before) == len(after) and \
        bool((before == after).all())
    assert all_ok(ok), (len(before), len(after))


@pytest.mark.parametrize("key_type", ["uint64", "S16"])
def test_probes_that_leave_a_block_still_find_their_keys(shared_dir, key_type):
    """Blocks of a few buckets at half load: many probes leave their block
    (the direct apply hands those to the buffer) and the shares' edges hold
    other ranks' rows; nothing is lost or doubled."""
    P = pybcl.nprocs()
    n = 8 * P
    keys = _keys(n, 11).astype(key_type)
    vals = np.arange(n, dtype=np.int64) * 3
    m = pybcl.HashMap(2 * n, key_type=key_type, value_type="int64")
    me = pybcl.rank()
    m.insert_many(keys[me::P], vals[me::P])
    pybcl.barrier()
    path = os.path.join(shared_dir, "m")
    m.save(path)
    loaded = pybcl.load(path)
    assert all_ok(_same_map(loaded, keys, vals))
