"""ISx on pybcl queues against the mpi4py Alltoallv baseline, same run.

    python benchmarks/bench_isx.py [--ranks 2] [--keys-per-rank 4194304]
        [--iterations 5] [--repeats 3] [--out FILE]

Launches `python -m pybcl.apps.isx` and `benchmarks/isx_alltoallv.py` under
mpiexec (alternating, `repeats` times each, best run kept), on the default
transport and on rma.  Prints one JSON document: keys/s (total keys of all
ranks / seconds per timed iteration of the slowest rank) for both, per-phase
seconds, and pybcl/alltoallv (> 1 means pybcl is faster).  Both sort the
same keys (ISx's PCG32 stream) and both verify.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _report import emit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def launch(args, ranks, env_extra=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(env_extra or {})
    mpiexec = _mpi.mpiexec()
    with tempfile.NamedTemporaryFile(suffix=".json") as tf:
        r = subprocess.run([mpiexec, "-n", str(ranks), sys.executable] + args +
                           ["--json", tf.name], env=env, capture_output=True, text=True,
                           timeout=900)
        if r.returncode != 0:
            raise SystemExit(f"failed: {' '.join(args)}\n{r.stdout}\n{r.stderr}")
        with open(tf.name) as fh:
            return json.load(fh)


def best(runs):
    return max(runs, key=lambda r: r["keys_per_s"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--keys-per-rank", type=int, default=1 << 22)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--transports", default="auto,rma")
    ap.add_argument("--out", metavar="FILE")
    a = ap.parse_args()
    common = ["--keys-per-rank", str(a.keys_per_rank), "--iterations", str(a.iterations)]
    result = {"benchmark": "isx", "ranks": a.ranks, "keys_per_rank": a.keys_per_rank,
              "iterations": a.iterations, "repeats": a.repeats, "runs": {}}
    base_runs, runs = [], {t: [] for t in a.transports.split(",")}
    for _ in range(a.repeats):
        base_runs.append(launch([os.path.join(HERE, "isx_alltoallv.py")] + common, a.ranks))
        for t in runs:
            runs[t].append(launch(["-m", "pybcl.apps.isx"] + common, a.ranks,
                                  {"PYBCL_TRANSPORT": t}))
    base = best(base_runs)
    result["alltoallv"] = {"keys_per_s": base["keys_per_s"],
                           "seconds_per_iteration": base["seconds_per_iteration"],
                           "verified": base["verified"],
                           "all_keys_per_s": [r["keys_per_s"] for r in base_runs]}
    for t, rs in runs.items():
        b = best(rs)
        result["runs"][f"pybcl_{b['transport']}"] = {
            "keys_per_s": b["keys_per_s"], "seconds_per_iteration": b["seconds_per_iteration"],
            "verified": b["verified"], "queue": b["queue"], "message_size": b["message_size"],
            "all_keys_per_s": [r["keys_per_s"] for r in rs],
            "ratio_vs_alltoallv": b["keys_per_s"] / base["keys_per_s"]}
    emit(result, a.out)


if __name__ == "__main__":
    main()
