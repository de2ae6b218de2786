"""find_many(keys, collective=True): every rank looks its own keys up at once.

Off shm the keys travel to the ranks that own them, which read their own
blocks and answer; the answers must be exactly the one-sided protocol's,
for any number of keys per rank (none, or more than one exchange round),
for keys whose probe sequences leave their owner's block, and bad input on
one rank must raise on every rank.  Sized by the number of ranks."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok

FIND = pybcl.ConProm.HashMap.find


@pytest.mark.mpi
def test_every_rank_finds_every_ranks_keys_and_misses_the_absent_ones():
    r, P = pybcl.rank(), pybcl.nprocs()
    n = 2000
    m = pybcl.HashMap(4 * n * P, "uint64", "int64")
    mine = np.arange(n, dtype=np.uint64) * np.uint64(P) + np.uint64(r)
    m.insert_many(mine, mine.astype(np.int64) * 3)
    pybcl.barrier()
    every = np.arange(n * P, dtype=np.uint64)
    # all ranks hammer the same keys, each with its own share of absent ones
    q = np.concatenate([every, every + np.uint64(n * P + r)])
    vals, found = m.find_many(q, promise=FIND, collective=True)
    want = q < n * P
    assert all_ok((found == want).all())
    assert all_ok((vals[found] == q[found].astype(np.int64) * 3).all())
    assert all_ok((vals[~found] == 0).all())
    one_sided = m.find_many(q)
    assert all_ok((one_sided[1] == found).all() and (one_sided[0] == vals).all())


@pytest.mark.mpi
def test_uneven_batches_including_none_and_several_rounds():
    """Rank 0 asks for more keys than one exchange round carries (2^20);
    the last rank asks for none: every rank still takes part in every round."""
    r, P = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(64 * P, "uint64", "uint64")
    m.insert_many(np.array([r + 1], dtype=np.uint64), np.array([7 * (r + 1)], np.uint64))
    pybcl.barrier()
    if r == 0:
        q = np.arange((1 << 20) + 5, dtype=np.uint64)
    elif r == P - 1:
        q = np.zeros(0, dtype=np.uint64)
    else:
        q = np.arange(P + 3, dtype=np.uint64)
    vals, found = m.find_many(q, collective=True)
    want = (q >= 1) & (q <= P)
    ok = bool((found == want).all()) and bool((vals[found] == 7 * q[found]).all())
    assert all_ok(ok and len(vals) == len(q))


@pytest.mark.mpi
def test_keys_probing_past_their_owners_block_are_found():
    """A nearly full tiny map: many probe sequences run into the next
    rank's block, where the owner cannot read for itself."""
    r, P = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(16 * P, "uint64", "uint64")
    keys = np.arange(12 * P, dtype=np.uint64) * np.uint64(1000003)
    m.insert_many(keys[r::P], keys[r::P] + np.uint64(1))
    pybcl.barrier()
    q = np.concatenate([keys, keys + np.uint64(1)])
    vals, found = m.find_many(q, collective=True)
    want = np.isin(q, keys)
    assert all_ok((found == want).all() and (vals[found] == q[found] + 1).all())


@pytest.mark.mpi
def test_bad_keys_on_one_rank_raise_on_every_rank():
    r, P = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(64 * P, "uint64", "uint64")
    try:
        m.find_many(["not a key"] if r == P - 1 else np.arange(3, dtype=np.uint64),
                    collective=True)
    except (TypeError, ValueError) as e:
        msg = str(e)
    else:
        msg = None
    assert all_ok(msg is not None), "the collective find_many did not raise on every rank"
    if r == P - 1:
        assert "keys" in msg, msg
    # the map is still usable, collectively
    vals, found = m.find_many(np.arange(3, dtype=np.uint64), collective=True)
    assert all_ok(not found.any())


@pytest.mark.mpi
def test_variable_length_maps_refuse_the_collective_lookup_on_every_rank():
    m = pybcl.HashMap(64 * pybcl.nprocs(), "str", "int64")
    with pytest.raises(TypeError, match="fixed-size"):
        m.find_many(["a"], collective=True)
    pybcl.barrier()
