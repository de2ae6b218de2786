"""Word counting with str keys: pybcl's HashMap + HashMapBuffer against a
Python Counter per rank + mpi4py alltoall, same job, same words.

    python benchmarks/bench_word_count.py [--ranks 1,2] [--repeats 5]
        [--copies 1] [--out FILE.json]

Corpus: the `.py` sources of the running Python's standard library
(sysconfig's "stdlib" path, site-packages and __pycache__ left out), files in
sorted order, file i read by rank i mod P; words are `re.findall(r"\\w+")`
of each file, and `--copies` repeats each rank's word list.  Tokenizing is
not timed.  Timed, from this rank's word list in memory to the distributed
counts (slowest rank, best of `repeats`, each repeat from an empty map):

  pybcl     HashMap(1 << 12, key_type=str, value_type="int64") and
            `with HashMapBuffer(m, 1 << 16, 1 << 12, grow=True) as buf:
            buf.accumulate_many(words)` (the map grows to fit), then a
            barrier;
  baseline  `Counter(words)`, the counts split into one dict per owner
            (owner: hash(word) % P; PYTHONHASHSEED is fixed for the job so
            every rank agrees), `comm.alltoall` of the dicts, and each
            owner's merge of what it received with `Counter.update`.

Both results are gathered (untimed) and must be the same counts, with the
total equal to the number of words.  Prints one JSON object (and writes it
with --out).  Seconds on a shared 2-core machine are noisy.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _scaling  # noqa: E402
from _report import emit, worker_result  # noqa: E402

WORD = re.compile(r"\w+")


def corpus_files():
    root = sysconfig.get_paths()["stdlib"]
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("site-packages", "__pycache__"))
        files += [os.path.join(d, f) for f in sorted(names) if f.endswith(".py")]
    return root, files


def my_words(files, rank, nprocs, copies):
    words, nbytes = [], 0
    for f in files[rank::nprocs]:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        nbytes += len(text.encode("utf-8", errors="replace"))
        words += WORD.findall(text)
    return words * copies, nbytes * copies


def count_pybcl(words):
    import pybcl
    m = pybcl.HashMap(1 << 12, key_type=str, value_type="int64")
    with pybcl.HashMapBuffer(m, 1 << 16, 1 << 12, grow=True) as buf:
        buf.accumulate_many(words)
    pybcl.barrier()
    return m


def count_baseline(words, comm):
    from collections import Counter
    P = comm.Get_size()
    local = Counter(words)
    out = [{} for _ in range(P)]
    for w, c in local.items():
        out[hash(w) % P][w] = c
    merged = Counter()
    for d in comm.alltoall(out):
        merged.update(d)
    comm.Barrier()
    return merged


def timed(fn, comm):
    comm.Barrier()
    t = time.perf_counter()
    r = fn()
    dt = time.perf_counter() - t
    return r, comm.allreduce(dt, op=max)


def worker(copies, repeats):
    from mpi4py import MPI
    import pybcl
    comm = MPI.COMM_WORLD
    root, files = corpus_files()
    words, nbytes = my_words(files, comm.Get_rank(), comm.Get_size(), copies)
    best = {"pybcl": float("inf"), "baseline": float("inf")}
    m = merged = None
    for _ in range(repeats):
        m, dt = timed(lambda: count_pybcl(words), comm)
        best["pybcl"] = min(best["pybcl"], dt)
        merged, dt = timed(lambda: count_baseline(words, comm), comm)
        best["baseline"] = min(best["baseline"], dt)
    ours = dict(m.items())                  # collective: every rank's share
    theirs = {}
    for d in comm.allgather(dict(merged)):
        theirs.update(d)
    nwords = comm.allreduce(len(words))
    res = {"ranks": comm.Get_size(), "transport": str(pybcl.transport()),
           "words": nwords, "distinct": len(theirs),
           "corpus_bytes": comm.allreduce(nbytes), "corpus_files": len(files),
           "corpus_root": root, "pybcl_seconds": best["pybcl"],
           "baseline_seconds": best["baseline"],
           "baseline_over_pybcl": best["baseline"] / best["pybcl"],
           "counts_equal": bool(ours == theirs and sum(ours.values()) == nwords)}
    if comm.Get_rank() == 0:
        print("RESULT " + json.dumps(res), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--out", metavar="FILE")
    a = ap.parse_args()
    if a.worker:
        return worker(a.copies, a.repeats)
    res = {"benchmark": "word_count", "cores": _scaling.cores(),
           "corpus": "the .py files of Python's standard library (sysconfig stdlib), "
                     "words = re.findall(r'\\w+')",
           "python": sys.version.split()[0], "copies": a.copies,
           "load_average_start": _scaling.load(),
           "timing": "seconds from each rank's word list to the distributed counts, "
                     "slowest rank, best of repeats", "points": []}
    env = dict(_scaling.env(), PYTHONHASHSEED="0")
    for P in [int(p) for p in a.ranks.split(",")]:
        cmd = [_scaling.mpiexec(), "-n", str(P), sys.executable, os.path.abspath(__file__),
               "--worker", "--copies", str(a.copies), "--repeats", str(a.repeats)]
        pt = worker_result(cmd, env, timeout=1800)
        pt["oversubscribed"] = P > _scaling.cores()
        print(json.dumps({k: pt[k] for k in ("ranks", "pybcl_seconds", "baseline_seconds",
                                             "baseline_over_pybcl",
                                             "counts_equal")}), file=sys.stderr)
        res["points"].append(pt)
    by = {p["ranks"]: p for p in res["points"]}
    res["goals"] = {"str_word_count_speedup_over_counter_alltoall_at_2_ranks":
                    by[2]["baseline_over_pybcl"] if 2 in by else None,
                    "goal": 3.0}
    res["load_average_end"] = _scaling.load()
    emit(res, a.out)
    return 0 if all(p["counts_equal"] for p in res["points"]) else 1


if __name__ == "__main__":
    sys.exit(main())
