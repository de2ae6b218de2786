"""HashMap.find_many one-sided (find-only promise) against collective=True.

    python benchmarks/bench_find_collective.py [--keys N] [--reps R] [--hosts H]
        [--out FILE]

Every rank looks up N random keys (present, owned by random ranks) in a
map of N keys a rank, at once; a run's time is the slowest rank's, best of
R repetitions.  Jobs: 2 ranks on shm and on rma (one host), and with
--hosts H (root), H network-namespace hosts, one rank each, rma over TCP
(benchmarks/_netns.py).  One-sided: a get per probe (the find-only
promise's protocol; on shm, plain loads of the mapped blocks).
Collective: keys sorted by owner, two alltoallv per round, owners read their
own blocks.  Both answers are checked against each other.  One JSON object
on stdout (and in --out), with the 1-minute load average before each job.
"""
import os
import sys
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _netns import netns_hosts  # noqa: E402
from _report import driver_parser, emit, worker_result  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(n, reps):
    import json
    import numpy as np
    import pybcl
    pybcl.init(segment_size=max(256 << 20, 96 * n))
    P, r = pybcl.nprocs(), pybcl.rank()
    rng = np.random.default_rng(r)
    mine = rng.integers(0, 1 << 62, n, dtype=np.uint64)
    m = pybcl.HashMap(4 * n * P, "uint64", "uint64")
    with pybcl.HashMapBuffer(m, min(n, 1 << 20), 4096) as buf:
        buf.insert_many(mine, mine)
    every = np.concatenate(pybcl.comm().allgather(mine))
    q = every[rng.integers(0, len(every), n)]
    times, answers = {}, {}
    for name, collective in (("one_sided", False), ("collective", True)):
        best = float("inf")
        for _ in range(reps):
            pybcl.barrier()
            t = time.perf_counter()
            v, f = m.find_many(q, promise=pybcl.ConProm.HashMap.find, collective=collective)
            dt = pybcl.allreduce(time.perf_counter() - t, "max")
            best = min(best, dt)
        times[name], answers[name] = best, (v, f)
    same = bool(answers["one_sided"][1].all() and answers["collective"][1].all() and
                (answers["one_sided"][0] == q).all() and (answers["collective"][0] == q).all())
    ok = pybcl.allreduce(1 if same else 0, "min") == 1
    if r == 0:
        print("RESULT " + json.dumps({
            "transport": pybcl.transport(), "ranks": P, "keys_per_rank": n,
            "seconds": {k: round(v, 4) for k, v in times.items()},
            "us_per_key": {k: round(v / n * 1e6, 3) for k, v in times.items()},
            "speedup_collective": round(times["one_sided"] / times["collective"], 2),
            "answers_agree": ok}), flush=True)


def run(argv, env_extra):
    env = dict(os.environ, PYTHONPATH=ROOT, **env_extra)
    load = os.getloadavg()[0]
    res = worker_result(argv, env)
    res["load_before"] = load
    return res


def main():
    ap = driver_parser(reps=3, hosts=True)
    ap.add_argument("--keys", type=int, default=200_000)
    a = ap.parse_args()
    if a.worker:
        return worker(a.keys, a.reps)
    me = [sys.executable, os.path.abspath(__file__), "--worker", "--keys", str(a.keys),
          "--reps", str(a.reps)]
    runs = [run([_mpi.mpiexec(), "-n", "2"] + me, {"PYBCL_TRANSPORT": t})
            for t in ("shm", "rma")]
    if a.hosts:
        with netns_hosts(a.hosts) as launch:
            runs.append(run(launch(per_host=1) + me, {}) | {"hosts": a.hosts})
    emit({"benchmark": "find_collective", "machine_cores": os.cpu_count(), "runs": runs},
         a.out)


if __name__ == "__main__":
    main()
