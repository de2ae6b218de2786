"""What the fault handling costs on the hot path: µs per op of the data path
(HashMap insert/find, CircularQueue push/pop) and of the collectives every
rank pays for (barrier, allreduce, HashMap.size), for two builds of pybcl
measured in the same run, rounds interleaved, medians reported.

    python benchmarks/bench_fault_overhead.py --builds BEFORE_DIR AFTER_DIR
        [--labels BEFORE AFTER] [--nprocs 2] [--transport shm] [--rounds 5] [--ops 20000]

Each build dir is a checkout built in place (its pybcl/ is imported).
Prints one JSON object: per build and op the median µs/op over rounds,
the ratio after/before, and the load average before and after.
"""
import argparse
import json
import os
import statistics
import sys
import time

from _report import worker_result  # noqa: E402  (benchmarks/, the script's own folder)

WORKER = r"""
import json, sys, time
import numpy as np
import pybcl
pybcl.init(segment_size="64M")
ops = int(sys.argv[1])
me, P = pybcl.rank(), pybcl.nprocs()
m = pybcl.HashMap(4 * ops * P)
q = pybcl.CircularQueue(0, ops * P + 8)
out = {}

def timed(name, fn, n):
    pybcl.barrier()
    t = time.perf_counter()
    fn(n)
    dt = time.perf_counter() - t
    pybcl.barrier()
    out[name] = dt / n * 1e6

def insert(n):
    for i in range(n):
        m.insert(me * n + i, i)

def find(n):
    for i in range(n):
        m.find(((me + 1) % P) * n + i)

def push(n):
    for i in range(n):
        q.push(i)

def pop(n):
    for i in range(n):
        q.pop()

def barrier(n):
    for _ in range(n):
        pybcl.barrier()

def allreduce(n):
    for _ in range(n):
        pybcl.allreduce(1)

def size(n):
    for _ in range(n):
        m.size()

timed("hashmap_insert", insert, ops)
timed("hashmap_find", find, ops)
timed("queue_push", push, ops)
timed("queue_pop", pop, ops)
timed("barrier", barrier, ops // 10)
timed("allreduce", allreduce, ops // 10)
timed("hashmap_size", size, ops // 100)
if me == 0:
    print("RESULT " + json.dumps(out), flush=True)
"""


def run(build, nprocs, transport, ops):
    env = dict(os.environ, PYTHONPATH=build, PYBCL_TRANSPORT=transport)
    return worker_result(["mpiexec.mpich", "-n", str(nprocs), sys.executable, "-c", WORKER,
                          str(ops)], env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builds", nargs=2, required=True, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--labels", nargs=2, default=None, metavar=("BEFORE", "AFTER"),
                    help="names for the two builds in the output (default: their paths)")
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--transport", default="shm")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ops", type=int, default=20000)
    args = ap.parse_args()
    load_before = os.getloadavg()
    samples = {b: [] for b in args.builds}
    for _ in range(args.rounds):
        for b in args.builds:
            samples[b].append(run(b, args.nprocs, args.transport, args.ops))
    names = dict(zip(args.builds, args.labels or args.builds))
    med = {names[b]: {op: round(statistics.median(s[op] for s in samples[b]), 3)
                      for op in samples[b][0]} for b in args.builds}
    before, after = (names[b] for b in args.builds)
    print(json.dumps({
        "benchmark": "fault_overhead", "nprocs": args.nprocs, "transport": args.transport,
        "rounds": args.rounds, "ops": args.ops, "us_per_op_median": med,
        "after_over_before": {op: round(med[after][op] / med[before][op], 3)
                              for op in med[before]},
        "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }, indent=1))


if __name__ == "__main__":
    main()
