"""ISx scaling: pybcl queues against the mpi4py Alltoallv baseline and the ISx reference, one run.

    python benchmarks/bench_isx_scaling.py [--keys-per-rank 4194304] [--local count,sort]
        [--transports shm,rma] [--max-ranks P] [--oversubscribe 0] [--iterations 3]
        [--repeats 1] [--isx-ref SRC] [--launcher "mpiexec.mpich"]
        [--out FILE.json] [--plot FILE.png]

For P = 1, 2, 4, ... up to the cores present (and `--oversubscribe`
doublings past them, marked and left out of the ratios), for each local
phase (`count`: ISx's count_local_keys histogram, the reference's own work;
`sort`: NumPy sort), runs alternately

  mpiexec -n P python -m pybcl.apps.isx --local L ...      (each transport)
  mpiexec -n P python benchmarks/isx_alltoallv.py --local L ...

and, with ``--isx-ref SRC`` (or $ISX_REF_SRC): a checkout of the ISx
reference (github.com/ParRes/ISx; SRC or SRC/MPI holds its MPI code),
copied to a scratch folder and built there with mpicc.mpich at benchmark
time (nothing of it enters this repository), for the count phase only:

  mpiexec -n P <scratch>/bin/isx.weak KEYS_PER_RANK ITERATIONS LOGFILE

-- the same keys per rank (PCG32 seeded with the rank, max key 2^28, one
burn-in iteration) and the same local phase (its count_local_keys), so
pybcl's ``--local count`` faces the reference's own exchange and count.
Its figure is the "Average total time (per PE)" it prints (mean over ranks
of the per-iteration total, MPI_Alltoallv exchange included); ratio
``isx_ref_over_pybcl`` (> 1: pybcl faster).  Every job starts with
``--launcher`` followed by ``-n P``.

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
import re
import shlex
import shutil
import subprocess
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


def build_isx_ref(src, workdir):
    """Copy the ISx reference's MPI code to workdir and build isx.weak there."""
    mdir = os.path.join(src, "MPI") if os.path.isdir(os.path.join(src, "MPI")) else src
    out = os.path.join(workdir, "isx-ref")
    shutil.copytree(mdir, out, ignore=shutil.ignore_patterns("obj", "bin"))
    # its Makefile's -std=c99 hides struct timespec: gnu99 + POSIX
    subprocess.run(["make", "-s", "-C", out, "CC=mpicc.mpich",
                    "CFLAGS=-O3 -DNDEBUG -std=gnu99 -D_POSIX_C_SOURCE=200809L", "all"],
                   check=True, capture_output=True)
    return os.path.join(out, "bin", "isx.weak")


def run_isx_ref(launcher, P, exe, keys, iterations, workdir):
    log = os.path.join(tempfile.mkdtemp(dir=workdir), "isx.log")
    dt, proc, l0, l1 = _scaling.timed(launcher + ["-n", str(P), exe, str(keys),
                                                  str(iterations), log])
    total = re.search(r"Average total time \(per PE\): ([0-9.eE+-]+)", proc.stdout)
    a2a = re.search(r"Average all2all time \(per PE\): ([0-9.eE+-]+)", proc.stdout)
    if not total:
        raise SystemExit(f"ISx reference printed no total time:\n{proc.stdout}")
    return {"seconds_per_iteration": {"total": float(total.group(1)),
                                      "exchange": float(a2a.group(1)) if a2a else None},
            "verified": True,   # it exits non-zero (timed() raises) on a failed check
            "timing": "ISx's Average total time (per PE)",
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
    ap.add_argument("--isx-ref", metavar="SRC", default=os.environ.get("ISX_REF_SRC"),
                    help="ISx reference checkout (default $ISX_REF_SRC; none: not run)")
    ap.add_argument("--launcher", default=_scaling.mpiexec())
    a = ap.parse_args()
    launcher = shlex.split(a.launcher)
    work = tempfile.mkdtemp(prefix="bench_isx_")
    isx_ref = build_isx_ref(a.isx_ref, work) if a.isx_ref else None
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
                    r = run_json(launcher + ["-n", str(P), sys.executable] + args + common +
                                 ["--local", local], extra)
                    key = f"{name}/{local}"
                    old = pt["runs"].get(key)
                    if old is None or r["seconds_per_iteration"]["total"] < \
                            old["seconds_per_iteration"]["total"]:
                        pt["runs"][key] = r
                if isx_ref and local == "count":
                    r = run_isx_ref(launcher, P, isx_ref, a.keys_per_rank, a.iterations, work)
                    old = pt["runs"].get("isx_ref/count")
                    if old is None or r["seconds_per_iteration"]["total"] < \
                            old["seconds_per_iteration"]["total"]:
                        pt["runs"]["isx_ref/count"] = r
            if not over:
                base = pt["runs"][f"alltoallv/{local}"]["seconds_per_iteration"]["total"]
                pt.setdefault("ratios_alltoallv_over_pybcl", {})
                for t in transports:
                    mine = pt["runs"][f"pybcl_{t}/{local}"]["seconds_per_iteration"]["total"]
                    pt["ratios_alltoallv_over_pybcl"][f"{t}/{local}"] = base / mine
                    if isx_ref and local == "count":
                        ref = pt["runs"]["isx_ref/count"]["seconds_per_iteration"]["total"]
                        pt.setdefault("ratios_isx_ref_over_pybcl", {})[f"{t}/count"] = ref / mine
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
                              for k, v in p["runs"].items()
                              if v["seconds_per_iteration"].get("exchange") and k in two["runs"]
                              and two["runs"][k]["seconds_per_iteration"].get("exchange")}
            for p in inside}
    res["all_verified"] = all(r["verified"] for p in res["points"] for r in p["runs"].values())
    res["load_average_end"] = _scaling.load()
    res["isx_ref"] = ("ISx reference (MPI) built from " + a.isx_ref) if isx_ref else "not run"
    shutil.rmtree(work, ignore_errors=True)
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
