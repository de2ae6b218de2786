"""Batches longer than one round's slots (the refilled pipeline of
bcl_hashmap_batch.c): duplicates far apart keep "the later value wins",
every key of a long find batch is answered in its own position, and full
tables are still counted.  Sized by P; runs on both transports."""
import numpy as np

import pybcl
from conftest import all_ok

SLOTS = 65536          # the most keys a round carries (chunk_keys, P >= 32)


def test_insert_many_far_apart_duplicates_last_value_wins():
    P, me = pybcl.nprocs(), pybcl.rank()
    n = SLOTS // 8 + 5000                     # > one round's slots at small P
    m = pybcl.HashMap(4 * (n + 1000) * P)
    base = np.arange(n, dtype=np.int64) + me * 10_000_000
    # each key three times, n apart (more than a round's slots), values 0, 1, 2
    rng = np.random.default_rng(me)
    perm_block = rng.permutation(n)           # scramble within each third
    keys = np.concatenate([base[perm_block]] * 3)
    vals = np.concatenate([base[perm_block] + j for j in range(3)])
    m.insert_many(keys, vals)
    pybcl.barrier()
    got, found = m.find_many(base)
    ok = bool(found.all()) and np.array_equal(got, base + 2)
    assert all_ok(ok)
    pybcl.barrier()


def test_find_many_long_batch_answers_each_position():
    P, me = pybcl.nprocs(), pybcl.rank()
    n = 20000
    m = pybcl.HashMap(8 * n * P)
    present = np.arange(n, dtype=np.int64) * P + me          # disjoint per rank
    m.insert_many(present, present * 3)
    pybcl.barrier()
    rng = np.random.default_rng(7 + me)
    q = rng.integers(0, 2 * n * P, 3 * n).astype(np.int64)  # half absent, repeats
    vals, found = m.find_many(q)
    want_found = q < n * P                                  # every key < n*P was put
    ok = np.array_equal(found, want_found) and np.array_equal(vals[found], q[found] * 3)
    vals2, found2 = m.find_many(q, promise=pybcl.ConProm.HashMap.find)
    ok = ok and np.array_equal(found2, want_found) and np.array_equal(vals2[found2],
                                                                      q[found2] * 3)
    assert all_ok(ok)
    pybcl.barrier()
