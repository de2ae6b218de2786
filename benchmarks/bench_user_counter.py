"""A user's own k-mer counter on pybcl's public containers, against the k-mer app
and KMC 3, same machine, same file, one run.

    python benchmarks/bench_user_counter.py [--ranks 1,2,4] [--transports shm,rma]
        [--repeats 2] [--coverage 5] [--reads FASTQ] [--out FILE.json]

The user's counter is `count_kmers` below: `read_kmers` for this rank's share
of the file, a `HashMap(uint64 -> int64)` filled through a `HashMapBuffer`
with `grow=True` (so no distinct count is guessed; the segment is set large
enough for the map to double into), then the histogram of this
rank's `local_arrays()` summed over the ranks.  Nothing in it is private API.
It is compared with the app, which counts the same way (its own reading
loop, segment sizing and figures around the same containers), and KMC 3:

  mpiexec -n P python -m pybcl.apps.kmer reads.fq -k 31 --json ...
  kmc -k31 -ci1 -cs1000000 -t P -m 4 reads.fq db tmp

Input: E. coli 536 reads simulated at COVERAGE x by pybcl's own simulator
(benchmarks/_reads.py), cached under $TMPDIR/pybcl_bench.  Seconds are the
wall time of the whole command (Python start-up, MPI init, reading, counting,
the histogram), best of `repeats`; the user's counter also reports its count
and histogram phases (slowest rank).  Every run's histogram is checked against
the app's; KMC's too.  Ranks beyond the cores present are marked
oversubscribed.  Prints one JSON object (and writes it with --out).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _reads  # noqa: E402
import _scaling  # noqa: E402
from _report import emit  # noqa: E402

K = 31


def count_kmers(path, k=K):
    """The user's counter: public pybcl only.  Returns ({count: kmers}, phases)."""
    import numpy as np
    from mpi4py import MPI
    import pybcl
    from pybcl.apps.kmer import read_kmers

    pybcl.init(segment_size="2G")        # room for the map to double into
    t0 = time.perf_counter()
    counts = pybcl.HashMap(1 << 20, key_type="uint64", value_type="int64")
    with pybcl.HashMapBuffer(counts, 1 << 21, 1 << 16, grow=True) as buf:
        for codes in read_kmers(path, k):
            buf.accumulate_many(codes)
    pybcl.barrier()
    t1 = time.perf_counter()
    _, mine = counts.local_arrays()
    local = np.bincount(mine) if mine.size else np.zeros(1, np.int64)
    width = MPI.COMM_WORLD.allreduce(local.size, op=MPI.MAX)
    histo = np.zeros(width, np.int64)
    histo[:local.size] = local
    MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, histo, op=MPI.SUM)
    t2 = time.perf_counter()
    phases = {"count": t1 - t0, "histogram": t2 - t1}
    phases = {name: MPI.COMM_WORLD.allreduce(s, op=MPI.MAX) for name, s in phases.items()}
    return {c: int(n) for c, n in enumerate(histo) if c and n}, phases


def worker(path):
    histo, phases = count_kmers(path)
    import pybcl
    if pybcl.rank() == 0:
        print("RESULT " + json.dumps({"histogram": histo, "phases": phases,
                                      "transport": pybcl.transport(),
                                      "kmers_total": sum(c * n for c, n in histo.items()),
                                      "distinct": sum(histo.values())}), flush=True)


def run_user(P, transport, reads):
    cmd = [_scaling.mpiexec(), "-n", str(P), sys.executable, os.path.abspath(__file__),
           "--worker", reads]
    dt, r, l0, l1 = _scaling.timed(cmd, environ=dict(_scaling.env(), PYBCL_TRANSPORT=transport))
    line = next(x for x in r.stdout.splitlines() if x.startswith("RESULT "))
    res = json.loads(line[7:])
    res["histogram"] = {int(c): n for c, n in res["histogram"].items()}
    return dict(res, seconds=dt, load_before=l0, load_after=l1)


def run_app(P, transport, reads, work):
    js = os.path.join(work, "app.json")
    cmd = [_scaling.mpiexec(), "-n", str(P), sys.executable, "-m", "pybcl.apps.kmer", reads,
           "-k", str(K), "--quiet", "--json", js]
    dt, _, l0, l1 = _scaling.timed(cmd, environ=dict(_scaling.env(), PYBCL_TRANSPORT=transport))
    with open(js) as fh:
        fig = json.load(fh)
    return {"seconds": dt, "load_before": l0, "load_after": l1,
            "histogram": {int(c): n for c, n in fig.pop("histogram")},
            "phases": fig.get("seconds"), "transport": fig.get("transport")}


def run_kmc(P, reads, work):
    db, tmp = os.path.join(work, "kmc_db"), os.path.join(work, "kmc_tmp")
    os.makedirs(tmp, exist_ok=True)
    dt, _, l0, l1 = _scaling.timed(["kmc", f"-k{K}", "-ci1", "-cs1000000", f"-t{P}", "-m4",
                                    "-fq", reads, db, tmp])
    h = os.path.join(work, "kmc.histo")
    subprocess.run(["kmc_tools", "transform", db, "histogram", h, "-ci1", "-cx1000000"],
                   check=True, capture_output=True)
    with open(h) as fh:
        histo = _scaling.parse_histo(fh.read())
    return {"seconds": dt, "load_before": l0, "load_after": l1, "histogram": histo}


def best_of(runs):
    return min(runs, key=lambda r: r["seconds"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", metavar="READS", help=argparse.SUPPRESS)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--transports", default="shm,rma")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--coverage", type=int, default=5)
    ap.add_argument("--reads", help="count this FASTQ instead of the simulated reads")
    ap.add_argument("--no-kmc", action="store_true", help="leave KMC 3 out")
    ap.add_argument("--out", metavar="FILE")
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker)
    if not a.no_kmc:
        _scaling.ensure_debian_packages({"kmc": "kmc", "kmc_tools": "kmc"})
    reads = a.reads or _reads.ecoli_reads(a.coverage)
    work = tempfile.mkdtemp(prefix="bench_user_counter_")
    res = {"benchmark": "user_counter", "k": K, "reads": reads,
           "reads_bytes": os.path.getsize(reads), "cores": _scaling.cores(),
           "load_average_start": _scaling.load(),
           "timing": "wall seconds of the whole command, best of repeats", "points": []}
    for P in [int(p) for p in a.ranks.split(",")]:
        for transport in a.transports.split(","):
            user, app = [], []
            for _ in range(a.repeats):
                user.append(run_user(P, transport, reads))
                app.append(run_app(P, transport, reads, work))
            u, ap_ = best_of(user), best_of(app)
            pt = {"ranks": P, "transport": transport, "oversubscribed": P > _scaling.cores(),
                  "user": {x: u[x] for x in ("seconds", "phases", "load_before", "load_after")},
                  "app": {x: ap_[x] for x in ("seconds", "phases", "load_before", "load_after")},
                  "user_over_app_seconds": u["seconds"] / ap_["seconds"],
                  "histogram_equal_app": all(r["histogram"] == ap_["histogram"]
                                             for r in user + app),
                  "distinct": sum(ap_["histogram"].values()),
                  "kmers_total": sum(c * n for c, n in ap_["histogram"].items())}
            if not a.no_kmc and transport == a.transports.split(",")[0]:
                kmc = best_of([run_kmc(P, reads, work) for _ in range(a.repeats)])
                pt["kmc"] = {"seconds": kmc["seconds"],
                             "histogram_equal_app": kmc["histogram"] == ap_["histogram"]}
                pt["app_speedup_over_kmc"] = kmc["seconds"] / ap_["seconds"]
            print(json.dumps({k: pt[k] for k in ("ranks", "transport", "user_over_app_seconds",
                                                 "histogram_equal_app")}), file=sys.stderr)
            res["points"].append(pt)
    by = {(p["ranks"], p["transport"]): p for p in res["points"]}
    res["goals"] = {
        "user_over_app_at_1_and_2": {f"{P}/{t}": by[(P, t)]["user_over_app_seconds"]
                                     for (P, t) in by if P in (1, 2)},
        "user_2_ranks_faster_than_1": {t: by[(2, t)]["user"]["seconds"] < by[(1, t)]["user"]["seconds"]
                                       for (P, t) in by if P == 2 and (1, t) in by},
        "user_rma_over_shm_at_2": (by[(2, "rma")]["user"]["seconds"] / by[(2, "shm")]["user"]["seconds"]
                                   if (2, "rma") in by and (2, "shm") in by else None),
    }
    res["load_average_end"] = _scaling.load()
    emit(res, a.out)
    return 0 if all(p["histogram_equal_app"] for p in res["points"]) else 1


if __name__ == "__main__":
    sys.exit(main())
