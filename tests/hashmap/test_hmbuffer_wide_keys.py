"""HashMapBuffer.insert and accumulate take keys and values of any fixed-size
type, however wide: one entry of 300-byte keys converts as insert_many's do.
Every rank adds to the same keys, so the counts check that nothing is lost."""
import numpy as np
import pytest

import pybcl

from conftest import all_ok


@pytest.mark.mpi
def test_single_adds_of_keys_wider_than_256_bytes():
    p = pybcl.nprocs()
    m = pybcl.HashMap(64 * p + 256, key_type="S300", value_type="int64")
    keys = [b"k%d-" % i + b"x" * 280 for i in range(20)]
    with pybcl.HashMapBuffer(m, 64, 8) as buf:
        for k in keys:
            buf.accumulate(k)                 # a delta of 1 from every rank
            buf.accumulate(k, 2)
    counts = m.find_many(np.array(keys, dtype="S300"))[0]
    ok = bool((counts == 3 * p).all())
    with pybcl.HashMapBuffer(m, 64, 8) as buf:
        buf.insert(keys[0], -1)
    ok &= m.find(keys[0]) == -1
    assert all_ok(ok), counts
