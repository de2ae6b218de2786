"""ISx scaling: pybcl queues against the mpi4py Alltoallv baseline, same local phase, one run.

    python benchmarks/bench_isx_scaling.py [--keys-per-rank 4194304] [--local count,sort]
        [--transports shm,rma] [--max-ranks P] [--oversubscribe 0] [--iterations 3]
        [--repeats 1] [--out FILE.json] [--plot FILE.png]

For P = 1, 2, 4, ... up to the cores present (and `--oversubscribe`
doublings past them, marked and left out of the ratios), for each local
phase (`count`: ISx's count_local_keys histogram, the reference's own work;
`sort`: NumPy sort), runs alternately

  mpiexec -n P python -m pybcl.apps.isx --local L ...      (each transport)
  mpiexec -n P python benchmarks/isx_alltoallv.py --local L ...

ISx weak scaling: keys per rank fixed, max key 2^28.  Reported per run: the
app's seconds per timed iteration (slowest rank's mean) of every phase --
exchange (generate + bucket + push + wait; for Alltoallv generate + bucket +
Alltoall(v)), local, total -- and whether it verified; best of `repeats` by
total.  Ratios: alltoallv total / pybcl total (> 1: pybcl faster), and each
configuration's exchange time at P over its 2-rank time.  Writes JSON (with
the load average before and after every run) and a PNG of total time vs ranks.
"""
import argparse
import json
import os
import platform
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _scaling  # noqa: E402


def run_json(cmd, env_extra=None):
    with tempfile.NamedTemporaryFile(suffix=".json") as tf:
        env = _scaling.env()
        env.update(env_extra or {})
        dt, _, l0, l1 = _scaling.timed(cmd + ["--json", tf.name], environ=env)
        with open(tf.name) as fh:
            res = json.load(fh)
    return {"seconds_per_iteration": res["seconds_per_iteration"], "verified": res["verified"],
            "wall_seconds": dt, "load_before": l0, "load_after": l1}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys-per-rank", type=int, default=1 << 22)
    ap.add_argument("--local", default="count,sort")
    ap.add_argument("--transports", default="shm,rma")
    ap.add_argument("--max-ranks", type=int)
    ap.add_argument("--oversubscribe", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", metavar="FILE", default="bench_isx_scaling.json")
    ap.add_argument("--plot", metavar="FILE", default="bench_isx_scaling.png")
    a = ap.parse_args()
    mpiexec = _scaling.mpiexec()
    locals_ = a.local.split(",")
    transports = a.transports.split(",")
    res = {"benchmark": "isx_scaling", "keys_per_rank": a.keys_per_rank, "max_key": 1 << 28,
           "iterations": a.iterations, "repeats": a.repeats, "host": platform.node(),
           "cores": _scaling.cores(), "load_average_start": _scaling.load(),
           "timing": "seconds per timed iteration, slowest rank's mean, best of repeats",
           "points": []}
    common = ["--keys-per-rank", str(a.keys_per_rank), "--iterations", str(a.iterations)]
    for P, over in _scaling.rank_points(a.max_ranks, a.oversubscribe):
        pt = {"ranks": P, "oversubscribed": over, "runs": {}}
        for local in locals_:
            for _ in range(a.repeats):
                cands = [("alltoallv", [os.path.join(_scaling.HERE, "isx_alltoallv.py")], None)]
                cands += [(f"pybcl_{t}", ["-m", "pybcl.apps.isx"], {"PYBCL_TRANSPORT": t})
                          for t in transports]
                for name, args, extra in cands:
                    r = run_json([mpiexec, "-n", str(P), sys.executable] + args + common +
                                 ["--local", local], extra)
                    key = f"{name}/{local}"
                    old = pt["runs"].get(key)
                    if old is None or r["seconds_per_iteration"]["total"] < \
                            old["seconds_per_iteration"]["total"]:
                        pt["runs"][key] = r
            if not over:
                base = pt["runs"][f"alltoallv/{local}"]["seconds_per_iteration"]["total"]
                pt.setdefault("ratios_alltoallv_over_pybcl", {})
                for t in transports:
                    mine = pt["runs"][f"pybcl_{t}/{local}"]["seconds_per_iteration"]["total"]
                    pt["ratios_alltoallv_over_pybcl"][f"{t}/{local}"] = base / mine
        res["points"].append(pt)
        print(json.dumps({"ranks": P, "totals": {k: round(v["seconds_per_iteration"]["total"], 4)
                                                 for k, v in pt["runs"].items()}}),
              file=sys.stderr)
    inside = [p for p in res["points"] if not p["oversubscribed"]]
    two = next((p for p in inside if p["ranks"] == 2), None)
    if two:
        res["exchange_over_2_rank_exchange"] = {
            f"{p['ranks']}": {k: v["seconds_per_iteration"]["exchange"] /
                              two["runs"][k]["seconds_per_iteration"]["exchange"]
                              for k, v in p["runs"].items()} for p in inside}
    res["all_verified"] = all(r["verified"] for p in res["points"] for r in p["runs"].values())
    res["load_average_end"] = _scaling.load()
    text = json.dumps(res, indent=1)
    with open(a.out, "w") as fh:
        fh.write(text + "\n")
    if a.plot:
        names = sorted({k for p in res["points"] for k in p["runs"]})
        _scaling.plot(a.plot, f"ISx weak scaling, {a.keys_per_rank:,} keys/rank "
                      f"(load avg at start {res['load_average_start'][0]})", res["points"],
                      [(n, (lambda n: lambda pt: pt["runs"][n]["seconds_per_iteration"]["total"]
                            if n in pt["runs"] else None)(n)) for n in names],
                      ylabel="seconds per iteration")
    print(text)
    return 0 if res["all_verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
