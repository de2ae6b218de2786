"""HashMap's collective views of a fixed-size map: items(), keys(), values()
against gathering pickled (key, value) tuples, the way every map is gathered
when its types are not fixed-size.

    python benchmarks/bench_hashmap_views.py [--entries 400000] [--ranks 2]
        [--reps 5] [--out FILE]

A HashMap(int64 -> int64) of --entries entries in all; every view is
collective and returns the whole map on every rank.  "pickled" is what a
view costs through local_items() + pickle + one allgather of bytes (the map
of bytes/str/object types, and every map before the array path); the views
gather local_arrays() as bytes, one allgather each, and make the list from
the arrays.  A time is the slowest rank's, the median of --reps; both give
the same pairs (checked).  One JSON object on stdout (and in --out), with
the 1-minute load average before the job.
"""
import os
import statistics
import sys
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _report import driver_parser, emit, worker_result  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worker(entries, reps):
    import json
    import pickle
    import numpy as np
    import pybcl
    from pybcl import _core
    P, r = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(4 * entries, key_type="int64", value_type="int64")
    mine = np.arange(r, entries, P)
    m.insert_many(mine, 3 * mine)
    pybcl.barrier()

    def pickled():
        m._collective_view("pickled")
        out = []
        for share in _core.allgather_bytes(pickle.dumps(m.local_items(),
                                                        protocol=pickle.HIGHEST_PROTOCOL)):
            out.extend(pickle.loads(share))
        return out

    seconds, results = {}, {}
    for name, fn in (("pickled", pickled), ("items", m.items), ("keys", m.keys),
                     ("values", m.values)):
        times = []
        for _ in range(reps):
            pybcl.barrier()
            t = time.perf_counter()
            results[name] = fn()
            times.append(pybcl.allreduce(time.perf_counter() - t, "max"))
        seconds[name] = round(statistics.median(times), 4)
    same = sorted(results["pickled"]) == sorted(results["items"]) and \
        sorted(results["keys"]) == list(range(entries))
    same = bool(pybcl.allreduce(int(same), "min"))
    if r == 0:
        print("RESULT " + json.dumps({
            "ranks": P, "transport": pybcl.transport(), "entries": entries,
            "seconds": seconds,
            "speedup_vs_pickled": {k: round(seconds["pickled"] / v, 1)
                                   for k, v in seconds.items() if k != "pickled"},
            "same_pairs": same}), flush=True)


def main():
    ap = driver_parser(reps=5)
    ap.add_argument("--entries", type=int, default=400_000)
    ap.add_argument("--ranks", type=int, default=2)
    a = ap.parse_args()
    if a.worker:
        return worker(a.entries, a.reps)
    load = os.getloadavg()[0]
    res = worker_result([_mpi.mpiexec(), "-n", str(a.ranks), sys.executable,
                         os.path.abspath(__file__), "--worker", "--entries", str(a.entries),
                         "--reps", str(a.reps)], dict(os.environ, PYTHONPATH=ROOT))
    emit({"benchmark": "hashmap_views", "machine_cores": os.cpu_count(),
          "load_before": load, "run": res}, a.out)


if __name__ == "__main__":
    main()
