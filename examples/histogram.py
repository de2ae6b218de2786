"""Histogram: many ranks add to one DArray through a DArrayBuffer.

    mpiexec -n 4 python examples/histogram.py

Each rank draws its own samples, finds their bins and sends `+1` per sample
to a distributed array of bins.  The `DArrayBuffer` gathers the updates per
owning rank and ships them in messages of `message_size`; its `flush()`
(collective) makes every update visible.  `np.asarray(bins)` gathers the
whole array on every rank.
"""
import numpy as np
import numpy.typing as npt

import pybcl

NBINS = 20


def samples(rank: int, n: int) -> npt.NDArray[np.float64]:
    """The samples rank `rank` draws: normal, mean 0, deviation 1."""
    return np.random.default_rng(seed=rank).normal(size=n)


def main(n_per_rank: int = 100_000) -> npt.NDArray[np.int64]:
    """Collective: the histogram of every rank's samples over [-4, 4), in NBINS bins."""
    me, P = pybcl.rank(), pybcl.nprocs()
    x = samples(me, n_per_rank)
    x = x[(x >= -4) & (x < 4)]
    bin_of = ((x + 4) / 8 * NBINS).astype(np.int64)
    with pybcl.DArray(NBINS, dtype="int64") as bins:
        bins.local()[:] = 0                           # this rank's block of bins
        pybcl.barrier()
        with pybcl.DArrayBuffer(bins, message_size=4096, op="add") as buf:
            buf.update_many(bin_of, 1)
        # leaving the buffer's block flushed it (collective)
        hist = np.asarray(bins)                       # collective: the whole array
    total = pybcl.allreduce(len(x), "sum")
    assert hist.sum() == total, (hist.sum(), total)
    return hist


if __name__ == "__main__":
    hist = main()
    if pybcl.rank() == 0:
        peak = int(hist.argmax())
        print(f"histogram ok on {pybcl.nprocs()} rank(s): {int(hist.sum())} samples, "
              f"fullest bin [{-4 + peak * 8 / NBINS:.1f}, {-4 + (peak + 1) * 8 / NBINS:.1f})")
        for i in range(NBINS):
            print(f"{-4 + i * 8 / NBINS:5.1f} {'#' * int(60 * hist[i] / hist.max())}")
