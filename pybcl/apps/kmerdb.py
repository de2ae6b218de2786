"""Count once, query later: a saved k-mer count map (``kmer --save DB``).

    python -m pybcl.apps.kmerdb query DB KMER... [--file F]
    python -m pybcl.apps.kmerdb histo DB [-o F]
    python -m pybcl.apps.kmerdb dump DB [-o F] [--min-count N]
    python -m pybcl.apps.kmerdb merge DB1 DB2... -o DB

Any rank count (``mpiexec -n P``), or none: a plain ``python -m`` is a
one-rank job.  Every command loads the database with ``pybcl.load``, so its
k-mers spread over this job's ranks, each owned by one: ``query`` looks
them up (``find_many``), ``histo`` adds up every rank's histogram, ``dump``
deals the k-mers to the ranks by range, each sorting, formatting and
writing its own (at its offset of the output), ``merge adds every database's
counts into one map through a ``HashMapBuffer`` and saves it.  A database
counted with ``--bloom`` holds the k-mers seen at least twice; its
histogram's count-1 line comes from the k-mers read, as the kmer app's
does (docs/apps.md).
"""
import argparse
import sys
from typing import Any, Optional, Sequence

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core
from pybcl.apps import _kernels
from pybcl.apps import _cli
from pybcl.apps.kmer import BUCKET_BYTES, histo_lines, QUEUE_ENTRIES, MESSAGE_ENTRIES

DUMP_ROWS = 1 << 20          # k-mers formatted per call of the C writer


class KmerDbError(_cli.InputError):
    """A database or query the command cannot take (same text on every rank)."""


# ---- opening ---------------------------------------------------------------------

def describe(path: str) -> dict[str, Any]:
    """pybcl.io.info of a k-mer count database (no MPI), checked: KmerDbError
    naming the path when it is not one."""
    problem = _cli.input_file_problem(path)
    if problem:
        raise KmerDbError(problem)
    try:
        info = pybcl.io.info(path)
    except (ValueError, OSError) as e:
        raise KmerDbError(str(e)) from None
    meta = info.get("meta") or {}
    k = meta.get("k")
    if (info["kind"] != "HashMap" or info["key_type"] != np.dtype(np.uint64) or
            info["value_type"] != np.dtype(np.int64) or not isinstance(k, int) or
            not 1 <= k <= 32):
        raise KmerDbError(f"{path}: not a k-mer count database (a saved HashMap of uint64 "
                          f"k-mers to int64 counts whose meta holds k, as kmer --save "
                          f"writes)")
    return info


def segment_for(infos: Sequence[dict[str, Any]], nprocs: int, copies: int = 1) -> int:
    """Bytes a rank's segment needs for `copies` maps as large as the largest
    of `infos` once loaded (capacity: the saved one, or twice the entries),
    plus a HashMapBuffer's inbox."""
    buckets = max(max(int(i["capacity"]), 2 * int(i["entries"])) for i in infos)
    return copies * BUCKET_BYTES * (buckets // nprocs + 1) + QUEUE_ENTRIES * 24 + (64 << 20)


def start(need: int) -> None:
    """Start pybcl (unless running already) with a segment of at least `need`
    bytes a rank."""
    if not _core.initialized():
        pybcl.init(segment_size=max(need, pybcl._env.segment_size()))


def open_counts(path: str) -> tuple[Any, dict[str, Any]]:
    """Collective: the database at `path` loaded over this job's ranks, and
    its info (KmerDbError on every rank when it is not one)."""
    info = _agreed(lambda: describe(path))
    start(segment_for([info], _cli.world()[1]))
    return pybcl.load(path), info


def _agreed(fn: Any) -> Any:
    """fn() on every rank; a KmerDbError on any rank is raised on all."""
    problem, out = None, None
    try:
        out = fn()
    except KmerDbError as e:
        problem = str(e)
    problem = _cli.agree(problem)
    if problem:
        raise KmerDbError(problem)
    return out


# ---- the commands ----------------------------------------------------------------

def codes_of(kmers: Sequence[str], k: int) -> NDArray[np.uint64]:
    """Canonical codes of k-mers as typed (lowercase taken); KmerDbError
    naming the first invalid one."""
    out = np.empty(len(kmers), dtype=np.uint64)
    for i, s in enumerate(kmers):
        if len(s) != k:
            raise KmerDbError(f"k-mer {s!r}: {len(s)} bases, the database's k is {k}")
        try:
            out[i] = _kernels.kmer_encode(s.upper())
        except ValueError:
            raise KmerDbError(f"k-mer {s!r}: only A, C, G and T make a k-mer") from None
    return out


def query(m: Any, codes: NDArray[np.uint64]) -> NDArray[np.int64]:
    """The counts of `codes` (0 when absent), looked up from this rank."""
    values, found = m.find_many(codes)
    out: NDArray[np.int64] = np.where(found, values, 0).astype(np.int64)
    return out


def histogram(m: Any, meta: dict[str, Any]) -> NDArray[np.int64]:
    """Collective: hist[c] = k-mers counted c times (hist[0] = 0)."""
    _, counts = m.local_arrays()
    h = np.bincount(counts) if len(counts) else np.zeros(1, dtype=np.int64)
    n = int(pybcl.allreduce(np.array([len(h)], dtype=np.int64), "max")[0])
    mine = np.zeros(max(n, 2), dtype=np.int64)
    mine[:len(h)] = h
    mine[0] = 0
    hist: NDArray[np.int64] = pybcl.allreduce(mine, "sum")
    if meta.get("bloom") and isinstance(meta.get("kmers_total"), int):
        # singletons never entered the map: every k-mer read not in a stored count
        hist[1] = max(0, meta["kmers_total"] - int((np.arange(2, len(hist)) * hist[2:]).sum()))
    return hist


def _by_range(keys: NDArray[np.uint64], counts: NDArray[np.int64]
              ) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """Collective: every rank's entries re-dealt so rank r holds the r-th
    range of keys (splitters from a sample of every rank's keys), sorted."""
    comm, P = pybcl.comm(), pybcl.nprocs()
    if P > 1:
        step = max(1, len(keys) // 1024)
        sample = np.sort(np.concatenate(comm.allgather(keys[::step])))
        splitters = sample[(np.arange(1, P) * len(sample)) // P] if len(sample) else \
            np.zeros(P - 1, dtype=np.uint64)
        dest = np.searchsorted(splitters, keys, side="right").astype(np.uint16)
        order = np.argsort(dest, kind="stable")              # a radix sort of 16 bits
        send = np.bincount(dest, minlength=P)
        recv = np.array(comm.alltoall(send.tolist()))
        got_keys = np.empty(int(recv.sum()), dtype=np.uint64)
        got_counts = np.empty(int(recv.sum()), dtype=np.int64)
        comm.Alltoallv([keys[order], send], [got_keys, recv])
        comm.Alltoallv([counts[order], send], [got_counts, recv])
        keys, counts = got_keys, got_counts
    order = np.argsort(keys)                     # the keys are distinct
    return keys[order], counts[order]


def dump(m: Any, k: int, min_count: int, path: Optional[str]) -> None:
    """Collective: `kmer<TAB>count` lines of every k-mer counted at least
    min_count times, in ascending k-mer order, to `path` (stdout: None).
    Each rank sorts and formats one range of k-mers and writes it at its
    offset, so the bytes do not depend on the rank count."""
    keys, counts = m.local_arrays()
    keep = counts >= min_count
    keys, counts = _by_range(keys[keep], counts[keep])
    text = b"".join(_kernels.kmer_tsv(keys[lo:lo + DUMP_ROWS], counts[lo:lo + DUMP_ROWS], k)
                    for lo in range(0, len(keys), DUMP_ROWS))
    comm, me = pybcl.comm(), pybcl.rank()
    sizes = comm.allgather(len(text))
    if path is None:                             # rank 0 prints every range, in order
        if me:
            comm.send(text, dest=0)
            return
        for r in range(pybcl.nprocs()):
            sys.stdout.buffer.write(comm.recv(source=r) if r else text)
        return
    if me == 0:
        with open(path, "wb") as fh:
            fh.truncate(sum(sizes))
    pybcl.barrier()
    with open(path, "r+b") as fh:
        fh.seek(sum(sizes[:me]))
        fh.write(text)
    pybcl.barrier()


def merge(paths: Sequence[str], out: str) -> dict[str, Any]:
    """Collective: the union of the databases at `paths`, counts summed,
    saved at `out`; returns its meta.  KmerDbError when their k differ."""
    infos = _agreed(lambda: [describe(p) for p in paths])
    ks = sorted({i["meta"]["k"] for i in infos})
    if len(ks) > 1:
        raise KmerDbError(f"the databases were counted with different k ({ks}): "
                          + ", ".join(f"{p} k={i['meta']['k']}" for p, i in zip(paths, infos)))
    P = _cli.world()[1]
    start(segment_for(infos, P, copies=2 + len(infos)))
    total = sum(int(i["entries"]) for i in infos)
    union = pybcl.HashMap(2 * max(int(i["entries"]) for i in infos) + P,
                          key_type="uint64", value_type="int64")
    with pybcl.HashMapBuffer(union, QUEUE_ENTRIES, MESSAGE_ENTRIES, grow=True) as buf:
        for p in paths:
            m = pybcl.load(p)
            keys, counts = m.local_arrays()
            m.close()
            buf.accumulate_many(keys, counts)
            buf.flush()
    metas = [i["meta"] for i in infos]
    totals = [m.get("kmers_total") for m in metas]
    meta = {"app": "pybcl.apps.kmerdb merge", "k": ks[0],
            "canonical": all(m.get("canonical", True) for m in metas),
            "bloom": any(m.get("bloom") for m in metas),
            "min_count": min(m.get("min_count", 1) for m in metas),
            "kmers_total": sum(totals) if all(isinstance(t, int) for t in totals) else None,
            "inputs": list(paths)}
    union.save(out, meta=meta)
    union.close()
    meta["entries_in"] = total
    return meta


# ---- command line ----------------------------------------------------------------

def _write(data: bytes, path: Optional[str]) -> None:
    if path:
        with open(path, "wb") as fh:
            fh.write(data)
    else:
        sys.stdout.buffer.write(data)


def _parser() -> _cli.Parser:
    ap = _cli.Parser(prog="python -m pybcl.apps.kmerdb",
                     description="Query, histogram, dump or merge saved k-mer count "
                                 "databases (kmer --save DB), at any rank count.")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_cli.Parser)
    q = sub.add_parser("query", help="counts of the k-mers asked (0 when absent)")
    q.add_argument("db", metavar="DB")
    q.add_argument("kmers", nargs="*", metavar="KMER")
    q.add_argument("--file", metavar="F", help="more k-mers, one a line")
    h = sub.add_parser("histo", help="the count histogram, Jellyfish's histo format")
    h.add_argument("db", metavar="DB")
    h.add_argument("-o", "--output", metavar="F")
    d = sub.add_parser("dump", help="KMER<TAB>COUNT lines in ascending k-mer order")
    d.add_argument("db", metavar="DB")
    d.add_argument("-o", "--output", metavar="F")
    d.add_argument("--min-count", type=int, default=1, metavar="N",
                   help="only k-mers counted at least N times (default 1)")
    m = sub.add_parser("merge", help="the union of databases, counts summed")
    m.add_argument("dbs", nargs="+", metavar="DB")
    m.add_argument("-o", "--output", metavar="DB", required=True)
    return ap


def _query_list(args: argparse.Namespace) -> list[str]:
    kmers = list(args.kmers)
    if args.file:
        problem = _cli.input_file_problem(args.file)
        if problem:
            raise KmerDbError(problem)
        with open(args.file) as fh:
            kmers += [line.strip() for line in fh if line.strip()]
    if not kmers:
        raise KmerDbError("query: give KMERs or --file")
    return kmers


def _run(args: argparse.Namespace, prog: str) -> int:
    me = _cli.world()[0]
    if args.command == "merge":
        if not _cli.check_outputs(prog, (("-o", args.output),)):
            return _cli.INPUT
        merge(args.dbs, args.output)
        return 0
    if not _cli.check_outputs(prog, (("-o", getattr(args, "output", None)),)):
        return _cli.INPUT
    kmers = _agreed(lambda: _query_list(args)) if args.command == "query" else []
    m, info = open_counts(args.db)
    k = info["meta"]["k"]
    if args.command == "query":
        codes = _agreed(lambda: codes_of(kmers, k))
        if me == 0:
            counts = query(m, codes)
            _write("".join(f"{s}\t{int(c)}\n" for s, c in zip(kmers, counts)).encode(), None)
    elif args.command == "histo":
        hist = histogram(m, info["meta"])
        if me == 0:
            _write(histo_lines(hist).encode(), args.output)
    else:
        dump(m, k, args.min_count, args.output)
    sys.stdout.flush()
    m.close()
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.command == "dump":
        ap.at_least("--min-count", args.min_count, 1)
    try:
        status = _run(args, ap.prog)
    except KmerDbError as e:
        _cli.say_error(ap.prog, str(e))
        return _cli.INPUT
    if _core.initialized():
        pybcl.barrier()
    return status


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
