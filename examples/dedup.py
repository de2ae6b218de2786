"""Deduplication: a distributed BloomFilter keeps a stream's first sightings.

    mpiexec -n 4 python examples/dedup.py

Every rank reads a stream of ids with repeats (within the rank and across
ranks).  `BloomFilter.insert_many` tells for each id whether the filter held
it already; an id it did not hold is new, and exactly one rank sees it new
(the insert is atomic).  A Bloom filter never forgets an id (no false
negative); it may take a new id for a seen one (a false positive, at most
about twice `fpr` when it holds `expected_items`), so the number of new ids
is at most the true distinct count, and close to it.
"""
import numpy as np
import numpy.typing as npt

import pybcl

UNIVERSE = 1 << 40


def stream(rank: int, n: int, distinct: int) -> npt.NDArray[np.uint64]:
    """Rank `rank`'s ids: `n` draws from `distinct` ids shared by all ranks."""
    ids = np.random.default_rng(seed=0).integers(0, UNIVERSE, size=distinct, dtype=np.uint64)
    return np.random.default_rng(seed=1 + rank).choice(ids, size=n)


def main(n_per_rank: int = 20_000, distinct: int = 10_000) -> dict[str, int]:
    """Collective: how many ids the job saw, and how many it found new."""
    me = pybcl.rank()
    ids = stream(me, n_per_rank, distinct)
    with pybcl.BloomFilter(expected_items=distinct, fpr=0.01, key_type="uint64") as seen:
        new = 0
        for batch in np.array_split(ids, 10):
            already = seen.insert_many(batch)
            new += int((~already).sum())
        pybcl.barrier()                               # every rank's inserts are in
        assert seen.find_many(ids).all()              # no false negative, ever
    return {"ids": pybcl.allreduce(len(ids), "sum"), "new": pybcl.allreduce(new, "sum")}


if __name__ == "__main__":
    result = main()
    if pybcl.rank() == 0:
        print(f"dedup ok on {pybcl.nprocs()} rank(s): {result['ids']} ids read, "
              f"{result['new']} of them new (a false positive can only lower this)")
