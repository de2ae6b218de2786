"""Core ops from Python on both transports, against the raw-MPI C floor.

Runs, in one invocation and interleaved in rounds: the C floor
(benchmarks/floor/rma_floor.c: the MPI sequences the rma transport issues,
with its window set-up) and the same operations through pybcl at 2 ranks
with PYBCL_TRANSPORT=rma and =shm.  On a 2-core machine any other process
moves every figure (floor included) by up to 10x, so each ratio is taken
within a round and the median over rounds is reported.  Prints one JSON
object; targets: rma <= 1.3x its floor, shm <= 0.3x the rma floor.

    python benchmarks/bench_core.py [--ops N] [--rounds R]
"""
import statistics
import argparse
import json
import os
import subprocess
import sys
import tempfile

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)

HERE = os.path.dirname(os.path.abspath(__file__))
MPIEXEC = _mpi.mpiexec()

# pybcl op -> the floor entry measuring the same MPI sequence
FLOOR_OF = {
    "get8": "get8_flush_local",
    "put8": "put8_flush",
    "fetch_and_add": "fetch_and_op_sum_flush",
    "compare_and_swap": "compare_and_swap_flush",
    "atomic_load": "atomic_load_fao_noop_flush",
    "atomic_store": "atomic_store_acc_replace_flush",
    "pipelined_put8": "pipelined_put8_per_op",
}


def build_floor(tmpdir):
    exe = os.path.join(tmpdir, "rma_floor")
    subprocess.run([_mpi.mpicc(), "-O2", "-o", exe,
                    os.path.join(HERE, "floor", "rma_floor.c")], check=True)
    return exe


def run_floor(exe):
    out = subprocess.run([MPIEXEC, "-n", "2", exe], check=True, capture_output=True,
                         text=True).stdout
    table = json.loads(out)["target_idle_in_barrier"]
    return {k: v["us_per_op_median"] for k, v in table.items()}


def run_pybcl(transport, ops):
    env = dict(os.environ, PYBCL_TRANSPORT=transport,
               PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([MPIEXEC, "-n", "2", sys.executable,
                          os.path.join(HERE, "_core_ops.py"), str(ops)],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])["us_per_op"]


def median(xs):
    return round(statistics.median(xs), 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_floor(tmp)
        rounds = []
        for _ in range(args.rounds):
            floor = run_floor(exe)
            rounds.append({"floor": {op: floor[key] for op, key in FLOOR_OF.items()},
                           "rma": run_pybcl("rma", args.ops),
                           "shm": run_pybcl("shm", args.ops)})
    result = {"benchmark": "core ops from Python, 2 ranks, rank 0 -> rank 1 "
                           "(rank 1 waits in a barrier)",
              "rounds": args.rounds, "load_average": os.getloadavg(),
              "median_us": {}, "median_ratio": {}, "best_round_ratio": {},
              "targets": {"rma/floor": 1.3, "shm/floor": 0.3}}
    for op in FLOOR_OF:
        result["median_us"][op] = {k: median([r[k][op] for r in rounds])
                                   for k in ("floor", "rma", "shm")}
        for name in ("rma", "shm"):
            ratios = [r[name][op] / r["floor"][op] for r in rounds]
            result["median_ratio"].setdefault(op, {})[f"{name}/floor"] = median(ratios)
            result["best_round_ratio"].setdefault(op, {})[f"{name}/floor"] = round(min(ratios), 3)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
