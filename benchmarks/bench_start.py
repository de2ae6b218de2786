"""What starting and ending a pybcl job costs, against what NumPy and MPI
cost on their own: whole commands and the steps inside, one run.

    python benchmarks/bench_start.py [--ranks 1 2] [--repeats 7] [--out FILE.json]

For each rank count P, alternating, `repeats` times (medians kept):

  base   mpiexec -n P python -c "import numpy; from mpi4py import MPI"
  pybcl  mpiexec -n P python -c "import pybcl; pybcl.init(); pybcl.finalize()"
  steps  the same as pybcl, timing inside rank 0 (perf_counter): pybcl's import
         (NumPy's with it), init (mpi4py's import and MPI_Init with it),
         finalize, and the threads the process has after the import (a BLAS
         thread pool shows here)

"pybcl adds" is the median pybcl wall minus the median base wall.  The
machine may be shared: the load average is recorded.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import _report  # noqa: E402
import _scaling  # noqa: E402

BASE = "import numpy; from mpi4py import MPI"
PYBCL = "import pybcl; pybcl.init(); pybcl.finalize()"
STEPS = r"""
import os, time, json
t0 = time.perf_counter()
import pybcl
t1 = time.perf_counter()
threads = len(os.listdir("/proc/self/task"))
pybcl.init()
t2 = time.perf_counter()
rank = pybcl.rank()
pybcl.finalize()
t3 = time.perf_counter()
if rank == 0:
    print("STEPS " + json.dumps({"pybcl_import": t1 - t0, "init": t2 - t1,
                                 "finalize": t3 - t2, "threads_after_import": threads}))
"""


def env():
    e = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    e.pop("OPENBLAS_NUM_THREADS", None)        # what a user gets without setting it
    return e


def wall(argv):
    t = time.perf_counter()
    r = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=300)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{r.stdout}\n{r.stderr}")
    return dt, r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", metavar="FILE")
    a = ap.parse_args()
    res = {"benchmark": "start", "load_average_start": _scaling.load(), "points": []}
    for P in a.ranks:
        mpiexec = [_scaling.mpiexec(), "-n", str(P), sys.executable, "-c"]
        runs = {"base": [], "pybcl": [], "steps": []}
        for _ in range(a.repeats):
            runs["base"].append(wall(mpiexec + [BASE])[0])
            runs["pybcl"].append(wall(mpiexec + [PYBCL])[0])
            out = wall(mpiexec + [STEPS])[1]
            runs["steps"].append(json.loads(next(line[6:] for line in out.splitlines()
                                                 if line.startswith("STEPS "))))
        base = statistics.median(runs["base"])
        full = statistics.median(runs["pybcl"])
        steps = {k: round(statistics.median(s[k] for s in runs["steps"]), 4)
                 for k in runs["steps"][0]}
        res["points"].append({"ranks": P, "base_wall_s": round(base, 4),
                              "pybcl_wall_s": round(full, 4),
                              "pybcl_adds_s": round(full - base, 4), "steps_rank0_s": steps})
        print(json.dumps(res["points"][-1]), file=sys.stderr, flush=True)
    res["load_average_end"] = _scaling.load()
    _report.emit(res, a.out)


if __name__ == "__main__":
    main()
