"""Cost of container lifetime handling: barrier(), and a create/drop loop.

    python benchmarks/bench_lifetime.py [--rounds 3] [--iters 20000] [--reps 7]
        [--nprocs 1,2,4] [--compare PATH]

For each rank count of `--nprocs`, runs `--rounds` times under mpiexec -n N
on shm (this checkout's pybcl, and with --compare another checkout's,
interleaved so that machine load hits both alike):

  * pybcl.barrier() median microseconds, beside MPI_Barrier on the same
    ranks through mpi4py (the raw-MPI floor; pybcl's own barrier on shm is
    not an MPI_Barrier, so it can be below it);
  * HashMap(2 MiB per rank) created and dropped, microseconds per iteration
    (creation is collective; with lifetime handling the reclaim of the
    previous map rides on the constructor's argument agreement);
  * the same with close() instead of dropping (when the build has close()).

Reclaiming dropped containers adds no collective to barrier(): its median
at 2 ranks must stay within 10 % of the build without it.  Prints ONE JSON
object with, per rank count: per build the best-of-rounds median of each
figure, every round's figures, and the barrier ratio (this / compare) per
round and its median.
"""
import json
import os
import statistics
import sys

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _report import rounds_parser, worker_result  # noqa: E402  (benchmarks/)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(iters, reps):
    import time

    import numpy as np  # noqa: F401
    from mpi4py import MPI

    import pybcl
    from pybcl import _core
    comm = MPI.COMM_WORLD

    def median_us(fn, n):
        samples = []
        for _ in range(reps):
            pybcl.barrier()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples.append((time.perf_counter() - t0) / n * 1e6)
        return statistics.median(samples)

    out = {"pybcl": pybcl.__file__, "transport": pybcl.transport(), "nprocs": pybcl.nprocs()}
    out["barrier_us"] = median_us(pybcl.barrier, iters)
    out["mpi_barrier_us"] = median_us(comm.Barrier, iters)
    cap = 2 * (2 << 20) // 24                 # about 2 MiB of buckets a rank

    def create_drop():
        m = pybcl.HashMap(cap)
        m[pybcl.rank()] = 1
        del m

    out["create_drop_us"] = median_us(create_drop, 50)
    if hasattr(_core.HashMap, "close"):
        def create_close():
            m = pybcl.HashMap(cap)
            m[pybcl.rank()] = 1
            m.close()
        out["create_close_us"] = median_us(create_close, 50)
    if pybcl.rank() == 0:
        print("RESULT " + json.dumps(out), flush=True)


def run_one(root, iters, reps, nprocs):
    env = dict(os.environ, PYTHONPATH=root, PYBCL_TRANSPORT="shm")
    cmd = [_mpi.mpiexec(), "-n", str(nprocs), sys.executable, os.path.abspath(__file__), "--worker",
                                  "--iters", str(iters), "--reps", str(reps)]
    return worker_result(cmd, env)


def summarize(builds, rounds, compare):
    """Per build the best-of-rounds median of each figure; every round; the
    barrier ratio this / compare per round and its median."""
    res = {"best": {},
           "rounds": [{f"{b}_{k}": round(v, 3) for b in builds for k, v in r[b].items()
                       if k.endswith("_us")} for r in rounds]}
    for name in builds:
        keys = [k for k in rounds[0][name] if k.endswith("_us")]
        res["best"][name] = {k: round(min(r[name][k] for r in rounds), 3) for k in keys}
    if compare:
        ratios = [r["this"]["barrier_us"] / r["compare"]["barrier_us"] for r in rounds]
        res["barrier_ratio_this_over_compare"] = {
            "per_round": [round(x, 3) for x in ratios],
            "median": round(statistics.median(ratios), 3)}
    return res


def main():
    ap = rounds_parser(reps=7)
    ap.add_argument("--nprocs", default="1,2,4", help="rank counts, comma-separated")
    ap.add_argument("--compare", help="another checkout (built in place) to run beside")
    a = ap.parse_args()
    if a.worker:
        return worker(a.iters, a.reps)
    builds = {"this": ROOT}
    if a.compare:
        builds["compare"] = os.path.abspath(a.compare)
    load_before = os.getloadavg()
    res = {"load_avg_before_after": None, "by_nprocs": {}}
    for nprocs in [int(x) for x in a.nprocs.split(",")]:
        rounds = [{name: run_one(root, a.iters, a.reps, nprocs) for name, root in builds.items()}
                  for _ in range(a.rounds)]
        res["by_nprocs"][str(nprocs)] = summarize(builds, rounds, a.compare)
    res["load_avg_before_after"] = [load_before, os.getloadavg()]
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
