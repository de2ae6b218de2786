"""HashMap / HashMapBuffer benchmark, 2 ranks, both transports.

    python benchmarks/bench_hashmap.py > hashmap.json

runs, in one go: the C floor of the same MPI sequences (benchmarks/floor/rma_floor.c,
built with mpicc), then this file as an MPI worker
under `mpiexec -n 2` with PYBCL_TRANSPORT=shm and =rma, and prints ONE JSON
object with the figures, the ratios to the floor and the targets,
and BCL's numbers.  Scalar ops: rank 0 works on keys owned by rank 1 while
rank 1 waits in a barrier (the floor's "target idle" set-up).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BCL = {"insert_us": 5.0, "find_us": 4.7, "find_only_us": 0.85,
       "buffer_keys_per_s_both_ranks": 7.6e6}
TARGETS = {"rma_scalar_vs_floor": 1.3, "shm_scalar_vs_rma_floor": 0.3,
           "insert_many_per_key_vs_floor": 0.3, "find_only_many_per_key_vs_floor": 0.5,
           "buffer_vs_bcl": 2.0}


def worker(n_scalar=20000, n_batch=200000):
    import numpy as np
    import pybcl

    r = pybcl.rank()
    F = pybcl.ConProm.HashMap.find
    m = pybcl.HashMap(4 * n_batch)
    out = {"transport": pybcl.transport()}
    keys = [k for k in range(20 * n_scalar) if m.owner(k) == 1][:n_scalar]

    def timed(fn):
        pybcl.barrier()
        if r == 0:
            t = time.perf_counter()
            fn()
            dt = time.perf_counter() - t
        else:
            dt = 0.0
        pybcl.barrier()
        return dt

    ins, find = m.insert, m.find
    out["insert_us"] = timed(lambda: [ins(k, k) for k in keys]) / len(keys) * 1e6
    out["find_us"] = timed(lambda: [find(k) for k in keys]) / len(keys) * 1e6
    out["find_only_us"] = timed(lambda: [find(k, None, F) for k in keys]) / len(keys) * 1e6

    rng = np.random.default_rng(1)
    bk = rng.integers(0, 2**62, n_batch)
    t = timed(lambda: m.insert_many(bk, bk))
    out["insert_many_keys_per_s"] = n_batch / t if r == 0 else 0
    t = timed(lambda: m.find_many(bk))
    out["find_many_keys_per_s"] = n_batch / t if r == 0 else 0
    t = timed(lambda: m.find_many(bk, promise=F))
    out["find_only_many_keys_per_s"] = n_batch / t if r == 0 else 0
    t = timed(lambda: m.accumulate_many(bk, 1))
    out["accumulate_many_keys_per_s"] = n_batch / t if r == 0 else 0

    # HashMapBuffer: both ranks insert their own random keys, then flush.
    m2 = pybcl.HashMap(4 * n_batch)
    mine = rng.integers(0, 2**62, n_batch // 2) + r
    pybcl.barrier()
    t0 = time.perf_counter()
    with pybcl.HashMapBuffer(m2, queue_size=n_batch, message_size=1024) as buf:
        buf.insert_many(mine, mine)
    dt = pybcl.allreduce(time.perf_counter() - t0, "max")
    out["buffer_keys_per_s_both_ranks"] = pybcl.nprocs() * len(mine) / dt
    if r == 0:
        print(json.dumps(out))


def floor():
    src = os.path.join(HERE, "floor", "rma_floor.c")
    mpicc = _mpi.mpicc()
    binary = os.path.join(tempfile.mkdtemp(), "rma_floor")
    subprocess.run([mpicc, "-O2", "-o", binary, src], check=True)
    res = subprocess.run([_mpi.mpiexec(), "-n", "2", binary, "--no-busy", "--reps", "5"],
                         check=True, capture_output=True, text=True)
    idle = json.loads(res.stdout)["target_idle_in_barrier"]
    pick = lambda name: idle[name]["us_per_op_median"]  # noqa: E731
    return {"source": os.path.relpath(src, os.path.dirname(HERE)),
            "insert_us": pick("hashmap_insert_cas_put16_flush_fao_bxor_flush"),
            "find_us": pick("hashmap_find_fao_bor_flush_get16_flush_fao_band_flush"),
            "find_only_us": pick("hashmap_find_only_get24_flush")}


def run_worker(transport):
    env = dict(os.environ, PYBCL_TRANSPORT=transport,
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([_mpi.mpiexec(), "-n", "2", sys.executable, __file__, "--worker"],
                         env=env, check=True, capture_output=True, text=True, timeout=600)
    return json.loads(res.stdout.strip().splitlines()[-1])


def ratios(t, fl):
    us = lambda kps: 1e6 / kps if kps else float("inf")  # noqa: E731
    scalar = {op: round(t[op] / fl[op], 3) for op in ("insert_us", "find_us", "find_only_us")}
    return {
        "scalar_vs_rma_floor": scalar,
        "insert_many_per_key_vs_insert_floor": round(us(t["insert_many_keys_per_s"]) / fl["insert_us"], 3),
        "find_only_many_per_key_vs_find_only_floor":
            round(us(t["find_only_many_keys_per_s"]) / fl["find_only_us"], 3),
        "buffer_vs_bcl": round(t["buffer_keys_per_s_both_ranks"] / BCL["buffer_keys_per_s_both_ranks"], 3),
        "scalar_vs_bcl": {op: round(t[op] / BCL[op], 3) for op in scalar},
    }


def main():
    load0 = os.getloadavg()[0]
    fl = floor()
    out = {"benchmark": "pybcl HashMap", "ranks": 2, "host_cores": os.cpu_count(),
           "loadavg_1min_start": load0,
           "c_floor_rma_target_idle": fl, "bcl_cpp_mpi_2_ranks": BCL, "targets": TARGETS}
    for transport in ("shm", "rma"):
        t = run_worker(transport)
        out[transport] = t
        if "error" not in fl:
            out[transport + "_ratios"] = ratios(t, fl)
    out["loadavg_1min_end"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        main()
