"""The hash map's probe cost as it fills: compact (linear probing, 16-byte
buckets) against the classic layout (status word, triangular probing), one
run, one rank.

    python benchmarks/bench_hashmap_load.py [--log2-buckets 23] [--reps 3] [--out F.json]

For each load (0.5, 0.7, 0.8, 0.85) and layout (PYBCL_HASHMAP_LAYOUT, a
job each), a uint64 -> int64 map of 2^N buckets is filled through a
HashMapBuffer (the owner-side bulk apply, as the k-mer app fills it) with
random keys up to the load, and then timed, median of the repetitions,
per key:
  insert  the last 10 % of the keys (new keys, applied at about that load)
  hit     an accumulate of every key again (the bulk apply finding them)
  find    find_many of every key under the find-only promise (plain loads)
  miss    find_many of as many absent keys (a lookup that ends at a free bucket)
The figures are ns per key of the whole call (the buffer's flush for the
first two) in CPU time of the process (time.process_time: on this shared
machine wall time counts other jobs' time slices too); the load average is
recorded.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import _report  # noqa: E402

LOADS = (0.5, 0.7, 0.8, 0.85)


def worker(log2, reps):
    import numpy as np
    import pybcl

    F = pybcl.ConProm.HashMap.find
    out = {"layout": os.environ.get("PYBCL_HASHMAP_LAYOUT", "compact"), "loads": {}}
    n = 1 << log2
    rng = np.random.default_rng(7)
    pool = np.unique(rng.integers(1, 2**63, int(n * 1.2), dtype=np.uint64))
    rng.shuffle(pool)
    absent = pool[int(n * 0.9):int(n * 0.9) + n // 4]

    def flush_time(m, keys):
        with pybcl.HashMapBuffer(m, 1 << 20, 1 << 14) as buf:
            buf.accumulate_many(keys)
            t = time.process_time()
        return time.process_time() - t

    for load in LOADS:
        runs = {"insert": [], "hit": [], "find": [], "miss": []}
        for _ in range(reps):
            m = pybcl.HashMap(n, "uint64", "int64")
            keys = pool[:int(n * load)]
            head, tail = keys[:int(len(keys) * 0.9)], keys[int(len(keys) * 0.9):]
            flush_time(m, head)
            runs["insert"].append(flush_time(m, tail) / len(tail))
            runs["hit"].append(flush_time(m, keys) / len(keys))
            t = time.process_time()
            m.find_many(keys, promise=F)
            runs["find"].append((time.process_time() - t) / len(keys))
            t = time.process_time()
            m.find_many(absent, promise=F)
            runs["miss"].append((time.process_time() - t) / len(absent))
            m.close()
        out["loads"][str(load)] = {k: round(float(np.median(v)) * 1e9, 1)
                                   for k, v in runs.items()}
    print("RESULT " + json.dumps(out), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2-buckets", type=int, default=23)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--worker", action="store_true")
    a = ap.parse_args()
    if a.worker:
        return worker(a.log2_buckets, a.reps)
    res = {"benchmark": "hashmap_load", "buckets": 1 << a.log2_buckets, "ranks": 1,
           "unit": "ns of CPU time per key", "load_average_start": [round(x, 2) for x in os.getloadavg()],
           "layouts": {}}
    for layout in ("compact", "classic"):
        env = dict(os.environ, PYBCL_HASHMAP_LAYOUT=layout, OPENBLAS_NUM_THREADS="1",
                   PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        r = _report.worker_result([sys.executable, os.path.abspath(__file__), "--worker",
                                   "--log2-buckets", str(a.log2_buckets), "--reps",
                                   str(a.reps)], env, timeout=1800)
        res["layouts"][layout] = r["loads"]
    res["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    _report.emit(res, a.out)


if __name__ == "__main__":
    main()
