"""k-mer counting: pybcl's app against Jellyfish 2.3, same machine, same file.

    python benchmarks/bench_kmer.py [--ranks 2] [--repeats 2] [--out FILE]

Input: E. coli 536 reads simulated at 5x coverage (100 bp, 1 % substitutions,
seed 1) by pybcl's own simulator from tests/data/NC_008253.fna.gz
(benchmarks/_reads.py), cached under $TMPDIR/pybcl_bench.  Runs, alternating, `repeats` times each:

  jellyfish count -m 31 -C -t RANKS -s 10M -o out.jf reads.fq
  mpiexec -n RANKS python -m pybcl.apps.kmer reads.fq -k 31 [--bloom] --json ...

k-mers/s = total 31-mer occurrences / seconds.  Two figures per pybcl run:
"wall" is the whole mpiexec command (Python start-up, MPI init, both passes,
the histogram), the same scope as Jellyfish's wall time (its whole count
command, including writing its database); "app" is the app's own figure
(scan + count phases).  Ratios are pybcl / Jellyfish (> 1: pybcl faster),
best run of each.  The exact histogram (no --bloom) is checked against
`jellyfish histo`.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
import _reads  # noqa: E402
from _report import emit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def reads_file():
    return _reads.ecoli_reads(5)


def md5(path):
    import hashlib
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for b in iter(lambda: fh.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return dt, r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--reads", help="FASTQ to count (default: the simulated E. coli 5x)")
    ap.add_argument("--out", metavar="FILE")
    a = ap.parse_args()
    jf = shutil.which("jellyfish")
    if not jf:
        raise SystemExit("jellyfish not found: sudo apt-get install -y jellyfish")
    reads = a.reads or reads_file()
    work = tempfile.mkdtemp(prefix="bench_kmer_")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    mpiexec = _mpi.mpiexec()
    jf_version = subprocess.run([jf, "--version"], capture_output=True, text=True).stdout.strip()
    res = {"benchmark": "kmer", "ranks": a.ranks, "k": 31, "reads": reads,
           "reads_md5": md5(reads), "jellyfish": {"version": jf_version, "seconds": []},
           "pybcl": {"plain": [], "bloom": []}}
    jf_db = os.path.join(work, "out.jf")
    for rep in range(a.repeats):
        for f in glob.glob(jf_db + "*"):
            os.remove(f)
        dt, _ = timed([jf, "count", "-m", "31", "-C", "-t", str(a.ranks), "-s", "10M",
                       "-o", jf_db, reads])
        res["jellyfish"]["seconds"].append(dt)
        for mode in ("plain", "bloom"):
            js = os.path.join(work, f"{mode}.json")
            cmd = [mpiexec, "-n", str(a.ranks), sys.executable, "-m", "pybcl.apps.kmer",
                   reads, "-k", "31", "--quiet", "--json", js,
                   "--histo", os.path.join(work, f"{mode}.histo")]
            dt, _ = timed(cmd + (["--bloom"] if mode == "bloom" else []), env)
            with open(js) as fh:
                figures = json.load(fh)
            figures.pop("histogram", None)
            figures["wall_seconds"] = dt
            res["pybcl"][mode].append(figures)
    # correctness: the exact histogram equals Jellyfish's
    jh = subprocess.run([jf, "histo", jf_db], capture_output=True, text=True, check=True).stdout
    with open(os.path.join(work, "plain.histo")) as fh:
        res["histogram_equals_jellyfish"] = fh.read() == jh
    stats = subprocess.run([jf, "stats", jf_db], capture_output=True, text=True).stdout
    total = res["pybcl"]["plain"][0]["kmers_total"]
    res["kmers_total"] = total
    res["jellyfish"]["stats"] = dict(line.split(":", 1) for line in stats.strip().splitlines())
    res["jellyfish"]["stats"] = {k.strip(): int(v) for k, v in res["jellyfish"]["stats"].items()}
    jf_best = min(res["jellyfish"]["seconds"])
    res["jellyfish"]["kmers_per_s"] = total / jf_best
    summary = {"jellyfish_kmers_per_s": total / jf_best}
    for mode in ("plain", "bloom"):
        runs = res["pybcl"][mode]
        wall = min(r["wall_seconds"] for r in runs)
        app = max(r["kmers_per_s"] for r in runs)
        summary[f"pybcl_{mode}_kmers_per_s_wall"] = total / wall
        summary[f"pybcl_{mode}_kmers_per_s_app"] = app
        summary[f"ratio_{mode}_wall"] = (total / wall) / (total / jf_best)
        summary[f"ratio_{mode}_app"] = app / (total / jf_best)
    res["summary"] = summary
    shutil.rmtree(work, ignore_errors=True)
    emit(res, a.out)


if __name__ == "__main__":
    main()
