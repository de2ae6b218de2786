"""Count once, query later: pybcl's k-mer database (kmer --save, kmerdb)
against Jellyfish 2.3 and KMC 3, same machine, same files.

    python benchmarks/bench_kmerdb.py [--ranks 2] [--queries 100000] [--repeats 2]
        [--out FILE]

Inputs: two read sets simulated from E. coli 536 at 5x (100 bp, 1 %
substitutions, seeds 1 and 2; benchmarks/_reads.py).  k = 31, canonical.
Every step runs `repeats` times (the best time is kept), pybcl on --ranks
ranks under mpiexec and on one rank without it (plain `python -m`), the
tools with --ranks threads:

  count    kmer READS -k 31 --save A.pybcl  |  jellyfish count -m 31 -C -s 10M
           |  kmc -k31 -ci1 -cs4294967295 (every k-mer, counts not capped)
  query    kmerdb query A.pybcl --file Q    |  jellyfish query A.jf -s Q.fa
  histo    kmerdb histo A.pybcl             |  jellyfish histo A.jf
  union    kmerdb merge A B -o U.pybcl      |  kmc_tools simple A -ci1 B -ci1 union U -ocsum
  dump     kmerdb dump U.pybcl              |  kmc_tools transform U dump -s

Q: --queries k-mers, half of them present (read from the reads), half
random.  Answers are compared: query counts with Jellyfish's, the histogram
with Jellyfish's, the union's sorted dump with KMC's (byte for byte).
Sizes: the database files (KMC: .kmc_pre + .kmc_suf).  Times are whole
commands (process start-up included: what a user waits for).  One JSON
object on stdout (and in --out), with the 1-minute load average at the
start and at the end.
"""
import argparse
import os
import random
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
K = 31


def best_time(cmd, repeats, env=None):
    """(best seconds, the last run's stdout) of `repeats` runs of cmd."""
    best, out = float("inf"), ""
    for _ in range(repeats):
        t = time.perf_counter()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
        dt = time.perf_counter() - t
        if r.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
        best, out = min(best, dt), r.stdout
    return round(best, 3), out


def size(*paths):
    return sum(os.path.getsize(p) for p in paths)


def queries(reads, n, seed=5):
    """n k-mers: every other one from the reads (present), the rest random."""
    rng = random.Random(seed)
    seqs = []
    with open(reads) as fh:
        for i, line in enumerate(fh):
            if i % 4 == 1 and len(seqs) < n:
                s = line.strip()
                j = rng.randrange(0, len(s) - K + 1)
                seqs.append(s[j:j + K])
    out = []
    for i in range(n):
        if i % 2 == 0 and seqs:
            out.append(seqs[(i // 2) % len(seqs)])
        else:
            out.append("".join(rng.choice("ACGT") for _ in range(K)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", metavar="FILE")
    a = ap.parse_args()
    for tool in ("jellyfish", "kmc", "kmc_tools"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not found: sudo apt-get install -y jellyfish kmc")
    reads = [_reads.ecoli_reads(5, seeds=(s,)) for s in (1, 2)]
    work = tempfile.mkdtemp(prefix="bench_kmerdb_")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    R, rep = a.ranks, a.repeats
    mpi = [_mpi.mpiexec(), "-n", str(R), sys.executable, "-m"]
    plain = [sys.executable, "-m"]
    w = lambda name: os.path.join(work, name)       # noqa: E731
    res = {"benchmark": "kmerdb", "k": K, "ranks": R, "threads": R, "queries": a.queries,
           "reads": reads, "load_start": os.getloadavg()[0],
           "jellyfish": subprocess.run(["jellyfish", "--version"], capture_output=True,
                                       text=True).stdout.strip(),
           "kmc": subprocess.run(["kmc"], capture_output=True,
                                 text=True).stdout.splitlines()[0].strip()}
    seconds, sizes, same = {}, {}, {}
    try:
        # -- count -------------------------------------------------------------
        for tag, path in zip("ab", reads):
            seconds[f"count_{tag}"] = {
                "pybcl": best_time(mpi + ["pybcl.apps.kmer", path, "-k", str(K), "--quiet",
                                          "--save", w(f"{tag}.pybcl")], rep, env)[0],
                "jellyfish": best_time(["jellyfish", "count", "-m", str(K), "-C", "-t", str(R),
                                        "-s", "10M", "-o", w(f"{tag}.jf"), path], rep)[0],
                "kmc": best_time(["kmc", f"-k{K}", f"-t{R}", "-ci1", "-cs4294967295", "-fq",
                                  "-hp", path, w(f"{tag}_kmc"), work], rep)[0]}
        sizes["database_bytes"] = {
            "pybcl": size(w("a.pybcl")), "jellyfish": size(w("a.jf")),
            "kmc": size(w("a_kmc.kmc_pre"), w("a_kmc.kmc_suf"))}

        # -- query ---------------------------------------------------------------
        qs = queries(reads[0], a.queries)
        with open(w("q.txt"), "w") as fh:
            fh.write("\n".join(qs) + "\n")
        with open(w("q.fa"), "w") as fh:
            fh.write("".join(f">{i}\n{q}\n" for i, q in enumerate(qs)))
        t_mpi, got = best_time(mpi + ["pybcl.apps.kmerdb", "query", w("a.pybcl"), "--file",
                                      w("q.txt")], rep, env)
        t_one, got1 = best_time(plain + ["pybcl.apps.kmerdb", "query", w("a.pybcl"),
                                         "--file", w("q.txt")], rep, env)
        t_jf, jf = best_time(["jellyfish", "query", w("a.jf"), "-s", w("q.fa")], rep)
        ours = [int(line.split("\t")[1]) for line in got.splitlines()]
        theirs = [int(line.split()[1]) for line in jf.splitlines()]
        seconds["query"] = {"pybcl": t_mpi, "pybcl_1_rank_no_mpiexec": t_one, "jellyfish": t_jf}
        same["query_counts_equal_jellyfish"] = ours == theirs and got == got1
        same["query_found"] = sum(c > 0 for c in ours)

        # -- histo ---------------------------------------------------------------
        t_mpi, h = best_time(mpi + ["pybcl.apps.kmerdb", "histo", w("a.pybcl")], rep, env)
        t_one, h1 = best_time(plain + ["pybcl.apps.kmerdb", "histo", w("a.pybcl")], rep, env)
        t_jf, hj = best_time(["jellyfish", "histo", "-t", str(R), w("a.jf")], rep)
        seconds["histo"] = {"pybcl": t_mpi, "pybcl_1_rank_no_mpiexec": t_one, "jellyfish": t_jf}
        same["histo_equal_jellyfish"] = h == hj == h1

        # -- union ---------------------------------------------------------------
        seconds["union"] = {
            "pybcl": best_time(mpi + ["pybcl.apps.kmerdb", "merge", w("a.pybcl"),
                                      w("b.pybcl"), "-o", w("u.pybcl")], rep, env)[0],
            "kmc": best_time(["kmc_tools", "-t" + str(R), "simple", w("a_kmc"), "-ci1",
                              w("b_kmc"), "-ci1", "union", w("u_kmc"), "-ocsum",
                              "-cs4294967295"], rep)[0]}
        sizes["union_bytes"] = {"pybcl": size(w("u.pybcl")),
                                "kmc": size(w("u_kmc.kmc_pre"), w("u_kmc.kmc_suf"))}

        # -- dump ----------------------------------------------------------------
        seconds["dump"] = {
            "pybcl": best_time(mpi + ["pybcl.apps.kmerdb", "dump", w("u.pybcl"), "-o",
                                      w("u.tsv")], rep, env)[0],
            "pybcl_1_rank_no_mpiexec": best_time(plain + ["pybcl.apps.kmerdb", "dump",
                                                          w("u.pybcl"), "-o", w("u1.tsv")],
                                                 rep, env)[0],
            "kmc": best_time(["kmc_tools", "-t" + str(R), "transform", w("u_kmc"), "dump",
                              "-s", w("u_kmc.txt")], rep)[0]}
        with open(w("u.tsv"), "rb") as f1, open(w("u_kmc.txt"), "rb") as f2, \
                open(w("u1.tsv"), "rb") as f3:
            ours, theirs, ours1 = f1.read(), f2.read(), f3.read()
        same["union_dump_equal_kmc_bytes"] = ours == theirs == ours1
        same["union_kmers"] = ours.count(b"\n")
        sizes["dump_bytes"] = len(ours)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res.update(seconds=seconds, bytes=sizes, answers=same, load_end=os.getloadavg()[0])
    emit(res, a.out)


if __name__ == "__main__":
    main()
