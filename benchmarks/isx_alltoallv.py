"""ISx with MPI_Alltoallv (mpi4py): the baseline of the paper's ISx comparison.

    mpiexec -n P python benchmarks/isx_alltoallv.py [--keys-per-rank N]
        [--max-key M] [--iterations I] [--local sort|count] [--json FILE]

The ISx MPI reference's algorithm, step for step, with the same workload as
`python -m pybcl.apps.isx`: PCG32 keys seeded (rank, rank) (pybcl.apps._kernels' C
generator), ISx's counting bucketize (C), MPI_Alltoall of the bucket sizes,
MPI_Alltoallv of the keys, then the same local phase as the pybcl app
(`--local sort`: NumPy sort; `--local count`: ISx's count_local_keys
histogram, pybcl.apps._kernels.isx_count) and the same verification.  Timed like ISx: generation to the barrier after the sort; one
untimed burn-in iteration.  Only mpi4py and NumPy are used for the exchange.
"""
import argparse
import json
import sys
import time

import numpy as np
from mpi4py import MPI

from pybcl.apps import _kernels    # only the C key generator and bucketize, no containers
from pybcl.apps.isx import local_phase, slowest_rank_breakdown

PHASES = ("generate_bucket", "alltoallv", "local", "final_barrier", "exchange", "total")
PARTS = ("generate_bucket", "alltoallv", "local", "final_barrier")     # sum = total
MPI_OPS = {"max": MPI.MAX, "min": MPI.MIN, "sum": MPI.SUM}


def run(keys_per_rank=1 << 22, max_key=1 << 28, iterations=3, burn_in=1, comm=MPI.COMM_WORLD,
        local="sort"):
    me, P = comm.Get_rank(), comm.Get_size()
    N = keys_per_rank
    width = -(-max_key // P)
    lo, hi = me * width, min((me + 1) * width, max_key)
    times = {p: [] for p in PHASES}
    ok = True
    for it in range(burn_in + iterations):
        comm.Barrier()
        t0 = time.perf_counter()
        keys = _kernels.isx_keys(me, N, max_key)
        sent_sum = int(keys.sum(dtype=np.int64))
        bucketed, send_counts = _kernels.isx_bucketize(keys, width, P)
        send_counts = send_counts.astype(np.int32)
        t1 = time.perf_counter()
        recv_counts = np.empty(P, dtype=np.int32)
        comm.Alltoall(send_counts, recv_counts)
        sdispl = np.concatenate([[0], np.cumsum(send_counts)[:-1]]).astype(np.int32)
        rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]]).astype(np.int32)
        mine = np.empty(int(recv_counts.sum()), dtype=np.int32)
        comm.Alltoallv([bucketed, send_counts, sdispl, MPI.INT],
                       [mine, recv_counts, rdispl, MPI.INT])
        comm.Barrier()
        t2 = time.perf_counter()
        hist = local_phase(mine, local, lo, hi)
        t3 = time.perf_counter()
        comm.Barrier()
        t4 = time.perf_counter()
        if it >= burn_in:
            for p, v in zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t2 - t0, t4 - t0)):
                times[p].append(v)
        if it == burn_in + iterations - 1:
            if hist is None:
                good = (len(mine) == 0 or (mine[0] >= lo and mine[-1] < hi)) and \
                    bool(np.all(mine[1:] >= mine[:-1]))
            else:
                from pybcl.apps.isx import _weighted_key_sum
                counts, outside = hist
                good = outside == 0 and int(counts.sum(dtype=np.int64)) == len(mine) and \
                    _weighted_key_sum(counts, lo) == int(mine.sum(dtype=np.int64))
            tot = np.array([len(mine), int(mine.sum(dtype=np.int64)), sent_sum], dtype=np.int64)
            comm.Allreduce(MPI.IN_PLACE, tot, op=MPI.SUM)
            good = good and int(tot[0]) == N * P and int(tot[1]) == int(tot[2])
            ok = comm.allreduce(good, op=MPI.LAND)
    worst = np.array([np.mean(times[p]) for p in PHASES])
    comm.Allreduce(MPI.IN_PLACE, worst, op=MPI.MAX)
    seconds = dict(zip(PHASES, map(float, worst)))
    seconds["local_" + local] = seconds["local"]

    def allreduce(x, op):
        comm.Allreduce(MPI.IN_PLACE, x, op=MPI_OPS[op])
        return x
    per_iteration = slowest_rank_breakdown(
        np.array([times[p] for p in PARTS]).T.reshape(iterations, len(PARTS)), allreduce, me)
    return {"app": "isx_alltoallv", "ranks": P, "keys_per_rank": N, "max_key": max_key,
            "local": local,
            "iterations": iterations, "burn_in": burn_in, "seconds_per_iteration": seconds,
            "per_iteration": {"parts": list(PARTS), "seconds": per_iteration},
            "keys_per_s": N * P / seconds["total"], "verified": bool(ok)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys-per-rank", type=int, default=1 << 22)
    ap.add_argument("--max-key", type=int, default=1 << 28)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--burn-in", type=int, default=1)
    ap.add_argument("--local", choices=("sort", "count"), default="sort")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args(argv)
    res = run(a.keys_per_rank, a.max_key, a.iterations, a.burn_in, local=a.local)
    if MPI.COMM_WORLD.Get_rank() == 0:
        s = res["seconds_per_iteration"]
        print(f"ISx Alltoallv (mpi4py), local {a.local}: {res['ranks']} rank(s), "
              f"{a.keys_per_rank:,} keys/rank")
        for p in PHASES:
            print(f"  {p:16s} {s[p]:.4f} s")
        print(f"  {res['keys_per_s'] / 1e6:.2f} M keys/s; verification "
              f"{'PASSED' if res['verified'] else 'FAILED'}")
        if a.json:
            with open(a.json, "w") as fh:
                json.dump(res, fh, indent=1)
    return 0 if res["verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
