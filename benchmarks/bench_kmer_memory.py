"""k-mer counting: wall time and peak memory of pybcl (plain, --bloom), KMC 3
and Jellyfish, whole commands, one run.

    python benchmarks/bench_kmer_memory.py [--coverage 5 30] [--ranks 1 2]
        [--repeats 1] [--out FILE.json] [--plot FILE.png]

Input: E. coli 536 reads (tests/data/NC_008253.fna.gz) simulated by pybcl's
own simulator (benchmarks/_reads.py: 100 bp, 1 % substitutions; 30x is six
5x simulations, seeds 1-6), cached under $TMPDIR/pybcl_bench.  For every
coverage and rank count P, in this order, `repeats` times:

  idle        mpiexec -n P python -c "import pybcl; pybcl.init()"
  pybcl       mpiexec -n P python -m pybcl.apps.kmer READS -k 31 --quiet --histo H --json J
  pybcl_bloom the same with --bloom
  kmc         kmc -k31 -ci1 -cs100000 -tP -fq READS DB TMP      (default -m)
  jellyfish   jellyfish count -m 31 -C -t P -s SIZE -o DB READS  (SIZE: reads bytes / 4)

wall: seconds of the whole command (start-up, reading, counting, output;
KMC and Jellyfish write their database).  peak: the largest sum of the
proportional set size (Pss of /proc/PID/smaps_rollup) over the command's
process tree, sampled every 20 ms (benchmarks/_memwatch.py): an MPI
shared-memory window counts once, pages a process only mapped do not count.
Per tool the fastest repeat's wall and the median repeat's peak are kept.
From those: the peak above the idle job of the same P, and bytes per
distinct k-mer above it (distinct from pybcl's exact count).  Histograms:
pybcl's (plain and --bloom, both exact) against KMC's (`kmc_tools
transform DB histogram`) and Jellyfish's (`jellyfish histo`), untimed.

The goals checked (`goals`): pybcl's wall at most KMC's; its peak at most
KMC's on 30x; at most 24 bytes a distinct k-mer above the idle job; --bloom
at most half of plain's peak (whole, and above the idle job) and 1.5x its
wall; histograms identical to KMC's.  Missing competitors are installed with apt-get (Debian packages
`kmc`, `jellyfish`).  The machine may be shared: the 1-minute load average
is recorded before and after every command (where others time things on
the same machine, run it under their common lock, e.g. with flock(1)).
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import _memwatch  # noqa: E402
import _reads  # noqa: E402
import _report  # noqa: E402
import _scaling  # noqa: E402

TOOLS = ("pybcl", "pybcl_bloom", "kmc", "jellyfish")
BYTES_PER_KMER_GOAL = 24
MIB = 1 << 20


def seeds_for(coverage):
    """30x is six 5x simulations (seeds 1-6); other coverages one, seed 1."""
    if coverage % 5 == 0 and coverage > 5:
        return 5, list(range(1, coverage // 5 + 1))
    return coverage, [1]


def job_env():
    return dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def version(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    text = (r.stdout + r.stderr).strip()
    return text.splitlines()[0] if text else "?"


def command(tool, P, reads, work):
    """(argv, files it leaves: histogram source) of one tool's run."""
    mpiexec = [_scaling.mpiexec(), "-n", str(P)]
    if tool == "idle":
        return mpiexec + [sys.executable, "-c", "import pybcl; pybcl.init()"], {}
    if tool.startswith("pybcl"):
        h, js = os.path.join(work, f"{tool}.histo"), os.path.join(work, f"{tool}.json")
        argv = mpiexec + [sys.executable, "-m", "pybcl.apps.kmer", reads, "-k", "31",
                          "--quiet", "--histo", h, "--json", js]
        return argv + (["--bloom"] if tool == "pybcl_bloom" else []), {"histo": h, "json": js}
    if tool == "kmc":
        db, tmp = os.path.join(work, "kmc_db"), os.path.join(work, "kmc_tmp")
        os.makedirs(tmp, exist_ok=True)
        return ["kmc", "-k31", "-ci1", "-cs100000", f"-t{P}", "-fq", reads, db, tmp], {"db": db}
    db = os.path.join(work, "jf.db")
    size = max(os.path.getsize(reads) // 4, 1 << 20)
    return ["jellyfish", "count", "-m", "31", "-C", "-t", str(P), "-s", str(size), "-o", db,
            reads], {"db": db}


def histogram(tool, files):
    """{count: k-mers} of a finished run (untimed)."""
    if tool.startswith("pybcl"):
        with open(files["histo"]) as fh:
            return _scaling.parse_histo(fh.read())
    if tool == "kmc":
        h = files["db"] + ".histo"
        subprocess.run(["kmc_tools", "transform", files["db"], "histogram", h, "-ci1",
                        "-cx1000000"], check=True, capture_output=True)
        with open(h) as fh:
            return _scaling.parse_histo(fh.read())
    out = subprocess.run(["jellyfish", "histo", files["db"]], check=True, capture_output=True,
                         text=True).stdout
    return _scaling.parse_histo(out)


def run_one(tool, P, reads, work):
    argv, files = command(tool, P, reads, work)
    before = _scaling.load()
    r = _memwatch.run(argv, env=job_env(), cwd=work, timeout=3600)
    run = {"wall_seconds": round(r["seconds"], 3), "peak_mib": round(r["peak_bytes"] / MIB, 1),
           "pss_samples": r["samples"], "load_before": before, "load_after": _scaling.load()}
    if tool != "idle":
        run["histogram"] = histogram(tool, files)
    if tool.startswith("pybcl"):
        with open(files["json"]) as fh:
            fig = json.load(fh)
        run["app"] = {k: fig[k] for k in ("kmers_total", "distinct", "distinct_in_table",
                                          "map_buckets", "map_sizes", "map_load",
                                          "round_kmers", "seconds", "transport")}
    return run


def summarize(runs):
    """The fastest repeat's wall, the median repeat's peak, the first's rest."""
    best = dict(runs[0])
    best["wall_seconds"] = min(r["wall_seconds"] for r in runs)
    best["peak_mib"] = statistics.median(r["peak_mib"] for r in runs)
    if len(runs) > 1:
        best["repeats"] = [{k: r[k] for k in ("wall_seconds", "peak_mib", "load_before")}
                           for r in runs]
    return best


def point(coverage, P, reads, repeats, tools, work):
    pt = {"coverage": coverage, "ranks": P, "runs": {}}
    raw = {t: [] for t in ("idle",) + tuple(tools)}
    for _ in range(repeats):
        for tool in raw:
            raw[tool].append(run_one(tool, P, reads, work))
            print(json.dumps({"coverage": coverage, "ranks": P, "tool": tool,
                              "wall": raw[tool][-1]["wall_seconds"],
                              "peak_mib": raw[tool][-1]["peak_mib"]}), file=sys.stderr,
                  flush=True)
    idle = summarize(raw.pop("idle"))
    pt["idle_peak_mib"] = idle["peak_mib"]
    hists = {}
    for tool, runs in raw.items():
        s = summarize(runs)
        hists[tool] = s.pop("histogram")
        for r in s.get("repeats", []):
            r.pop("histogram", None)
        s["peak_above_idle_mib"] = round(s["peak_mib"] - idle["peak_mib"], 1)
        pt["runs"][tool] = s
    exact = hists.get("pybcl")
    distinct = sum(exact.values()) if exact else None
    pt["distinct"] = distinct
    pt["kmers_total"] = sum(c * n for c, n in exact.items()) if exact else None
    for tool, s in pt["runs"].items():
        if distinct:
            s["bytes_per_distinct_above_idle"] = round(
                s["peak_above_idle_mib"] * MIB / distinct, 2)
    pt["histogram_equal"] = {f"{a}_vs_{b}": hists[a] == hists[b]
                             for a in ("pybcl", "pybcl_bloom") for b in ("kmc", "jellyfish")
                             if a in hists and b in hists}
    pt["goals"] = goals(pt)
    return pt


def goals(pt):
    """The issue's goals at this point: True/False, and the measured ratio."""
    r, out = pt["runs"], {}
    if "pybcl" in r and "kmc" in r:
        out["wall_at_most_kmc"] = [r["pybcl"]["wall_seconds"] <= r["kmc"]["wall_seconds"],
                                   round(r["pybcl"]["wall_seconds"] / r["kmc"]["wall_seconds"], 3)]
        out["peak_at_most_kmc"] = [r["pybcl"]["peak_mib"] <= r["kmc"]["peak_mib"],
                                   round(r["pybcl"]["peak_mib"] / r["kmc"]["peak_mib"], 3)]
        out["histogram_equal_kmc"] = pt["histogram_equal"].get("pybcl_vs_kmc")
    if "pybcl" in r and "bytes_per_distinct_above_idle" in r["pybcl"]:
        b = r["pybcl"]["bytes_per_distinct_above_idle"]
        out["bytes_per_distinct_at_most_24"] = [b <= BYTES_PER_KMER_GOAL, b]
    if "pybcl" in r and "pybcl_bloom" in r:
        m = r["pybcl_bloom"]["peak_mib"] / r["pybcl"]["peak_mib"]
        w = r["pybcl_bloom"]["wall_seconds"] / r["pybcl"]["wall_seconds"]
        out["bloom_peak_at_most_half"] = [m <= 0.5, round(m, 3)]
        a = r["pybcl_bloom"]["peak_above_idle_mib"] / r["pybcl"]["peak_above_idle_mib"]
        out["bloom_peak_above_idle_at_most_half"] = [a <= 0.5, round(a, 3)]
        out["bloom_wall_at_most_1_5x"] = [w <= 1.5, round(w, 3)]
    return out


def plot(path, res):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = res["points"]
    labels = [f"{p['coverage']}x, {p['ranks']} r" for p in pts]
    tools = [t for t in TOOLS if any(t in p["runs"] for p in pts)]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    width = 0.8 / max(len(tools), 1)
    for j, (key, ylabel) in enumerate((("wall_seconds", "wall seconds"),
                                       ("peak_mib", "peak memory (MiB, sum of PSS)"))):
        ax = axes[j]
        for i, t in enumerate(tools):
            ys = [p["runs"].get(t, {}).get(key, 0) for p in pts]
            ax.bar([x + i * width for x in range(len(pts))], ys, width, label=t)
        if key == "peak_mib":
            ax.plot([x + 0.4 - width / 2 for x in range(len(pts))],
                    [p["idle_peak_mib"] for p in pts], "k_", markersize=20,
                    label="idle pybcl.init()")
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(pts))])
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"k-mer counting, k=31, E. coli reads (load avg at start "
                 f"{res['load_average_start'][0]})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coverage", type=int, nargs="+", default=[5, 30])
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    ap.add_argument("--out", metavar="FILE", default="bench_kmer_memory.json")
    ap.add_argument("--plot", metavar="FILE", default="bench_kmer_memory.png")
    a = ap.parse_args()
    _scaling.ensure_debian_packages({"kmc": "kmc", "kmc_tools": "kmc",
                                     "jellyfish": "jellyfish"})
    work = tempfile.mkdtemp(prefix="bench_kmer_memory_")
    res = {"benchmark": "kmer_memory", "k": 31, "host": platform.node(),
           "cores": _scaling.cores(), "load_average_start": _scaling.load(),
           "versions": {"kmc": version(["kmc"]), "jellyfish": version(["jellyfish",
                                                                        "--version"])},
           "peak": "largest sum of Pss over the command's processes, sampled every 20 ms",
           "wall": "seconds of the whole command, fastest of the repeats",
           "points": []}
    try:
        for cov in a.coverage:
            per_sim, seeds = seeds_for(cov)
            reads = _reads.ecoli_reads(per_sim, seeds)
            for P in a.ranks:
                pt = point(cov, P, reads, a.repeats, a.tools, work)
                pt["reads"] = {"path": reads, "bytes": os.path.getsize(reads),
                               "simulation": f"{per_sim}x x seeds {seeds}"}
                res["points"].append(pt)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["load_average_end"] = _scaling.load()
    _report.emit(res, a.out)
    if a.plot:
        try:
            plot(a.plot, res)
        except ImportError:
            print("no matplotlib: no plot (pip install matplotlib)", file=sys.stderr)


if __name__ == "__main__":
    main()
