"""Throughput of pybcl.packb/unpackb against the msgpack package.

Prints one JSON document: for each workload, MB/s (of encoded bytes) and
objects/s for both libraries, and the pybcl/msgpack ratio (> 1 means pybcl
is faster).  Both libraries encode the same objects to identical bytes,
which is checked first.

    python benchmarks/bench_msgpack.py [--seconds 0.5]
"""
import argparse
import json
import os
import random
import time

# pybcl imports NumPy; idle OpenBLAS worker threads would steal a core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import msgpack

import pybcl


def make_workloads(seed=1):
    rng = random.Random(seed)
    bases = "ACGT"
    kmer = lambda: "".join(rng.choice(bases) for _ in range(31))  # noqa: E731
    n = 2000
    return {
        "small_ints": [rng.randrange(-100, 1000) for _ in range(n)],
        "big_ints": [rng.randrange(-2**63, 2**64) for _ in range(n)],
        "floats": [rng.random() * 1e6 for _ in range(n)],
        "short_strs": [kmer()[: rng.randrange(1, 20)] for _ in range(n)],
        "bytes": [rng.randbytes(rng.randrange(1, 64)) for _ in range(n)],
        "kmer_records": [
            {"kmer": kmer(), "count": rng.randrange(1, 500),
             "pos": [rng.randrange(10**6) for _ in range(3)],
             "score": rng.random(), "rc": rng.random() < 0.5}
            for _ in range(n // 4)
        ],
        "nested": [
            {"id": i, "tags": ["a", "bb", "ccc"],
             "meta": {"x": [1.5, None, {"y": b"\x00\x01"}], "z": -i}}
            for i in range(n // 4)
        ],
        # one call per small object: the per-call overhead containers pay
        "single_keys": list(range(n)),
    }


ROUNDS = 20


def calibrate(fn, seconds):
    """Repetitions of fn() that take about seconds/ROUNDS."""
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        if time.perf_counter() - t0 >= seconds / ROUNDS:
            return reps
        reps *= 2


def time_pair(f_a, f_b, seconds):
    """Best per-call times of f_a and f_b, measured alternately (ROUNDS
    rounds) so that load from other processes hits both alike."""
    reps = calibrate(f_a, seconds)
    best = [float("inf"), float("inf")]
    for _ in range(ROUNDS):
        for i, fn in enumerate((f_a, f_b)):
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / reps)
    return best


def count_objects(x):
    if isinstance(x, (list, tuple)):
        return 1 + sum(count_objects(v) for v in x)
    if isinstance(x, dict):
        return 1 + sum(count_objects(k) + count_objects(v)
                       for k, v in x.items())
    return 1


def bench(name, objs, seconds):
    per_call = name == "single_keys"
    ref = msgpack.packb(objs, use_bin_type=True)
    assert pybcl.packb(objs) == ref, name
    assert pybcl.unpackb(ref) == msgpack.unpackb(ref, strict_map_key=False)
    nbytes, nobj = len(ref), count_objects(objs)
    if per_call:
        encs = [msgpack.packb(o) for o in objs]
        nbytes = sum(map(len, encs))
        nobj = len(objs)
        p_mp = lambda: [msgpack.packb(o, use_bin_type=True) for o in objs]  # noqa
        p_bc = lambda: [pybcl.packb(o) for o in objs]  # noqa: E731
        u_mp = lambda: [msgpack.unpackb(e) for e in encs]  # noqa: E731
        u_bc = lambda: [pybcl.unpackb(e) for e in encs]  # noqa: E731
    else:
        p_mp = lambda: msgpack.packb(objs, use_bin_type=True)  # noqa: E731
        p_bc = lambda: pybcl.packb(objs)  # noqa: E731
        u_mp = lambda: msgpack.unpackb(ref, strict_map_key=False)  # noqa
        u_bc = lambda: pybcl.unpackb(ref)  # noqa: E731
    out = {"bytes": nbytes, "objects": nobj}
    for op, f_mp, f_bc in (("packb", p_mp, p_bc), ("unpackb", u_mp, u_bc)):
        t_mp, t_bc = time_pair(f_mp, f_bc, seconds)
        out[op] = {
            "msgpack_MBps": round(nbytes / t_mp / 1e6, 1),
            "pybcl_MBps": round(nbytes / t_bc / 1e6, 1),
            "msgpack_objps": round(nobj / t_mp),
            "pybcl_objps": round(nobj / t_bc),
            "ratio": round(t_mp / t_bc, 3),
        }
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=0.5,
                    help="approximate time per measurement")
    args = ap.parse_args()
    results = {name: bench(name, objs, args.seconds)
               for name, objs in make_workloads().items()}
    print(json.dumps({
        "msgpack_version": msgpack.version,
        "workloads": results,
        "min_ratio": {op: min(r[op]["ratio"] for r in results.values())
                      for op in ("packb", "unpackb")},
    }, indent=1))


if __name__ == "__main__":
    main()
