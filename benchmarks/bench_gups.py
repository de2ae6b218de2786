"""GUPS (HPCC RandomAccess): pybcl's modes against HPCC's MPIRandomAccess and a raw
MPI_Accumulate(MPI_BXOR) loop, one run.

    python benchmarks/bench_gups.py [--ranks 1,2,4] [--transports shm,rma]
        [--log2-size N] [--atomic-updates-per-rank U] [--batch 1024] [--repeats 3]
        [--launcher "mpiexec.mpich"] [--hpcc-launcher "mpirun.openmpi --oversubscribe"]
        [--hpcc-n 2000] [--no-hpcc] [--out FILE.json]

For each P (ranks past the cores are marked oversubscribed):

- HPCC's own ``MPIRandomAccess`` (Debian package ``hpcc``, built on Open MPI;
  run with ``--hpcc-launcher``, default ``mpirun.openmpi --oversubscribe``,
  root allowed) in a scratch folder with an ``hpccinf.txt`` whose HPL size
  ``--hpcc-n`` keeps HPL tiny; its table size (2^N words in all) and GUP/s
  are parsed from ``hpccoutf.txt``.  HPCC runs its whole suite; only the
  MPIRandomAccess figure is used.  Skipped (and said so) without the binary.
- ``python -m pybcl.apps.gups`` on the same 2^N-word table (``--log2-size``,
  default: HPCC's at that P, else 20), on every transport, in three modes:
  ``buffer`` (DArrayBuffer, ``--batch`` updates per message), ``update_many``
  (``--no-buffer``) -- both with HPCC's 4 * 2^N updates in all -- and
  ``atomic`` (``--batch 1``) with ``--atomic-updates-per-rank`` updates per
  rank (the rate, not the count, is compared: one atomic per update is slow).
- ``benchmarks/floor/gups_floor.c`` (built with mpicc.mpich here): the raw
  MPI floor of the atomic mode, the same updates per rank.

Every pybcl/floor run is repeated ``--repeats`` times, alternating, and the
median reported; the load average before and after each run is kept.  All
jobs start with ``--launcher`` followed by ``-n P`` (for several hosts pass
e.g. ``"mpiexec.mpich -hosts h1,h2,h3"``).  Ratios at each P:
``buffer_over_hpcc`` (pybcl buffer GUP/s per transport over HPCC's),
``buffer_over_atomic`` (per transport), and ``atomic_rma_over_floor``
(seconds per update of pybcl's atomic mode on rma over the floor's; goal
<= 1.3).  Exit status 1 if any run failed to verify.
"""
import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _scaling  # noqa: E402
from _report import emit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HPCC_TEMPLATE = "/usr/share/doc/hpcc/examples/_hpccinf.txt"


def run_pybcl(launcher, P, transport, log2, upr, batch, no_buffer):
    with tempfile.NamedTemporaryFile(suffix=".json") as tf:
        cmd = launcher + ["-n", str(P), sys.executable, "-m", "pybcl.apps.gups",
                          "--log2-size", str(log2), "--updates-per-rank", str(upr),
                          "--batch", str(batch), "--json", tf.name]
        if no_buffer:
            cmd.append("--no-buffer")
        env = _scaling.env()
        env["PYBCL_TRANSPORT"] = transport
        dt, proc, l0, l1 = _scaling.timed(cmd, environ=env)
        if proc.returncode != 0:
            return {"failed": proc.returncode, "stderr": proc.stderr[-2000:]}
        with open(tf.name) as fh:
            res = json.load(fh)
    res.update(wall_seconds=dt, load_before=l0, load_after=l1)
    return res


def build_floor(workdir):
    exe = os.path.join(workdir, "gups_floor")
    subprocess.run(["mpicc.mpich", "-O2", "-Wall", "-o", exe,
                    os.path.join(HERE, "floor", "gups_floor.c")], check=True)
    return exe


def run_floor(launcher, P, exe, log2, upr):
    cmd = launcher + ["-n", str(P), exe, "--log2-size", str(log2),
                      "--updates-per-rank", str(upr)]
    dt, proc, l0, l1 = _scaling.timed(cmd)
    if proc.returncode != 0:
        return {"failed": proc.returncode, "stderr": proc.stderr[-2000:]}
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res.update(wall_seconds=dt, load_before=l0, load_after=l1,
               verified=res["errors"] == 0)
    return res


def hpcc_grid(P):
    """HPL process grid p x q with p <= q, p * q = P."""
    p = int(P ** 0.5)
    while P % p:
        p -= 1
    return p, P // p


def run_hpcc(hpcc_launcher, P, n, workdir):
    d = tempfile.mkdtemp(prefix=f"hpcc{P}_", dir=workdir)
    p, q = hpcc_grid(P)
    with open(HPCC_TEMPLATE) as fh:
        lines = fh.read().splitlines()
    lines[5] = f"{n:<13d}Ns"
    lines[10] = f"{p:<13d}Ps"
    lines[11] = f"{q:<13d}Qs"
    with open(os.path.join(d, "hpccinf.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    before = _scaling.load()
    proc = subprocess.run(hpcc_launcher + ["-np", str(P), shutil.which("hpcc")], cwd=d,
                          env=env, capture_output=True, text=True, timeout=1800)
    after = _scaling.load()
    try:
        with open(os.path.join(d, "hpccoutf.txt")) as fh:
            out = fh.read()
    except OSError:
        return {"failed": proc.returncode, "stderr": proc.stderr[-2000:]}
    sec = out[out.find("Begin of MPIRandomAccess section."):
              out.find("End of MPIRandomAccess section.")]
    size = re.search(r"Total Main table size = 2\^(\d+)", sec)
    gups = re.search(r"([0-9.eE+-]+) Billion\(10\^9\) Updates    per second", sec)
    upd = re.search(r"Number of updates EXECUTED = (\d+)", sec)
    ok = re.search(r"MPIRandomAccess_ErrorsFraction=([0-9.eE+-]+)", out)
    if not (size and gups):
        return {"failed": proc.returncode, "stderr": (proc.stderr + sec)[-2000:]}
    return {"log2_size": int(size.group(1)), "gups": float(gups.group(1)),
            "updates": int(upd.group(1)) if upd else None,
            "errors_fraction": float(ok.group(1)) if ok else None,
            "hpl_n": n, "grid": [p, q], "load_before": before, "load_after": after}


def median_of(runs, key):
    vals = [r[key] for r in runs if "failed" not in r]
    return statistics.median(vals) if vals else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--transports", default="shm,rma")
    ap.add_argument("--log2-size", type=int)
    ap.add_argument("--atomic-updates-per-rank", type=int, default=1 << 17)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--launcher", default=_scaling.mpiexec())
    ap.add_argument("--hpcc-launcher", default="mpirun.openmpi --oversubscribe")
    ap.add_argument("--hpcc-n", type=int, default=2000)
    ap.add_argument("--no-hpcc", action="store_true")
    ap.add_argument("--out", metavar="FILE", default="bench_gups.json")
    a = ap.parse_args()
    launcher = shlex.split(a.launcher)
    hpcc_launcher = shlex.split(a.hpcc_launcher)
    have_hpcc = not a.no_hpcc and shutil.which("hpcc") and shutil.which(hpcc_launcher[0])
    work = tempfile.mkdtemp(prefix="bench_gups_")
    floor = build_floor(work)
    transports = a.transports.split(",")
    res = {"benchmark": "gups", "host": platform.node(), "cores": _scaling.cores(),
           "launcher": a.launcher, "batch": a.batch, "repeats": a.repeats,
           "atomic_updates_per_rank": a.atomic_updates_per_rank,
           "hpcc": "MPIRandomAccess of Debian's hpcc" if have_hpcc else
                   "not run (no hpcc binary or launcher, or --no-hpcc)",
           "load_average_start": _scaling.load(),
           "timing": "median of repeats; gups = 1e9 updates/s over all ranks",
           "points": []}
    for P in (int(x) for x in a.ranks.split(",")):
        pt = {"ranks": P, "oversubscribed": P > _scaling.cores(), "runs": {}}
        if have_hpcc:
            pt["hpcc"] = run_hpcc(hpcc_launcher, P, a.hpcc_n, work)
        log2 = a.log2_size or pt.get("hpcc", {}).get("log2_size") or 20
        pt["log2_size"] = log2
        full = 4 * (1 << log2) // P
        runs = {}
        for _ in range(a.repeats):
            runs.setdefault("floor", []).append(
                run_floor(launcher, P, floor, log2, a.atomic_updates_per_rank))
            for t in transports:
                for mode, batch, upr, nob in (("buffer", a.batch, full, False),
                                              ("update_many", a.batch, full, True),
                                              ("atomic", 1, a.atomic_updates_per_rank, False)):
                    runs.setdefault(f"{mode}/{t}", []).append(
                        run_pybcl(launcher, P, t, log2, upr, batch, nob))
        for k, rs in runs.items():
            pt["runs"][k] = {"gups": median_of(rs, "gups"), "seconds": median_of(rs, "seconds"),
                             "updates": rs[0].get("updates"),
                             "verified": all(r.get("verified") for r in rs),
                             "samples": [{x: r.get(x) for x in ("gups", "seconds", "load_before")}
                                         for r in rs]}
        r = pt["runs"]
        ratios = {}
        for t in transports:
            b, at = r[f"buffer/{t}"]["gups"], r[f"atomic/{t}"]["gups"]
            if b and at:
                ratios[f"buffer_over_atomic/{t}"] = b / at
            h = pt.get("hpcc", {}).get("gups")
            if b and h:
                ratios[f"buffer_over_hpcc/{t}"] = b / h
        if "atomic/rma" in r and r["atomic/rma"]["seconds"] and r["floor"]["seconds"]:
            ratios["atomic_rma_over_floor"] = r["atomic/rma"]["seconds"] / r["floor"]["seconds"]
        pt["ratios"] = ratios
        res["points"].append(pt)
        print(json.dumps({"ranks": P, "gups": {k: v["gups"] for k, v in r.items()},
                          "hpcc": pt.get("hpcc", {}).get("gups"), "ratios": ratios}),
              file=sys.stderr)
    res["all_verified"] = all(v["verified"] for p in res["points"] for v in p["runs"].values())
    res["load_average_end"] = _scaling.load()
    emit(res, a.out)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if res["all_verified"] else 1


if __name__ == "__main__":
    sys.exit(main())
