"""k-mer counting scaling: pybcl (plain, --bloom) against KMC 3 and Jellyfish, one run.

    python benchmarks/bench_kmer_scaling.py [--coverage 5] [--seeds 1] [--max-ranks P]
        [--oversubscribe 0] [--repeats 1] [--out FILE.json] [--plot FILE.png]

Input: reads simulated by pybcl's own simulator (benchmarks/_reads.py) from
tests/data/NC_008253.fna.gz (E. coli 536), 100 bp, COVERAGE x, 1 %
substitutions, one simulation per seed concatenated (a 30x input is --coverage 5 --seeds 1-6),
cached under $TMPDIR/pybcl_bench.  For P = 1, 2, 4, ... up to the cores
present (and `--oversubscribe` doublings past them, marked and left out of
the ratios), alternating, `repeats` times each, best kept:

  mpiexec -n P python -m pybcl.apps.kmer reads.fq -k 31 --json ... [--bloom]
  kmc -k31 -ci1 -cs1000000 -t P -m MEM reads.fq db tmp
  jellyfish count -m 31 -C -t P -s SIZE -o db.jf reads.fq

Seconds are the wall time of the whole command (for pybcl: Python start-up,
MPI init, reading, counting, the histogram; for KMC and Jellyfish: the count
command, which writes their database; their histogram commands are run
after, untimed).  The histogram of pybcl's exact count is compared with
KMC's (`kmc_tools transform db histogram`) and Jellyfish's (`jellyfish
histo`) at every P.  Missing competitors are installed with apt-get (Debian
packages `kmc`, `jellyfish`).  Writes JSON (with the load average before and
after every run: the machine may be shared) and a PNG of time vs ranks.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _reads  # noqa: E402
import _scaling  # noqa: E402


def reads_file(coverage, seeds):
    return _reads.ecoli_reads(coverage, seeds)


def version(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return (r.stdout + r.stderr).strip().splitlines()[0] if (r.stdout + r.stderr).strip() else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coverage", type=int, default=5)
    ap.add_argument("--seeds", default="1", help="e.g. 1 or 1-6")
    ap.add_argument("--reads", help="count this FASTQ instead of simulating")
    ap.add_argument("--max-ranks", type=int, help="default: the cores present")
    ap.add_argument("--oversubscribe", type=int, default=0,
                    help="extra doublings past the cores (marked, excluded from ratios)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--kmc-memory-gb", type=int, default=4)
    ap.add_argument("--out", metavar="FILE", default="bench_kmer_scaling.json")
    ap.add_argument("--plot", metavar="FILE", default="bench_kmer_scaling.png")
    a = ap.parse_args()
    _scaling.ensure_debian_packages({"kmc": "kmc", "kmc_tools": "kmc", "jellyfish": "jellyfish"})
    if "-" in a.seeds:
        lo, hi = map(int, a.seeds.split("-"))
        seeds = list(range(lo, hi + 1))
    else:
        seeds = [int(s) for s in a.seeds.split(",")]
    reads = a.reads or reads_file(a.coverage, seeds)
    work = tempfile.mkdtemp(prefix="bench_kmer_scaling_")
    mpiexec = _scaling.mpiexec()
    res = {"benchmark": "kmer_scaling", "k": 31, "reads": reads,
           "reads_bytes": os.path.getsize(reads),
           "input": None if a.reads else f"pybcl's simulator (benchmarks/_reads.py) on NC_008253.fna.gz, 100 bp, "
                                         f"{a.coverage}x, 1 % substitutions, seeds {seeds} concatenated",
           "host": platform.node(), "cores": _scaling.cores(),
           "load_average_start": _scaling.load(),
           "versions": {"kmc": version(["kmc"]), "jellyfish": version(["jellyfish",
                                                                        "--version"])},
           "timing": "wall seconds of the whole command, best of repeats",
           "points": []}
    points = _scaling.rank_points(a.max_ranks, a.oversubscribe)
    size_hint = max(res["reads_bytes"] // 4, 1 << 20)
    for P, over in points:
        pt = {"ranks": P, "oversubscribed": over, "runs": {}}
        best = {}
        for _ in range(a.repeats):
            for tool in ("pybcl", "pybcl_bloom", "kmc", "jellyfish"):
                if tool.startswith("pybcl"):
                    js = os.path.join(work, f"{tool}.json")
                    cmd = [mpiexec, "-n", str(P), sys.executable, "-m", "pybcl.apps.kmer", reads, "-k", "31", "--quiet",
                         "--json", js] + (["--bloom"] if tool == "pybcl_bloom" else [])
                elif tool == "kmc":
                    db, tmp = os.path.join(work, "kmc_db"), os.path.join(work, "kmc_tmp")
                    os.makedirs(tmp, exist_ok=True)
                    cmd = ["kmc", "-k31", "-ci1", "-cs1000000", f"-t{P}",
                           f"-m{a.kmc_memory_gb}", "-fq", reads, db, tmp]
                else:
                    db = os.path.join(work, "jf.db")
                    cmd = ["jellyfish", "count", "-m", "31", "-C", "-t", str(P), "-s",
                           str(size_hint), "-o", db, reads]
                dt, r, l0, l1 = _scaling.timed(cmd)
                run = {"seconds": dt, "load_before": l0, "load_after": l1}
                if tool.startswith("pybcl"):
                    with open(js) as fh:
                        fig = json.load(fh)
                    run["histogram"] = {c: n for c, n in fig.pop("histogram")}
                    run["app"] = {k: fig[k] for k in ("kmers_total", "distinct", "kmers_per_s",
                                                      "seconds", "peak_rss_bytes_per_rank",
                                                      "table_bytes_per_rank", "reading",
                                                      "transport")}
                elif tool == "kmc":
                    h = os.path.join(work, "kmc.histo")
                    subprocess.run(["kmc_tools", "transform", db, "histogram", h, "-ci1",
                                    "-cx1000000"], check=True, capture_output=True)
                    run["histogram"] = _scaling.parse_histo(open(h).read())
                else:
                    out = subprocess.run(["jellyfish", "histo", db], check=True,
                                         capture_output=True, text=True).stdout
                    run["histogram"] = _scaling.parse_histo(out)
                if tool not in best or dt < best[tool]["seconds"]:
                    best[tool] = run
        exact = best["pybcl"]["histogram"]
        pt["histogram_equal"] = {"kmc": exact == best["kmc"]["histogram"],
                                 "jellyfish": exact == best["jellyfish"]["histogram"]}
        pt["bloom_distinct_vs_exact"] = [sum(best["pybcl_bloom"]["histogram"].values()),
                                         sum(exact.values())]
        for tool, run in best.items():
            run.pop("histogram")
            pt["runs"][tool] = run
        pt["seconds"] = {t: r["seconds"] for t, r in best.items()}
        if not over:
            s = pt["seconds"]
            pt["ratios"] = {"kmc_over_pybcl": s["kmc"] / s["pybcl"],
                            "jellyfish_over_pybcl": s["jellyfish"] / s["pybcl"],
                            "kmc_over_pybcl_bloom": s["kmc"] / s["pybcl_bloom"],
                            "jellyfish_over_pybcl_bloom": s["jellyfish"] / s["pybcl_bloom"]}
        res["points"].append(pt)
        print(json.dumps({"ranks": P, "oversubscribed": over, "seconds": pt["seconds"],
                          "histogram_equal": pt["histogram_equal"]}), file=sys.stderr)
    inside = [p for p in res["points"] if not p["oversubscribed"]]
    if len(inside) > 1:
        res["speedup_pybcl_1_to_max"] = inside[0]["seconds"]["pybcl"] / \
            inside[-1]["seconds"]["pybcl"]
    res["load_average_end"] = _scaling.load()
    res["kmers_total"] = res["points"][0]["runs"]["pybcl"]["app"]["kmers_total"]
    shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(res, indent=1)
    with open(a.out, "w") as fh:
        fh.write(text + "\n")
    if a.plot:
        _scaling.plot(a.plot, f"k-mer counting, k=31, {res['kmers_total'] / 1e6:.1f} M k-mers "
                      f"(load avg at start {res['load_average_start'][0]})", res["points"],
                      [(name, (lambda t: lambda pt: pt["seconds"].get(t))(t))
                       for name, t in (("pybcl", "pybcl"), ("pybcl --bloom", "pybcl_bloom"),
                                       ("KMC 3", "kmc"), ("Jellyfish", "jellyfish"))])
    print(text)


if __name__ == "__main__":
    main()
