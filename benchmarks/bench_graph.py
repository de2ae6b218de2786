"""Graph500 BFS and PageRank on pybcl against the Graph500 MPI reference,
SciPy and an mpi4py Alltoallv version, one run.

    python benchmarks/bench_graph.py [--scale 20] [--ranks 1,2,4]
        [--transports shm] [--roots 64] [--iterations 20] [--repeats 1]
        [--g500-ref SRC] [--g500-skip-validation] [--ref-timeout 3600]
        [--only bfs|pagerank] [--launcher "mpiexec.mpich"] [--out FILE.json]
        [--plot FILE.png]

The machine may be shared, so the 1-minute load average before and after
every run goes into the JSON beside its figures.

BFS, at each rank count P (powers of two: the reference needs them; P above
the cores is marked oversubscribed and left out of the goals):

  mpiexec -n P python -m pybcl.apps.bfs --scale S --roots N     (each transport)
  mpiexec -n P <scratch>/graph500_reference_bfs S 16            (with --g500-ref)

``--g500-ref SRC`` (or $G500_REF_SRC) is a checkout of
github.com/graph500/graph500 (version 3: SRC/src, SRC/aml, SRC/generator),
copied to a scratch folder and built there with mpicc.mpich
(``make graph500_reference_bfs``, its own flags plus ``-fcommon``, which
GCC 10 and newer need for its tentative definitions); nothing of it enters
this repository.  Both generate a scale-S Kronecker graph with edgefactor 16
(each its own generator and seed), build it (kernel 1), and time 64 searches
from random roots, each validated.  Figures: the harmonic mean of TEPS and
its min/median/max over the searches, as each program prints them.  (The
reference counts a search's edges without self-loops, pybcl with them, as
the specification's driver does: about 1 in 10^4 of the edges at scale 20.)
Ratio ``pybcl_over_ref`` > 1: pybcl's harmonic-mean TEPS is higher.  A
reference run longer than ``--ref-timeout`` seconds (oversubscribed, its
ranks poll for messages and take turns on the cores) is killed and recorded
as ``timed_out``.  The JSON is rewritten after every rank count.

PageRank, the same Kronecker graph (the pybcl generator, seed 1) and
iteration count:

  python benchmarks/pagerank_scipy.py --scale S          (one core, SciPy CSR A @ x)
  mpiexec -n P python -m pybcl.apps.pagerank --scale S   (each transport)
  mpiexec -n P python benchmarks/pagerank_alltoallv.py --scale S

Figure: seconds per iteration (the slowest rank's; setup excluded for all).
Ratios ``scipy_over_pybcl`` and ``alltoallv_over_pybcl`` > 1: pybcl is
faster.  Every rank vector is compared with SciPy's (L1 distance).

Best of ``--repeats`` (highest TEPS, lowest seconds), competitors run
alternately.  Writes JSON and a PNG (TEPS vs ranks; PageRank seconds per
iteration vs ranks).  Exit status 1 if a search failed validation or a rank
vector differs from SciPy's by more than 1e-10 in L1.
"""
import argparse
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _mpi  # noqa: E402
import _scaling  # noqa: E402

L1_LIMIT = 1e-10
REF_CFLAGS = ("-Drestrict=__restrict__ -O3 -DGRAPH_GENERATOR_MPI "
              "-DREUSE_CSR_FOR_VALIDATION -I../aml -fcommon")


def build_g500_ref(src, work):
    """Copy the reference's sources to `work` and build graph500_reference_bfs there."""
    for part in ("src", "aml", "generator"):
        if not os.path.isdir(os.path.join(src, part)):
            raise SystemExit(f"--g500-ref {src}: no {part}/ folder (a graph500 v3 checkout?)")
        shutil.copytree(os.path.join(src, part), os.path.join(work, part))
    proc = subprocess.run(["make", "-C", os.path.join(work, "src"), f"MPICC={_mpi.mpicc()}",
                           f"CFLAGS={REF_CFLAGS}", "graph500_reference_bfs"],
                          capture_output=True, text=True)
    exe = os.path.join(work, "src", "graph500_reference_bfs")
    if proc.returncode != 0 or not os.path.exists(exe):
        raise SystemExit(f"building the Graph500 reference failed:\n{proc.stdout}\n{proc.stderr}")
    return exe


_REF_FIELD = re.compile(r"^(?P<key>[A-Za-z0-9_ ]+?):\s*!?\s*(?P<value>[-+0-9.eE]+)\s*$")


def parse_g500_output(text):
    """The reference's statistics block as {key: float} (keys as printed,
    inner blanks squeezed: 'bfs harmonic_mean_TEPS'); {} for an invalid run."""
    out = {}
    for line in text.splitlines():
        m = _REF_FIELD.match(line.strip())
        if m:
            out[" ".join(m.group("key").split())] = float(m.group("value"))
    return out


def timed(cmd, environ, timeout):
    """(wall seconds, stdout, load before, after) of a command, or None for
    the stdout when it ran past `timeout` (the whole job is killed then: an
    oversubscribed busy-polling MPI program can take hours)."""
    before = _scaling.load()
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return time.perf_counter() - t, None, before, _scaling.load()
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{out}\n{err}")
    return time.perf_counter() - t, out, before, _scaling.load()


def run_g500_ref(launcher, P, exe, scale, skip_validation, timeout):
    environ = _scaling.env()
    if skip_validation:
        environ["SKIP_VALIDATION"] = "1"
    dt, out, l0, l1 = timed(launcher + ["-n", str(P), exe, str(scale), "16"], environ, timeout)
    if out is None:
        return {"timed_out": True, "timeout_s": timeout, "teps_harmonic_mean": None,
                "validated": False, "validation_run": False, "wall_seconds": dt,
                "load_before": l0, "load_after": l1}
    f = parse_g500_output(out)
    valid = "bfs harmonic_mean_TEPS" in f and "invalid run" not in out
    return {"teps_harmonic_mean": f.get("bfs harmonic_mean_TEPS"),
            "teps_min": f.get("bfs min_TEPS"), "teps_median": f.get("bfs median_TEPS"),
            "teps_max": f.get("bfs max_TEPS"), "bfs_mean_time": f.get("bfs mean_time"),
            "construction_s": f.get("construction_time"), "nbfs": f.get("NBFS"),
            "validated": valid and not skip_validation, "validation_run": not skip_validation,
            "wall_seconds": dt, "load_before": l0, "load_after": l1}


def run_app_json(cmd, transport=None):
    """Run a command that takes --json FILE; (its figures, wall s, loads)."""
    environ = _scaling.env()
    if transport:
        environ["PYBCL_TRANSPORT"] = transport
    with tempfile.NamedTemporaryFile(suffix=".json") as tf:
        dt, _, l0, l1 = _scaling.timed(cmd + ["--json", tf.name], environ=environ, timeout=3600)
        with open(tf.name) as fh:
            res = json.load(fh)
    return res, {"wall_seconds": dt, "load_before": l0, "load_after": l1}


def run_pybcl_bfs(launcher, P, transport, scale, roots):
    res, meta = run_app_json(launcher + ["-n", str(P), sys.executable, "-m", "pybcl.apps.bfs",
                                         "--scale", str(scale), "--roots", str(roots)],
                             transport)
    keep = ("teps_harmonic_mean", "teps_harmonic_stddev", "teps_min", "teps_median",
            "teps_max", "construction_s", "generation_s", "validated", "nbfs", "transport")
    out = {k: res[k] for k in keep}
    out["bfs_mean_time"] = res["time"]["mean"]
    out["bfs_seconds"] = res["bfs_seconds"]
    out.update(meta)
    return out


def run_pagerank(cmd, transport, vector_path):
    res, meta = run_app_json(cmd + ["--out", vector_path], transport)
    keep = ("seconds_per_iteration", "iterations_s", "setup_s", "rank_sum")
    out = {k: res[k] for k in keep}
    out.update(meta)
    return out


def best(old, new, key, higher):
    if old is None or new.get(key) is None:
        return new if old is None else old
    if old.get(key) is None:
        return new
    return new if (new[key] > old[key]) == higher else old


def bfs_points(a, launcher, transports, ref_exe, save):
    """Every rank count's runs; save(points so far) after each run."""
    points = []
    for P in a.ranks:
        over = P > _scaling.cores()
        pt = {"ranks": P, "oversubscribed": over, "runs": {}}
        for rep in range(a.repeats):
            order = [("ref", None)] if ref_exe else []
            order += [("pybcl", t) for t in transports]
            if rep % 2:
                order.reverse()
            for kind, t in order:
                if kind == "ref":
                    r = run_g500_ref(launcher, P, ref_exe, a.scale, a.g500_skip_validation,
                                     a.ref_timeout)
                    pt["runs"]["graph500_ref"] = best(pt["runs"].get("graph500_ref"), r,
                                                      "teps_harmonic_mean", True)
                else:
                    r = run_pybcl_bfs(launcher, P, t, a.scale, a.roots)
                    name = f"pybcl_{t}"
                    pt["runs"][name] = best(pt["runs"].get(name), r, "teps_harmonic_mean", True)
        ref = pt["runs"].get("graph500_ref", {}).get("teps_harmonic_mean")
        if ref:
            pt["pybcl_over_ref"] = {t: pt["runs"][f"pybcl_{t}"]["teps_harmonic_mean"] / ref
                                    for t in transports}
        save(points + [pt])
        print(json.dumps({"bfs_ranks": P, "teps_harmonic_mean": {
            k: v.get("teps_harmonic_mean") for k, v in pt["runs"].items()}}), file=sys.stderr)
        points.append(pt)
    return points


def l1(path_a, path_b):
    return float(np.abs(np.load(path_a) - np.load(path_b)).sum())


def pagerank_part(a, launcher, transports, work):
    here = _scaling.HERE
    common = ["--scale", str(a.scale), "--iterations", str(a.iterations)]
    scipy_vec = os.path.join(work, "scipy.npy")
    scipy_run = None
    for _ in range(a.repeats):
        r = run_pagerank([sys.executable, os.path.join(here, "pagerank_scipy.py")] + common,
                         None, scipy_vec)
        scipy_run = best(scipy_run, r, "seconds_per_iteration", False)
    points = []
    for P in a.ranks:
        pt = {"ranks": P, "oversubscribed": P > _scaling.cores(), "runs": {}, "l1_vs_scipy": {}}
        for rep in range(a.repeats):
            order = [("alltoallv", None)] + [("pybcl", t) for t in transports]
            if rep % 2:
                order.reverse()
            for kind, t in order:
                name = "alltoallv" if kind == "alltoallv" else f"pybcl_{t}"
                vec = os.path.join(work, f"{name}_{P}.npy")
                cmd = launcher + ["-n", str(P), sys.executable]
                cmd += ([os.path.join(here, "pagerank_alltoallv.py")] if kind == "alltoallv"
                        else ["-m", "pybcl.apps.pagerank"]) + common
                r = run_pagerank(cmd, t, vec)
                pt["runs"][name] = best(pt["runs"].get(name), r, "seconds_per_iteration", False)
                pt["l1_vs_scipy"][name] = max(pt["l1_vs_scipy"].get(name, 0.0),
                                              l1(vec, scipy_vec))
        mine = {t: pt["runs"][f"pybcl_{t}"]["seconds_per_iteration"] for t in transports}
        pt["scipy_over_pybcl"] = {t: scipy_run["seconds_per_iteration"] / s
                                  for t, s in mine.items()}
        pt["alltoallv_over_pybcl"] = {
            t: pt["runs"]["alltoallv"]["seconds_per_iteration"] / s for t, s in mine.items()}
        print(json.dumps({"pagerank_ranks": P, "seconds_per_iteration": {
            k: v["seconds_per_iteration"] for k, v in pt["runs"].items()},
            "scipy": scipy_run["seconds_per_iteration"]}), file=sys.stderr)
        points.append(pt)
    return {"scipy_1core": scipy_run, "points": points}


def goals(res, transports):
    """The issue's yardsticks at 2 ranks, where measured."""
    g = {}
    for pt in res.get("bfs", {}).get("points", []):
        if pt["ranks"] == 2 and "pybcl_over_ref" in pt:
            g["bfs_2_ranks_pybcl_over_ref"] = pt["pybcl_over_ref"]
    for pt in res.get("pagerank", {}).get("points", []):
        if pt["ranks"] == 2:
            g["pagerank_2_ranks_scipy_over_pybcl"] = pt["scipy_over_pybcl"]
    return g


def plot(path, res, transports):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    pts = res.get("bfs", {}).get("points", [])
    for name in sorted({k for p in pts for k in p["runs"]}):
        have = [p for p in pts if p["runs"].get(name, {}).get("teps_harmonic_mean")]
        xs = [p["ranks"] for p in have]
        runs = [p["runs"][name] for p in have]
        hm = np.array([r["teps_harmonic_mean"] for r in runs]) / 1e6
        lo = hm - np.array([r["teps_min"] for r in runs]) / 1e6
        hi = np.array([r["teps_max"] for r in runs]) / 1e6 - hm
        ax.errorbar(xs, hm, yerr=[lo, hi], marker="o", capsize=4, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xticks(res["ranks"])
    ax.set_xticklabels(res["ranks"])
    ax.set_xlabel("ranks")
    ax.set_ylabel("MTEPS (harmonic mean; bars: min..max)")
    ax.set_title(f"Graph500 BFS, scale {res['scale']}", fontsize=9)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax = axes[1]
    pr = res.get("pagerank")
    if pr:
        for name in sorted({k for p in pr["points"] for k in p["runs"]}):
            xs = [p["ranks"] for p in pr["points"]]
            ys = [p["runs"][name]["seconds_per_iteration"] for p in pr["points"]]
            ax.plot(xs, ys, marker="o", label=name)
        ax.axhline(pr["scipy_1core"]["seconds_per_iteration"], color="black", linestyle="--",
                   label="SciPy A @ x, 1 core")
        ax.set_xscale("log", base=2)
        ax.set_xticks(res["ranks"])
        ax.set_xticklabels(res["ranks"])
        ax.set_xlabel("ranks")
        ax.set_ylabel("seconds per iteration")
        ax.set_ylim(bottom=0)
        ax.set_title(f"PageRank, scale {res['scale']}, {res['iterations']} iterations",
                     fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle(f"{res['host']}, {res['cores']} cores, load average at start "
                 f"{res['load_average_start'][0]} (oversubscribed above {res['cores']} ranks)",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--ranks", default="1,2,4", help="comma-separated powers of two")
    ap.add_argument("--transports", default="shm")
    ap.add_argument("--roots", type=int, default=64)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--g500-ref", metavar="SRC", default=os.environ.get("G500_REF_SRC"),
                    help="graph500 v3 checkout (default $G500_REF_SRC; none: not run)")
    ap.add_argument("--g500-skip-validation", action="store_true",
                    help="run the reference with SKIP_VALIDATION=1 (pybcl always validates)")
    ap.add_argument("--ref-timeout", type=int, default=3600,
                    help="seconds before a reference run is killed and recorded as timed out")
    ap.add_argument("--only", choices=("bfs", "pagerank"))
    ap.add_argument("--launcher", default=_scaling.mpiexec())
    ap.add_argument("--out", metavar="FILE", default="bench_graph.json")
    ap.add_argument("--plot", metavar="FILE", default="bench_graph.png")
    a = ap.parse_args()
    a.ranks = [int(x) for x in a.ranks.split(",")]
    if any(p < 1 or p & (p - 1) for p in a.ranks):
        ap.error("--ranks: powers of two (the Graph500 reference needs them)")
    launcher = shlex.split(a.launcher)
    transports = a.transports.split(",")
    work = tempfile.mkdtemp(prefix="bench_graph_")
    res = {"benchmark": "graph", "scale": a.scale, "edgefactor": 16, "roots": a.roots,
           "iterations": a.iterations, "repeats": a.repeats, "ranks": a.ranks,
           "transports": transports, "host": platform.node(), "cores": _scaling.cores(),
           "load_average_start": _scaling.load(),
           "bfs_timing": "harmonic mean of TEPS over the searches, as each program prints it; "
                         "best of repeats",
           "pagerank_timing": "seconds per iteration (slowest rank), setup excluded; "
                              "best of repeats"}
    try:
        if a.only != "pagerank":
            ref_exe = build_g500_ref(a.g500_ref, work) if a.g500_ref else None
            res["graph500_ref"] = (f"graph500 reference (src/graph500_reference_bfs) built from "
                                   f"{a.g500_ref} with {_mpi.mpicc()} {REF_CFLAGS}"
                                   if ref_exe else "not run")

            def save(points):
                res["bfs"] = {"points": points}
                with open(a.out, "w") as fh:
                    fh.write(json.dumps(res, indent=1) + "\n")
            res["bfs"] = {"points": bfs_points(a, launcher, transports, ref_exe, save)}
        if a.only != "bfs":
            res["pagerank"] = pagerank_part(a, launcher, transports, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["goals"] = goals(res, transports)
    res["all_validated"] = all(r.get("validated", True) or not r.get("validation_run", True)
                               for p in res.get("bfs", {}).get("points", [])
                               for r in p["runs"].values())
    res["pagerank_l1_vs_scipy_max"] = max(
        (v for p in res.get("pagerank", {}).get("points", []) for v in p["l1_vs_scipy"].values()),
        default=None)
    res["load_average_end"] = _scaling.load()
    text = json.dumps(res, indent=1)
    with open(a.out, "w") as fh:
        fh.write(text + "\n")
    if a.plot:
        plot(a.plot, res, transports)
    print(text)
    l1_ok = res["pagerank_l1_vs_scipy_max"] is None or res["pagerank_l1_vs_scipy_max"] <= L1_LIMIT
    return 0 if res["all_validated"] and l1_ok else 1


if __name__ == "__main__":
    sys.exit(main())
