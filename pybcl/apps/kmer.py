"""Distributed k-mer counting with a pybcl HashMap (BCL paper, section 9.2.2).

    mpiexec -n P python -m pybcl.apps.kmer READS... [-k 31] [--bloom]
        [--histo FILE] [--counts FILE] [--json FILE] [--demo]

What happens, on every rank (SPMD):

1. *scan* -- each rank streams every input file through the C parser
   (``pybcl._core.KmerReader``: FASTA/FASTQ, gzipped or not) and keeps its
   share of the k-mer occurrences: the k-mers whose last base lies in a
   1 MiB block of the decompressed stream that it owns (block b belongs to
   rank b mod P; file i's blocks are rotated by i so many small files spread
   too).  The ranks' shares partition the occurrences exactly, whatever the
   record lengths.  This first pass only feeds a HyperLogLog sketch: the
   number of distinct k-mers sizes the hash table (and the Bloom filter)
   before anything is inserted, so the table never fills up mid-run.
2. *count* -- the same stream again, chunk by chunk (one NumPy uint64 array
   of canonical k-mers per 4 MiB read), into
   ``HashMapBuffer(HashMap(uint64 -> int64)).accumulate_many``.  Python only
   ever sees whole arrays.

   With ``--bloom`` (the paper's optimisation) each chunk first goes through
   the distributed ``BloomFilter.insert_many``; only the k-mers that were
   already present are accumulated.  The first occurrence of every k-mer is
   therefore never stored: a k-mer seen c times has c - 1 in the table and a
   singleton is not in the table at all.  We report c (table value + 1), as
   HipMer does; the histogram's count-1 line is derived as (total k-mers) -
   (sum of the reported counts), i.e. the occurrences the table never saw.
   Bloom false positives (about 1 % here) make a few counts one too high
   (and a few singletons appear as 2); without ``--bloom`` counts are exact.
3. *output* -- the global histogram (Jellyfish ``histo`` format: ``count
   number_of_kmers`` ascending), ``--counts`` (``KMER<TAB>COUNT``, each rank
   appends its entries sorted by k-mer code, rank 0 first), ``--json`` (the
   run's figures), and on stdout the top k-mers and the histogram head.

k-mers/s in the JSON is total k-mer occurrences / (scan + count seconds): from
the first byte read to the table complete, output excluded.
"""
import argparse
import gzip
import json
import os
import sys
import time
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core

BUCKET_BYTES = 32          # >= one HashMap bucket of uint64 -> int64 (status, key, value)
LOAD = 2.4                 # table capacity / distinct k-mers (the table takes >= 1/2 full)
CHUNK_BYTES = 4 << 20
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
DEMO_GENOME = os.path.join(DATA_DIR, "lambda_virus.fa.gz")


# ---- inputs -----------------------------------------------------------------

class BytesSource:
    """FASTA/FASTQ held in memory (the demo's simulated reads)."""

    def __init__(self, data: Union[bytes, bytearray, memoryview], name: str = "<memory>") -> None:
        self.data, self.name = bytes(data), name

    def kmers(self, k: int, rank: int, nprocs: int) -> Iterator[NDArray[np.uint64]]:
        step = 1 << 20
        arr = _core.kmers_from_bytes(self.data, k, rank, nprocs)   # one array, handed
        for off in range(0, len(arr), step):
            yield arr[off:off + step]
        if len(arr) == 0:
            yield arr

    def __str__(self) -> str:
        return self.name


class FileSource:
    def __init__(self, path: str) -> None:
        if not os.path.exists(path):
            raise FileNotFoundError(f"READS: no such file: {path}")
        self.path = path

    def kmers(self, k: int, rank: int, nprocs: int) -> Iterator[NDArray[np.uint64]]:
        reader = _core.KmerReader(self.path, k, rank, nprocs, CHUNK_BYTES)
        try:
            yield from reader
        finally:
            reader.close()

    def __str__(self) -> str:
        return self.path


def read_genome(path: str) -> bytes:
    """Sequence bytes of a (gzipped) FASTA, records concatenated with 'N'."""
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    seqs: list[bytes] = []
    cur: list[bytes] = []
    with opener(path, "rb") as fh:
        for line in fh:
            if line.startswith(b">"):
                if cur:
                    seqs.append(b"".join(cur))
                cur = []
            else:
                cur.append(line.strip().upper())
    if cur:
        seqs.append(b"".join(cur))
    return b"N".join(seqs)


def demo_reads(coverage: float = 30, length: int = 100, error_rate: float = 0.01, seed: int = 1,
               genome_path: str = DEMO_GENOME) -> bytes:
    """Reads simulated (PCG32, deterministic) from the genome the package ships."""
    genome = read_genome(genome_path)
    n = int(round(coverage * len(genome) / length))
    return _core.simulate_reads(genome, n, length, error_rate, seed)


# ---- the counting -------------------------------------------------------------

def _mpi_comm() -> Any:
    if _core.initialized():
        return pybcl.comm()
    from mpi4py import MPI
    return MPI.COMM_WORLD


class Progress:
    """A progress line on stderr (rank 0), at most every `every` seconds."""

    def __init__(self, enabled: bool, every: float = 2.0) -> None:
        self.enabled, self.every = enabled, every
        self.t0 = self.last = time.perf_counter()

    def __call__(self, phase: str, kmers: int, force: bool = False) -> None:
        now = time.perf_counter()
        if not self.enabled or (not force and now - self.last < self.every):
            return
        self.last = now
        rate = kmers / max(now - self.t0, 1e-9)
        sys.stderr.write(f"kmer [{phase}] {kmers / 1e6:8.2f} M k-mers counted on rank 0, "
                         f"{rate / 1e6:6.2f} M k-mers/s\n")
        sys.stderr.flush()


def _rotated(rank: int, nprocs: int, i: int) -> int:
    return (rank - i) % nprocs


def _local_table(m: pybcl.HashMap) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """This rank's (keys, values) as two arrays."""
    if hasattr(_core, "kmer_table_local"):
        return _core.kmer_table_local(m)
    items = m.local_items()
    keys = np.fromiter((kv[0] for kv in items), dtype=np.uint64, count=len(items))
    vals = np.fromiter((kv[1] for kv in items), dtype=np.int64, count=len(items))
    return keys, vals


Source = Union["BytesSource", "FileSource"]


def count_kmers(sources: Sequence[Union[Source, bytes, bytearray, memoryview, str]], k: int = 31,
                bloom: bool = False, capacity: Optional[int] = None,
                queue_size: Optional[int] = None, message_size: int = 4096, fpr: float = 0.01,
                progress: bool = False, buffered: Optional[bool] = None) -> dict[str, Any]:
    """Collective.  Counts the canonical k-mers of `sources` (paths or bytes).

    Returns a dict: 'keys', 'counts' (this rank's table entries; counts as
    reported, i.e. +1 under bloom), 'stats' (global figures, same on every
    rank) and 'histogram' (int64 array: histogram[c] = k-mers seen c times).
    buffered: count through a HashMapBuffer (default, when pybcl has it) or
    with the hash map's own pipelined accumulate_many (False).
    """
    if not isinstance(k, int) or not 1 <= k <= 32:
        raise ValueError(f"k must be an int in [1, 32], got {k!r}")
    srcs: list[Source] = [s if isinstance(s, (BytesSource, FileSource)) else
            BytesSource(s) if isinstance(s, (bytes, bytearray, memoryview)) else
            FileSource(os.fspath(s)) for s in sources]
    comm = _mpi_comm()
    me, P = comm.Get_rank(), comm.Get_size()
    prog = Progress(progress and me == 0)
    seconds: dict[str, float] = {}
    t_start = time.perf_counter()

    # -- scan: HyperLogLog of this rank's share, merged --------------------------
    regs = np.zeros(_core.HLL_REGISTERS, dtype=np.uint8)
    local_total = 0
    for i, src in enumerate(srcs):
        for arr in src.kmers(k, _rotated(me, P, i), P):
            _core.hll_add(regs, arr)
            local_total += len(arr)
    from mpi4py import MPI
    comm.Allreduce(MPI.IN_PLACE, regs, op=MPI.MAX)
    total = comm.allreduce(local_total, op=MPI.SUM)
    distinct_est = _core.hll_estimate(regs)
    if capacity is None:
        capacity = max(1024, int(LOAD * distinct_est) + 64)
    if queue_size is None:
        queue_size = max(4 * message_size * P, 1 << 16)
    seconds["scan"] = time.perf_counter() - t_start

    # -- set-up: size the segment for the table, the buffer and the filter ------
    t = time.perf_counter()
    need = (capacity * BUCKET_BYTES // P + queue_size * 16 + 2 * P * message_size * 16
            + (int(distinct_est * 10 / 8 / P) if bloom else 0) + (64 << 20))
    if not _core.initialized():
        pybcl.init(segment_size=max(need, pybcl._env.segment_size()))
    m = pybcl.HashMap(capacity, key_type="uint64", value_type="int64")
    if buffered is None:
        buffered = hasattr(pybcl, "HashMapBuffer")
    buf = pybcl.HashMapBuffer(m, queue_size, message_size) if buffered else m
    bf = pybcl.BloomFilter(max(int(distinct_est * 1.05), 1024), fpr=fpr,
                           key_type="uint64") if bloom else None
    pybcl.barrier()
    seconds["setup"] = time.perf_counter() - t

    # -- count ----------------------------------------------------------------------
    t = time.perf_counter()
    done_kmers = 0
    for i, src in enumerate(srcs):
        it = src.kmers(k, _rotated(me, P, i), P)
        for arr in it:
            if bf is not None and len(arr):
                seen = bf.insert_many(arr)
                arr = arr[seen]
            if len(arr):
                buf.accumulate_many(arr)
            done_kmers += len(arr)
            prog("count", done_kmers)
    if isinstance(buf, pybcl.HashMapBuffer):
        buf.flush()
    pybcl.barrier()
    seconds["count"] = time.perf_counter() - t

    # -- gather: local entries, global histogram -------------------------------------
    t = time.perf_counter()
    t_scan = time.perf_counter()
    keys, vals = _local_table(m)
    seconds["table_scan"] = time.perf_counter() - t_scan
    counts = vals + 1 if bloom else vals
    h = np.bincount(counts) if len(counts) else np.zeros(1, dtype=np.int64)
    hlen = int(pybcl.allreduce(np.array([len(h)], dtype=np.int64), "max")[0])
    hist = np.zeros(max(hlen, 2), dtype=np.int64)
    hist[:len(h)] = h
    hist = pybcl.allreduce(hist, "sum")
    in_table = int(hist.sum())
    if bloom:   # singletons never reach the table: derive them (see module doc)
        hist[1] = max(0, total - int((np.arange(len(hist)) * hist).sum()))
    seconds["histogram"] = time.perf_counter() - t
    seconds["total"] = time.perf_counter() - t_start
    del buf
    stats = {
        "app": "kmer", "k": k, "ranks": P, "bloom": bool(bloom),
        "transport": pybcl.transport(),
        "inputs": [str(s) for s in srcs],
        "kmers_total": int(total),
        "distinct": int(hist[1:].sum()),
        "distinct_in_table": in_table,
        "distinct_estimate_hll": round(distinct_est),
        "capacity": int(capacity),
        "counting": "HashMapBuffer.accumulate_many" if buffered else "HashMap.accumulate_many",
        "kmers_per_s": total / max(seconds["scan"] + seconds["count"], 1e-9),
        "seconds": seconds,
    }
    return {"keys": keys, "counts": counts, "histogram": hist, "stats": stats, "map": m,
            "bloom_filter": bf}


# ---- output -----------------------------------------------------------------------

def histo_lines(hist: NDArray[np.int64]) -> str:
    return "".join(f"{c} {int(n)}\n" for c, n in enumerate(hist) if c > 0 and n > 0)


def top_kmers(res: dict[str, Any], n: int = 10) -> list[tuple[int, int]]:
    """Collective: the n most frequent k-mers (same list on every rank)."""
    keys, counts = res["keys"], res["counts"]
    idx = np.argsort(-counts, kind="stable")[:n]
    mine = list(zip(keys[idx].tolist(), counts[idx].tolist()))
    everyone = pybcl.comm().allgather(mine)
    merged = sorted((kv for part in everyone for kv in part), key=lambda kv: (-kv[1], kv[0]))
    return merged[:n]


def write_counts(res: dict[str, Any], path: str, k: int) -> None:
    """Collective: ranks append their entries (sorted by code) in turn, rank 0 first."""
    me, P = pybcl.rank(), pybcl.nprocs()
    order = np.argsort(res["keys"])
    data = _core.kmer_tsv(res["keys"][order], res["counts"][order], k)
    for r in range(P):
        if r == me:
            with open(path, "wb" if r == 0 else "ab") as fh:
                fh.write(data)
        pybcl.barrier()


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m pybcl.apps.kmer",
        description="Count canonical k-mers of FASTA/FASTQ files (gzipped or not) with a "
                    "distributed pybcl hash map.  Run under mpiexec.")
    ap.add_argument("reads", nargs="*", metavar="READS", help="FASTA/FASTQ files (.gz ok)")
    ap.add_argument("-k", type=int, default=31, help="k-mer length, 1..32 (default 31)")
    ap.add_argument("--bloom", action="store_true",
                    help="keep singletons out of the table with the distributed Bloom filter")
    ap.add_argument("--histo", metavar="FILE", help="histogram, Jellyfish histo format")
    ap.add_argument("--counts", metavar="FILE", help="KMER<TAB>COUNT lines")
    ap.add_argument("--json", metavar="FILE", help="the run's figures as JSON")
    ap.add_argument("--demo", action="store_true",
                    help="count reads simulated from the lambda phage genome the package ships "
                         "(30x, 100 bp, 1%% substitutions)")
    ap.add_argument("--top", type=int, default=10, help="k-mers to print (default 10)")
    ap.add_argument("--capacity", type=int, help="hash table buckets (default: from a "
                                                   "HyperLogLog pre-pass)")
    ap.add_argument("--message-size", type=int, default=4096,
                    help="HashMapBuffer entries per destination before a push (default 4096)")
    ap.add_argument("--no-buffer", action="store_true",
                    help="count with HashMap.accumulate_many (pipelined) instead of a "
                         "HashMapBuffer")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    args = ap.parse_args(argv)
    if not 1 <= args.k <= 32:
        ap.error(f"-k must be in [1, 32], got {args.k}")
    if args.demo == bool(args.reads):
        ap.error("give READS files, or --demo (not both)")
    if args.demo:
        sources: list[Source] = [BytesSource(demo_reads(), "demo: lambda phage reads (30x, 100 bp, 1% err)")]
    else:
        sources = [FileSource(p) for p in args.reads]

    res = count_kmers(sources, k=args.k, bloom=args.bloom, capacity=args.capacity,
                      message_size=args.message_size, progress=not args.quiet,
                      buffered=False if args.no_buffer else None)
    st = res["stats"]
    top = top_kmers(res, args.top)
    t = time.perf_counter()
    if args.counts:
        write_counts(res, args.counts, args.k)
    st["seconds"]["output"] = time.perf_counter() - t
    if pybcl.rank() == 0:
        hist = res["histogram"]
        text = histo_lines(hist)
        if args.histo:
            with open(args.histo, "w") as fh:
                fh.write(text)
        if args.json:
            out = dict(st, histogram=[[c, int(n)] for c, n in enumerate(hist) if c and n])
            with open(args.json, "w") as fh:
                json.dump(out, fh, indent=1)
        s = st["seconds"]
        print(f"k-mer counting, k={args.k}, {st['ranks']} rank(s), transport {st['transport']}"
              f"{', Bloom filter' if args.bloom else ''}: {', '.join(st['inputs'])}")
        print(f"  {st['kmers_total']:,} k-mers, {st['distinct']:,} distinct; "
              f"{st['kmers_per_s'] / 1e6:.2f} M k-mers/s (scan {s['scan']:.2f} s + count "
              f"{s['count']:.2f} s; setup {s['setup']:.2f} s, histogram {s['histogram']:.2f} s)")
        print(f"top {len(top)} k-mers (canonical, count):")
        if top:
            names = _core.kmer_decode(np.array([kv[0] for kv in top], dtype=np.uint64), args.k)
            for name, (_, c) in zip(names, top):
                print(f"  {name.decode()}  {c}")
        head = text.splitlines()[:10]
        print(f"histogram head (count  number of k-mers){' -- count 1 derived' if args.bloom else ''}:")
        for line in head:
            count, number = line.split()
            print(f"  {int(count):5d}  {int(number):,}")
        sys.stdout.flush()
    pybcl.barrier()
    return 0


if __name__ == "__main__":
    sys.exit(main())
