"""A fixed-size map loaded at the rank count that saved it: each rank's rows
go straight into its own block, and every key must land where the map's
own inserts put it (its owner's block), none lost, none twice; rows of a
share that belong to another rank, and entries whose probe leaves the
block, take the buffer, with the same outcome.  (Every type at the
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


def _saved_and_loaded(folder, capacity, keys, vals):
    """Collective: a map of `capacity` buckets holding keys -> vals (each
    rank inserting every P-th), and the map loaded from its file."""
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(capacity, key_type=keys.dtype, value_type=vals.dtype)
    m.insert_many(keys[me::P], vals[me::P])
    pybcl.barrier()
    path = os.path.join(folder, "m")
    m.save(path)
    return m, pybcl.load(path)


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
    m, n_map = _saved_and_loaded(shared_dir, 8 * n, keys, vals)
    before, after = np.sort(m.local_arrays()[0]), np.sort(n_map.local_arrays()[0])
    ok = _same_map(n_map, keys, vals) and len(before) == len(after) and \
        bool((before == after).all())
    assert all_ok(ok), (len(before), len(after))


@pytest.mark.parametrize("key_type", ["uint64", "S16"])
def test_probes_that_leave_a_block_still_find_their_keys(shared_dir, key_type):
    """Blocks of a few buckets at half load: many keys sit in a neighbour's
    block, so each share holds rows other ranks own (they take the buffer,
    and their owners' probes leave the block again); nothing is lost or
    doubled.  (The direct apply's own leftovers: saved_contents' edge map,
    loaded at other rank counts.)"""
    P = pybcl.nprocs()
    n = 8 * P
    keys = _keys(n, 11).astype(key_type)
    vals = np.arange(n, dtype=np.int64) * 3
    _, loaded = _saved_and_loaded(shared_dir, 2 * n, keys, vals)
    assert all_ok(_same_map(loaded, keys, vals))
