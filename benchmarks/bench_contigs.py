"""Contig generation: pybcl's app against BCALM 2, same machine, same reads.

    python benchmarks/bench_contigs.py [--coverage 5 30] [--ranks 1 2 4]
        [--rma-ranks 2] [--hosts 3] [--out FILE]

Input: reads simulated from the E. coli 536 genome the tests carry
(tests/data/NC_008253.fna.gz) by the app's C simulator
(``pybcl.apps._kernels.simulate_reads``: 100 bp, 1 % substitutions, seed 1), at each
coverage, cached under $TMPDIR/pybcl_bench.  For each coverage and rank
count P, one run each of

  bcalm -in reads.fq -kmer-size 31 -abundance-min 2 -nb-cores P
  mpiexec -n P python -m pybcl.apps.contigs reads.fq -k 31 --min-count 2 -o ... --json ...

(P above the core count is oversubscribed), plus pybcl on the rma transport
at --rma-ranks, and with --hosts H pybcl across H network-namespace hosts,
one rank each, over TCP (benchmarks/_netns.py; root), against BCALM 2 with
H cores.  "wall" is the whole command for both (start-up, counting,
graph, output); pybcl's phases come from its --json.  Every pybcl output is
checked against BCALM 2's as unitig sets (each unitig as its set of
canonical k-mers): "same_as_bcalm".  Speed-up = BCALM wall / pybcl wall at
the same P.  The 1-minute load average is recorded before each run.
"""
import argparse
import contextlib
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _netns import netns_hosts  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GENOME = os.path.join(ROOT, "tests", "data", "NC_008253.fna.gz")
sys.path.insert(0, ROOT)


def reads_file(coverage):
    from pybcl.apps import _kernels
    out_dir = os.path.join(tempfile.gettempdir(), "pybcl_bench")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"ecoli_{coverage}x_sim.fq")
    if not os.path.exists(path):
        genome = b"".join(l.strip() for l in gzip.open(GENOME) if not l.startswith(b">"))
        n = int(round(coverage * len(genome) / 100))
        with open(path + ".tmp", "wb") as fh:
            fh.write(_kernels.simulate_reads(genome, n, 100, 0.01, 1))
        os.replace(path + ".tmp", path)
    return path


def load():
    return os.getloadavg()[0]


def timed(cmd, env=None, cwd=None):
    la = load()
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=3600)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return dt, la


def unitig_partition(path, k=31):
    """(sorted canonical k-mers, unitig id of each) of a FASTA of unitigs."""
    from pybcl.apps import _kernels
    seqs = [l.strip() for l in open(path, "rb") if l.strip() and not l.startswith(b">")]
    kmers = _kernels.kmers_from_bytes(b"".join(b">\n" + s + b"\n" for s in seqs), k)
    ids = np.repeat(np.arange(len(seqs)), [len(s) - k + 1 for s in seqs])
    order = np.argsort(kmers, kind="stable")
    return kmers[order], ids[order], len(seqs)


def same_unitigs(a, b):
    """Same k-mers, and the unitig ids pair up one to one."""
    (ka, ia, na), (kb, ib, nb) = a, b
    if na != nb or not np.array_equal(ka, kb):
        return False
    pairs = np.unique(ia.astype(np.int64) * (nb + 1) + ib)
    return len(pairs) == na


def bench_coverage(args, cov, work, env, launch):
    """BCALM 2, then pybcl, at every rank count (and across hosts) on one coverage."""
    runs, reads, want = [], reads_file(cov), None
    bcalm_ranks = sorted(set(args.ranks) | ({args.hosts} if args.hosts else set()))
    for P in bcalm_ranks:
        bdir = os.path.join(work, f"bcalm_{cov}_{P}")
        os.makedirs(bdir)
        wall, la = timed(["bcalm", "-in", reads, "-kmer-size", "31", "-abundance-min", "2",
                          "-nb-cores", str(P), "-out", "u", "-verbose", "0"], cwd=bdir)
        if want is None:
            want = unitig_partition(os.path.join(bdir, "u.unitigs.fa"))
        runs.append({"tool": "bcalm", "coverage": cov, "ranks": P, "wall_seconds": wall,
                     "unitigs": want[2], "load_before": la})
        shutil.rmtree(bdir)
        print(json.dumps(runs[-1]), flush=True)
    jobs = [(P, "shm", 1, [_mpi.mpiexec(), "-n", str(P)]) for P in args.ranks]
    jobs += [(P, "rma", 1, [_mpi.mpiexec(), "-n", str(P)]) for P in args.rma_ranks]
    if launch:       # one rank per host; the transport is auto's choice there (rma)
        jobs.append((args.hosts, None, args.hosts, launch(per_host=1)))
    for P, transport, hosts, launcher in jobs:
        fa, js = os.path.join(work, "u.fa"), os.path.join(work, "u.json")
        job_env = dict(env, PYBCL_TRANSPORT=transport) if transport else env
        wall, la = timed(launcher + [sys.executable, "-m", "pybcl.apps.contigs", reads,
                                     "-k", "31", "--min-count", "2", "-o", fa,
                                     "--json", js, "--quiet"], env=job_env)
        st = json.load(open(js))
        same = same_unitigs(unitig_partition(fa), want)
        bc = next(r for r in runs if r["tool"] == "bcalm" and r["ranks"] == P)
        runs.append({"tool": "pybcl", "coverage": cov, "ranks": P,
                     "transport": st.get("transport", transport), "hosts": hosts,
                     "wall_seconds": wall, "unitigs": st["unitigs"], "n50": st["n50"],
                     "solid_kmers": st["solid_kmers"],
                     "seconds": {p: round(v, 3) for p, v in st["seconds"].items()},
                     "peak_rss_mib": max(st["peak_rss_bytes_per_rank"]) / 2**20,
                     "same_as_bcalm": bool(same),
                     "speedup_vs_bcalm": bc["wall_seconds"] / wall,
                     "load_before": la})
        print(json.dumps(runs[-1]), flush=True)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coverage", type=int, nargs="+", default=[5, 30])
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--rma-ranks", type=int, nargs="*", default=[2])
    ap.add_argument("--hosts", type=int, default=0,
                    help="also run pybcl across this many network-namespace hosts")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "bench_contigs.json"))
    args = ap.parse_args()
    if not shutil.which("bcalm"):
        raise SystemExit("bcalm (BCALM 2, Debian package bcalm) is not installed")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    work = tempfile.mkdtemp(prefix="bench_contigs_")
    runs = []
    hosts = netns_hosts(args.hosts) if args.hosts else contextlib.nullcontext()
    with hosts as launch:
        for cov in args.coverage:
            runs += bench_coverage(args, cov, work, env, launch)
    shutil.rmtree(work, ignore_errors=True)
    out = {"benchmark": "contigs", "machine_cores": os.cpu_count(),
           "bcalm": subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "bcalm"],
                                   capture_output=True, text=True).stdout or "unknown",
           "runs": runs}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
