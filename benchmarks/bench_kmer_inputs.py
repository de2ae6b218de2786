"""k-mer app: what BGZF splitting and the exact --bloom cost, one run.

    python benchmarks/bench_kmer_inputs.py [--coverage 5] [--ranks 1,2] [--repeats 3]
        [--baseline TREE] [--out FILE.json]

Input: the E. coli reads of bench_kmer_scaling.py (benchmarks/_reads.py:
100 bp, COVERAGE x, 1 % substitutions, seed 1), as plain FASTQ, as ordinary gzip (every rank
decompresses it whole) and as BGZF (ranks split it by blocks; written with
the tests' zlib-only BGZF writer).  For each P, alternating, `repeats`
times: `python -m pybcl.apps.kmer -k 31` on plain, plain --bloom, gzip and
BGZF, plus plain --bloom from `--baseline` (another checkout, built in
place: the one-pass --bloom whose false positives count one too high), if
given.  Records wall seconds of the whole command, the app's count /
recount seconds, peak RSS and table bytes per rank, the load average
before and after each run, and whether each histogram equals the plain
run's.
"""
import argparse
import gzip
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
import _scaling  # noqa: E402
from bench_kmer_scaling import reads_file  # noqa: E402
from bgzf import bgzf  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--coverage", type=int, default=5)
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", help="a checkout whose --bloom to time beside this one's")
    ap.add_argument("--out", default=os.path.join(_scaling.HERE, "results",
                                                  "bench_kmer_inputs_2core.json"))
    args = ap.parse_args()
    fq = reads_file(args.coverage, [1])
    files = {"plain": fq, "gzip": fq + ".gz", "bgzf": fq + ".bgz"}
    data = None
    for name, writer in (("gzip", lambda d: gzip.compress(d, 6)), ("bgzf", bgzf)):
        if not os.path.exists(files[name]):
            data = data or open(fq, "rb").read()
            with open(files[name] + ".tmp", "wb") as fh:
                fh.write(writer(data))
            os.replace(files[name] + ".tmp", files[name])
    cases = [("plain", "plain", []), ("bloom", "plain", ["--bloom"]),
             ("gzip", "gzip", []), ("bgzf", "bgzf", [])]
    if args.baseline:
        cases.append(("bloom_baseline", "plain", ["--bloom"]))
    work = os.path.join(os.path.dirname(fq), "bench_kmer_inputs")
    os.makedirs(work, exist_ok=True)
    runs = []
    for P in [int(x) for x in args.ranks.split(",")]:
        for rep in range(args.repeats):
            for case, inp, extra in cases:
                js, histo = os.path.join(work, f"{case}.{P}.json"), os.path.join(work, f"{case}.{P}.h")
                environ = _scaling.env()
                if case == "bloom_baseline":
                    environ["PYTHONPATH"] = os.path.abspath(args.baseline)
                # from a neutral directory: `python -m` puts the working
                # directory first on sys.path, before PYTHONPATH
                cmd = ["env", "-C", work, _scaling.mpiexec(), "-n", str(P), sys.executable,
                       "-m", "pybcl.apps.kmer",
                       files[inp], "-k", "31", "--quiet", "--json", js, "--histo", histo, *extra]
                wall, _, before, after = _scaling.timed(cmd, timeout=900, environ=environ)
                j = json.load(open(js))
                plain_h = os.path.join(work, f"plain.{P}.h")
                runs.append({
                    "case": case, "ranks": P, "repeat": rep, "wall_s": round(wall, 3),
                    "count_s": round(j["seconds"]["count"], 3),
                    "recount_s": round(j["seconds"].get("recount", 0.0), 3),
                    "peak_rss_mib_per_rank": [round(x / 2**20) for x in
                                              j["peak_rss_bytes_per_rank"]],
                    "table_mib_per_rank": [round(x / 2**20, 1) for x in j["table_bytes_per_rank"]],
                    "distinct_in_table": j["distinct_in_table"],
                    "bloom_false_positives": j.get("bloom_false_positives"),
                    "reading": j["reading"], "histogram_equals_plain":
                        open(histo).read() == open(plain_h).read(),
                    "load_before": before, "load_after": after})
                print(json.dumps(runs[-1]), flush=True)
    summary = {}
    for r in runs:
        summary.setdefault(f"{r['case']}@{r['ranks']}", []).append(r["wall_s"])
    out = {"benchmark": "bench_kmer_inputs", "input": fq, "bytes": {
               k: os.path.getsize(v) for k, v in files.items()},
           "median_wall_s": {k: statistics.median(v) for k, v in summary.items()},
           "runs": runs}
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1)
    print(json.dumps(out["median_wall_s"], indent=1))


if __name__ == "__main__":
    main()
