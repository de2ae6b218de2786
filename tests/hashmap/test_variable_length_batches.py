"""The batches of variable-length keys and values run key by key in C:
every key and value converts before anything is stored, and concurrent
batches from every rank on the same keys lose no update and erase each key
once.  Outcomes are agreed with all_ok() before asserting."""
import numpy as np
import pytest

import pybcl

from conftest import all_ok


@pytest.mark.mpi
def test_a_value_that_does_not_convert_stores_no_key():
    r = pybcl.rank()
    m = pybcl.HashMap(256 * pybcl.nprocs(), key_type=str, value_type=object)
    keys = [f"r{r}-{i}" for i in range(3)]
    with pytest.raises(TypeError, match=r"values\[2\]"):
        m.insert_many(keys, [1, 2, {1, 2}])          # a set has no msgpack form
    pybcl.barrier()
    assert all_ok(all(m.find(k) is None for k in keys))


@pytest.mark.mpi
def test_every_rank_counts_and_erases_the_same_string_keys():
    p = pybcl.nprocs()
    m = pybcl.HashMap(64 * p + 512, key_type=str, value_type="int64")
    keys = [f"word-{i}" for i in range(40 * p)]
    m.accumulate_many(keys)                           # +1 from every rank
    m.accumulate_many(keys, np.array([2]))            # +2 from every rank
    pybcl.barrier()
    values, found = m.find_many(keys)
    ok = bool(found.all()) and values == [3 * p] * len(keys)
    pybcl.barrier()
    erased = m.erase_many(keys).astype(np.int64)      # every rank races for every key
    pybcl.barrier()
    per_key = pybcl.allreduce(erased)
    ok &= bool((per_key == 1).all()) and m.size() == 0
    assert all_ok(ok), (values[:4], per_key[:4])
