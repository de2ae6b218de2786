"""Producer/consumer: every rank pushes work items into one queue on rank 0.

    mpiexec -n 4 python examples/producer_consumer.py

A `CircularQueue` is hosted by one rank and any rank may push and pop at the
same time.  Here every rank produces items and rank 0 (the host) consumes
them while they arrive: `push` returns False when the queue is full, and the
producer tries again.  The queue holds far fewer items than are produced, so
producers and the consumer really run together.

A `FastQueue` is the cheaper queue when pushes and pops are separated by a
barrier (a phase of pushes, then a phase of pops): the second part shows it.
"""
import numpy as np
import numpy.typing as npt

import pybcl


def main(items_per_rank: int = 2000) -> npt.NDArray[np.int64]:
    """Collective: every rank's items, as rank 0 consumed them (sorted), on every rank."""
    me, P = pybcl.rank(), pybcl.nprocs()
    total = items_per_rank * P
    mine = np.arange(me * items_per_rank, (me + 1) * items_per_rank, dtype=np.int64)
    consumed: list[int] = []

    with pybcl.CircularQueue(0, 64, dtype="int64") as work:    # hosted on rank 0
        for item in mine:
            while not work.push(item):                         # full: try again
                if me == 0:                                    # the host drains meanwhile
                    consumed.extend(work.pop_many(64).tolist())
        if me == 0:
            while len(consumed) < total:
                consumed.extend(work.pop_many(64).tolist())
        pybcl.barrier()

    done = pybcl.broadcast(np.sort(np.array(consumed, dtype=np.int64)), root=0)
    assert np.array_equal(done, np.arange(total)), "an item was lost or popped twice"

    # Phases with a FastQueue per rank: everybody pushes to its right neighbour,
    # a barrier, then everybody pops what it received.
    inbox = [pybcl.FastQueue(r, items_per_rank, dtype="int64") for r in range(P)]
    assert inbox[(me + 1) % P].push_many(mine)
    pybcl.barrier()
    got = inbox[me].pop_many(items_per_rank)
    left = (me - 1) % P
    assert (np.sort(got) == np.arange(left * items_per_rank,
                                      (left + 1) * items_per_rank)).all()
    for q in inbox:
        q.close()
    return done


if __name__ == "__main__":
    items = main()
    if pybcl.rank() == 0:
        print(f"producer_consumer ok on {pybcl.nprocs()} rank(s): {len(items)} items "
              f"consumed once each")
