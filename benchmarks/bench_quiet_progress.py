"""What the progress polls of the quiet data path cost (csrc/comm/bcl_quiet.h):
µs per op of rank 0's operations on a queue it hosts -- every MPI call aimed
at itself, the path that now polls MPI's progress engine every 16th op --
and of one `pybcl.progress()` (the poll itself), for two builds of pybcl
measured in the same run, rounds interleaved (the order alternating), rank 1
waiting in a barrier.

    python benchmarks/bench_quiet_progress.py --builds BEFORE_DIR AFTER_DIR
        [--labels BEFORE AFTER] [--transport rma-node] [--rounds 12] [--ops 50000]
        [--mpiexec mpiexec.mpich]

Each build dir is a checkout built in place (its pybcl/ is imported).
Prints one JSON object: per build and op the median and the minimum µs/op
over rounds, the ratio of the medians after/before, and the load average
before and after (on a shared machine, compare the two with the load).
"""
import argparse
import json
import os
import shlex
import statistics
import sys
import time

from _report import worker_result  # noqa: E402  (benchmarks/, the script's own folder)

WORKER = r"""
import json, sys, time
import pybcl
pybcl.init(segment_size="16M")
n = int(sys.argv[1])
q = pybcl.CircularQueue(0, n + 8)
out = {}

def timed(name, fn):
    pybcl.barrier()
    if pybcl.rank() == 0:
        t = time.perf_counter()
        fn()
        out[name] = (time.perf_counter() - t) / n * 1e6
    pybcl.barrier()

def progress():
    for _ in range(n):
        pybcl.progress()

def pop_empty():
    for _ in range(n):
        try:
            q.pop()
        except pybcl.Empty:
            pass

def push():
    for i in range(n):
        q.push(i)

def pop():
    for _ in range(n):
        q.pop()

for name, fn in [("progress", progress), ("pop_empty", pop_empty), ("push", push),
                 ("pop", pop)]:
    timed(name, fn)
if pybcl.rank() == 0:
    print("RESULT " + json.dumps(out), flush=True)
"""


def run(build, transport, ops, mpiexec):
    env = dict(os.environ, PYTHONPATH=build, PYBCL_TRANSPORT=transport)
    return worker_result(shlex.split(mpiexec) + ["-n", "2", sys.executable, "-c", WORKER,
                                                 str(ops)], env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builds", nargs=2, required=True, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--labels", nargs=2, default=None, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--transport", default="rma-node")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--ops", type=int, default=50000)
    ap.add_argument("--mpiexec", default="mpiexec.mpich",
                    help="launcher command, split like a shell line")
    args = ap.parse_args()
    load_before = os.getloadavg()
    samples = {b: [] for b in args.builds}
    for r in range(args.rounds):
        for b in (args.builds if r % 2 == 0 else args.builds[::-1]):
            samples[b].append(run(b, args.transport, args.ops, args.mpiexec))
    names = dict(zip(args.builds, args.labels or args.builds))
    ops = list(samples[args.builds[0]][0])
    med = {names[b]: {op: round(statistics.median(s[op] for s in samples[b]), 3)
                      for op in ops} for b in args.builds}
    low = {names[b]: {op: round(min(s[op] for s in samples[b]), 3) for op in ops}
           for b in args.builds}
    before, after = (names[b] for b in args.builds)
    print(json.dumps({
        "benchmark": "quiet_progress", "nprocs": 2, "transport": args.transport,
        "mpiexec": args.mpiexec, "rounds": args.rounds, "ops": args.ops,
        "us_per_op_median": med, "us_per_op_min": low,
        "after_over_before": {op: round(med[after][op] / med[before][op], 3) for op in ops},
        "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }, indent=1))


if __name__ == "__main__":
    main()
