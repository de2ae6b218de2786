"""Core ops from Python on both transports, against the raw-MPI C floor.

Runs, in one invocation: the C floor (benchmarks/floor/rma_floor.c, the MPI
sequences the rma transport issues, with its window set-up) and the same
operations through pybcl at 2 ranks with PYBCL_TRANSPORT=rma and =shm.
Prints one JSON object with µs/op and the ratios to the floor; targets
(issue 2): rma <= 1.3x its floor, shm <= 0.3x the rma floor.

    python benchmarks/bench_core.py [--ops N]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.mpich")

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


def run_floor():
    out = subprocess.run(["sh", os.path.join(HERE, "floor", "run_floor.sh")],
                         check=True, capture_output=True, text=True).stdout
    table = json.loads(out)["configs"]["default"]["target_idle_in_barrier"]
    return {k: v["us_per_op_median"] for k, v in table.items()}


def run_pybcl(transport, ops):
    env = dict(os.environ, PYBCL_TRANSPORT=transport,
               PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([MPIEXEC, "-n", "2", sys.executable,
                          os.path.join(HERE, "_core_ops.py"), str(ops)],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])["us_per_op"]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", type=int, default=20000)
    args = ap.parse_args()
    floor = run_floor()
    result = {"benchmark": "core ops, 2 ranks, rank 0 -> rank 1", "floor_us": {},
              "rma_us": run_pybcl("rma", args.ops), "shm_us": run_pybcl("shm", args.ops),
              "ratios": {}, "targets": {"rma_vs_floor": 1.3, "shm_vs_rma_floor": 0.3}}
    for op, key in FLOOR_OF.items():
        f = floor.get(key)
        result["floor_us"][op] = f
        if f:
            result["ratios"][op] = {
                "rma/floor": round(result["rma_us"][op] / f, 2),
                "shm/floor": round(result["shm_us"][op] / f, 2)}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
