"""Distributed k-mer counting on pybcl (BCL paper, section 9.2.2).

    mpiexec -n P python -m pybcl.apps.kmer READS... [-k 31] [--bloom]
        [--histo FILE] [--counts FILE] [--save DB] [--json FILE] [--demo]

Collective, every rank alike (SPMD): each rank reads its share of the input
(FASTA/FASTQ, plain, gzip or BGZF), turns it into canonical 2-bit k-mers in
C (``read_kmers``) and counts them in a distributed ``pybcl.HashMap``
through a ``HashMapBuffer(grow=True)``: the buffer ships each owner its
k-mers and the owners add them to their own blocks at the flush, growing
the map once to fit.  ``--bloom`` puts a ``pybcl.BloomFilter`` in front, so
singletons never take a bucket, and recounts in a second pass, so the
counts stay exact.  docs/apps.md describes how inputs are split, the
map's sizing and ``--bloom``.  ``--save DB`` keeps the counts as a saved
``HashMap(uint64 -> int64)`` that ``pybcl.apps.kmerdb`` (query, histo,
dump, merge), ``contigs --counts`` and ``pybcl.io.read`` take later.
"""
import argparse
import gzip
import os
import resource
import sys
import time
import zlib
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core
from pybcl.apps import _kernels
from pybcl.apps import _cli

CHUNK_BYTES = 4 << 20       # bytes parsed per piece
QUEUE_ENTRIES = 1 << 21     # each rank's inbox, in entries (the buffer ships in rounds of it)
MESSAGE_ENTRIES = 1 << 16   # entries the buffer gathers per destination before a push
FLUSH_KMERS = 1 << 26       # k-mers a rank buffers between flushes (512 MiB waiting, at most)
FIRST_KMERS = 1 << 16       # the map's first size per rank: its first flush grows it to fit
BUCKET_BYTES = 24           # a uint64 -> int64 map bucket: status word, key, value
BLOOM_BITS_PER_KMER = 10    # ~1 % false positives
FPR_PER_BIT = 0.6185        # a Bloom filter's false-positive rate is ~0.6185 ** (bits per item)
FILTER_ITEMS = 0.5          # k-mers the filter expects: distinct / k-mers read, about
SNIFF_BYTES = 1 << 20
DEMO_NAME = "demo: lambda phage reads (30x, 100 bp, 1% err)"
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
DEMO_GENOME = os.path.join(DATA_DIR, "lambda_virus.fa.gz")


class KmerInputError(_cli.InputError):
    """A corrupt or unreadable input (same message on every rank)."""


# ---- inputs -----------------------------------------------------------------

class BytesSource:
    """FASTA/FASTQ held in memory (the demo's simulated reads)."""

    def __init__(self, data: Union[bytes, bytearray, memoryview], name: str = "<memory>") -> None:
        self.data, self.name = bytes(data), name
        self.size = len(self.data)

    def pieces(self, k: int, rank: int, nprocs: int) -> Iterator[NDArray[np.uint64]]:
        step = 1 << 20
        arr = _kernels.kmers_from_bytes(self.data, k, rank, nprocs)   # one array, handed
        for off in range(0, len(arr), step):                       # out in pieces
            yield arr[off:off + step]

    def share_kmers(self, k: int, nprocs: int) -> float:
        return self.size * _kmers_per_byte(self.data[:SNIFF_BYTES], k) / nprocs

    def __str__(self) -> str:
        return self.name


def sniff(path: str) -> tuple[bool, Optional[str], bytes]:
    """(gzip?, format, head bytes) of a sequence file; KmerInputError if it is
    neither FASTA nor FASTQ.  A gzip file's head is its first SNIFF_BYTES
    decompressed, across members (a BGZF block holds only 64 KiB)."""
    with open(path, "rb") as fh:
        raw = fh.read(SNIFF_BYTES)
    gz = raw[:2] == b"\x1f\x8b"
    head = raw
    if gz:
        parts: list[bytes] = []
        have = 0
        try:
            while raw[:2] == b"\x1f\x8b" and have < SNIFF_BYTES:
                d = zlib.decompressobj(16 + 15)
                parts.append(d.decompress(raw, SNIFF_BYTES - have))
                have += len(parts[-1])
                raw = d.unused_data if d.eof else b""
        except zlib.error as e:
            raise KmerInputError(f"{path}: corrupt gzip data: {e}") from None
        head = b"".join(parts)
    body = head.lstrip(b" \t\r\n")
    if not body:
        return gz, None, head
    if b"\0" in head[:65536] or body[:1] not in (b">", b"@"):
        raise KmerInputError(f"{path}: not FASTA or FASTQ (first byte {body[:1]!r}, "
                             f"expected '>' or '@')")
    return gz, "fasta" if body[:1] == b">" else "fastq", head


def _check_head(path: str, head: bytes, whole: bool, k: int = 31) -> float:
    """Parse the sample (whole records of it) now, so a malformed file fails
    before any work; returns k-mers per byte (0.5 if the sample is too short).
    Only a record cut by the end of the sample may look truncated."""
    if whole:
        cut = len(head)
    else:
        cut = max(head.rfind(b"\n@"), head.rfind(b"\n>")) + 1
    if cut <= 0:
        return 0.5
    try:
        return len(_kernels.kmers_from_bytes(head[:cut], k)) / cut
    except ValueError as e:
        if whole or "truncated" not in str(e):
            raise KmerInputError(f"{path}: {e}") from None
        return 0.5


def _kmers_per_byte(head: bytes, k: int) -> float:
    """k-mers per input byte in a sample (whole records of it); 0.5 if unknown."""
    try:
        return _check_head("", head, False, k)
    except KmerInputError:
        return 0.5


def _four_line_fastq(head: bytes) -> bool:
    """Does the sample look like 4-line FASTQ (what byte-range splitting needs)?"""
    lines = head.split(b"\n")[:-1][:400]
    lines = lines[:len(lines) // 4 * 4]
    if not lines:
        return False
    for i in range(0, len(lines), 4):
        h, sq, plus, q = lines[i:i + 4]
        if h[:1] != b"@" or plus[:1] != b"+" or len(sq.rstrip(b"\r")) != len(q.rstrip(b"\r")):
            return False
    return True


class FileSource:
    def __init__(self, path: str) -> None:
        problem = _cli.input_file_problem(path)
        if problem:
            raise KmerInputError(problem)
        self.path = path
        self.size = os.path.getsize(path)
        self.gz, self.fmt, head = sniff(path)
        self.head = head
        # BGZF: the block map, walked header to header (nothing inflated)
        self.blocks: Optional[tuple[NDArray[np.uint64], NDArray[np.uint64]]] = None
        if self.gz:
            try:
                self.blocks = _kernels.bgzf_blocks(path)
            except (ValueError, OSError) as e:
                raise KmerInputError(str(e)) from None
        stream = int(self.blocks[1][-1]) if self.blocks is not None else None
        whole = len(head) == (self.size if not self.gz else stream)
        if self.fmt is not None:
            _check_head(path, head, whole)
        # ranges need records that a resync can find and that are not few, and
        # a stream whose bytes can be entered part-way: plain or BGZF
        self.splittable = (not self.gz or self.blocks is not None) and self.fmt is not None and (
            _four_line_fastq(head) if self.fmt == "fastq" else
            head.count(b"\n>") >= 64 or (whole and head.count(b"\n>") >= 1))
        self.mode = ("stream, blocks dealt round-robin" if not self.splittable else
                     "BGZF blocks, records resynced" if self.gz else "byte ranges")

    def share_kmers(self, k: int, nprocs: int) -> float:
        """About how many k-mers each rank gets (sizes the first table)."""
        stream_bytes = (int(self.blocks[1][-1]) if self.blocks is not None else
                        self.size * (4 if self.gz else 1))    # gzip: FASTQ shrinks ~4x
        return stream_bytes * _kmers_per_byte(self.head, k) / nprocs

    def _bgzf_reader(self, k: int, rank: int, nprocs: int) -> Optional[_kernels.KmerReader]:
        """Rank `rank`'s blocks: a contiguous run of about 1/nprocs of the
        compressed bytes; it reads the records that start in their data."""
        assert self.blocks is not None
        coff, uoff = self.blocks
        lo, hi = np.searchsorted(coff, [self.size * rank // nprocs,
                                        self.size * (rank + 1) // nprocs])
        start, end = int(uoff[lo]), int(uoff[hi])
        if start == end:
            return None             # no block of its own (more ranks than blocks)
        # enter at the block holding byte start - 1: is `start` a line start?
        entry = int(np.searchsorted(uoff, start - 1, "right")) - 1 if start else 0
        return _kernels.KmerReader(self.path, k, 0, 1, CHUNK_BYTES, start=start,
                                end=end if end < int(uoff[-1]) else -1, fmt=self.fmt,
                                gz_entry=(int(coff[entry]), int(uoff[entry])))

    def pieces(self, k: int, rank: int, nprocs: int) -> Iterator[NDArray[np.uint64]]:
        reader: Optional[_kernels.KmerReader]
        if self.splittable and self.fmt is not None and nprocs > 1:
            if self.gz:
                reader = self._bgzf_reader(k, rank, nprocs)
            else:
                lo = _kernels.seq_resync(self.path, self.size, self.size * rank // nprocs,
                                      self.fmt)
                hi = _kernels.seq_resync(self.path, self.size, self.size * (rank + 1) // nprocs,
                                      self.fmt)
                reader = _kernels.KmerReader(self.path, k, 0, 1, CHUNK_BYTES, start=lo, end=hi)
        else:
            reader = _kernels.KmerReader(self.path, k, rank, nprocs, CHUNK_BYTES)
        if reader is None:
            return
        try:
            yield from reader
        finally:
            reader.close()

    def __str__(self) -> str:
        return self.path


def read_kmers(path: Union[str, "os.PathLike[str]"], k: int = 31) -> Iterator[NDArray[np.uint64]]:
    """This rank's share of the canonical k-mers of a FASTA/FASTQ file.

    Not collective: every rank calls it on the same file and gets a disjoint
    share; together the ranks get every k-mer occurrence exactly once.  The
    file is split as the k-mer app splits it (byte ranges resynced on records
    for plain files, runs of blocks for BGZF, round-robin 1 MiB blocks of the
    stream otherwise).  Yields uint64 NumPy arrays of 2-bit codes (A=0 C=1
    G=2 T=3, first base most significant) of the smaller of each k-mer and
    its reverse complement; k-mers with a base other than A/C/G/T are
    skipped, lowercase counts as uppercase.  Works before ``pybcl.init()``
    too (then on MPI's world communicator, or alone without MPI).

    Raises ``ValueError`` for a bad ``k``, and ``KmerInputError`` (a
    ``ValueError``) naming the file when it is missing, unreadable, not
    FASTA/FASTQ, or corrupt.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 32:
        raise ValueError(f"read_kmers: k must be an int in [1, 32], got {k!r}")
    k = int(k)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"read_kmers: path must be a str or os.PathLike, "
                        f"not {type(path).__name__}")
    source = FileSource(os.fspath(path))     # checked now, not at the first next()
    me, P = (pybcl.rank(), pybcl.nprocs()) if _core.initialized() else _cli.world()[:2]
    return _share(source, k, me, P)


def _share(source: "FileSource", k: int, me: int, P: int) -> Iterator[NDArray[np.uint64]]:
    try:
        yield from source.pieces(k, me, P)
    except ValueError as e:            # a corrupt record or gzip stream mid-file
        raise KmerInputError(f"{source}: {e}") from None


def decode(code: Union[int, np.integer], k: int) -> str:
    """The k-mer string of a 2-bit code (``read_kmers``'s encoding)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 32:
        raise ValueError(f"decode: k must be an int in [1, 32], got {k!r}")
    if isinstance(code, bool) or not isinstance(code, (int, np.integer)):
        raise TypeError(f"decode: code must be an int, not {type(code).__name__}")
    if not 0 <= int(code) < 4 ** int(k):
        raise ValueError(f"decode: code {int(code)} does not fit in k={int(k)} bases "
                         f"(must be in [0, 4**{int(k)}))")
    return bytes(_kernels.kmer_decode(np.array([code], dtype=np.uint64), int(k))[0]).decode()


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
    return _kernels.simulate_reads(genome, n, length, error_rate, seed)


def cli_sources(reads: Sequence[str], demo: bool) -> list["Source"]:
    """The command line's inputs: the demo's simulated reads, or the READS
    files (opened and checked now: KmerInputError)."""
    if demo:
        return [BytesSource(demo_reads(), DEMO_NAME)]
    return [FileSource(p) for p in reads]


# ---- the counting -------------------------------------------------------------

class Progress:
    """A progress line on stderr (rank 0), at most every `every` seconds: the
    k-mers read in this pass and their rate, and, against the k-mers the rank
    expects to read (`expected`: an estimate, from the input's size), the
    share done and the time left at that rate."""

    def __init__(self, enabled: bool, expected: float = 0.0, every: float = 2.0) -> None:
        self.enabled, self.expected, self.every = enabled, expected, every
        self.t0 = self.last = time.perf_counter()

    def begin(self, phase: str) -> None:
        """A pass over the input starts: its rate and time left count from now."""
        self.t0 = time.perf_counter()

    def __call__(self, phase: str, kmers: int, force: bool = False) -> None:
        now = time.perf_counter()
        if not self.enabled or (not force and now - self.last < self.every):
            return
        self.last = now
        rate = kmers / max(now - self.t0, 1e-9)
        line = (f"kmer [{phase}] {kmers / 1e6:8.2f} M k-mers read on rank 0, "
                f"{rate / 1e6:6.2f} M k-mers/s")
        if self.expected > 0 and rate > 0:
            left = max(self.expected - kmers, 0.0)
            # an estimate: the line never claims the end before it comes
            done = min(kmers / self.expected, 0.99)
            line += f", {100 * done:.0f}% done, about {duration(left / rate)} left"
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def duration(seconds: float) -> str:
    """`seconds` for a person: '42 s', '3 min 05 s', '1 h 20 min'."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def peak_rss_bytes() -> int:
    """This process's peak resident set size (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


Source = Union["BytesSource", "FileSource"]


def _as_source(s: Union[Source, bytes, bytearray, memoryview, str]) -> Source:
    if isinstance(s, (BytesSource, FileSource)):
        return s
    if isinstance(s, (bytes, bytearray, memoryview)):
        return BytesSource(s)
    return FileSource(os.fspath(s))


def _pieces(srcs: Sequence[Source], k: int, me: int, P: int) -> Iterator[NDArray[np.uint64]]:
    """This rank's k-mer arrays, file after file (file i's blocks rotated by i)."""
    for i, src in enumerate(srcs):
        yield from src.pieces(k, (me - i) % P if not getattr(src, "splittable", False) else me, P)


def _count_pass(srcs: Sequence[Source], k: int, me: int, P: int, buf: Any, add: Any,
                prog: "Progress", phase: str) -> int:
    """Collective.  Reads this rank's share of `srcs`, handing every piece to
    add() (which buffers it in `buf`), and flushes the buffer in rounds: once
    a rank has buffered FLUSH_KMERS k-mers since the last flush, so that what
    waits in a rank's memory stays bounded, and once every rank has read
    everything.  A rank whose input fails stops reading and still takes part
    in the round's flush, after which every rank raises KmerInputError.
    Returns the k-mers this rank read."""
    it = _pieces(srcs, k, me, P)
    prog.begin(phase)
    read, more, problem = 0, True, None
    while True:
        taken = 0
        while more and taken < FLUSH_KMERS:
            try:
                arr = next(it, None)
            except (ValueError, OSError) as e:
                arr, problem = None, str(e)
            if arr is None:
                more = False
                break
            add(arr)
            read += len(arr)
            taken += len(arr)
            prog(phase, read)
        buf.flush()
        flags = pybcl.allreduce(np.array([int(more), int(problem is not None)],
                                         dtype=np.int64), "sum")
        if flags[1]:
            raise KmerInputError(_cli.agree(problem, pybcl.comm()))
        if not flags[0]:
            return read


def _segment_need(share: float, first: int, queue_size: int, bloom_items: float) -> int:
    """Segment bytes per rank (generously: 32 bytes a bucket): the map's first
    block, the blocks of its last growth, old and new at once (half load, at
    most every k-mer this rank reads distinct), the buffer's inbox and the
    Bloom filter's share."""
    grown = 3 * max(share, 1024.0)
    return int(32 * (2 * first + grown + queue_size) + 4 * bloom_items) + (64 << 20)


def _best(keys: NDArray[np.uint64], counts: NDArray[np.int64], n: int,
          hist: Optional[NDArray[np.int64]] = None) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """The n entries with the highest counts (ties: the smaller code), without
    a sort of them all: the n-th highest count read off the counts'
    histogram (`hist`: np.bincount(counts), if the caller has it), then a
    sort of the entries at or above it."""
    if n <= 0 or not len(counts):
        return keys[:0], counts[:0]
    if n < len(counts):
        h = np.bincount(counts) if hist is None else hist
        at_least = np.cumsum(h[::-1])[::-1]          # at_least[c]: entries counted >= c
        pick = np.flatnonzero(counts >= np.flatnonzero(at_least >= n)[-1])
        keys, counts = keys[pick], counts[pick]
    order = np.lexsort((keys, -counts))[:n]
    return keys[order], counts[order]


def count_kmers(sources: Sequence[Union[Source, bytes, bytearray, memoryview, str]], k: int = 31,
                bloom: bool = False, capacity: Optional[int] = None,
                queue_size: Optional[int] = None, progress: bool = False, bloom_bits_per_kmer: float = BLOOM_BITS_PER_KMER,
                items: bool = True, top: int = 10, save: Optional[str] = None
                ) -> dict[str, Any]:
    """Collective.  Counts the canonical k-mers of `sources` (paths or bytes)
    in a distributed ``pybcl.HashMap`` (uint64 code -> int64 count) filled
    through a ``HashMapBuffer`` that grows the map as it fills.

    Returns a dict: 'keys', 'counts' (this rank's entries of the map, exact
    counts; under bloom only the k-mers seen at least twice), 'stats'
    (global figures, same on every rank) and 'histogram' (int64 array:
    histogram[c] = k-mers seen c times; exact with or without bloom).
    capacity: the map's first size, in k-mers per rank (it grows when
    full); queue_size: entries each rank's inbox holds (the buffer ships in
    rounds of it).  items=False leaves 'keys'/'counts' out (the CLI needs
    them only for --counts); 'top' holds this rank's `top` best entries.
    save: also write the counts there (``HashMap.save``; under bloom only
    the k-mers seen at least twice), with meta ``save_meta`` describes.
    A corrupt input raises KmerInputError on every rank.
    """
    if not isinstance(k, int) or not 1 <= k <= 32:
        raise ValueError(f"k must be an int in [1, 32], got {k!r}")
    if capacity is not None and capacity < 1:
        raise ValueError(f"capacity must be >= 1, got {capacity}")
    if queue_size is not None and queue_size < 1:
        raise ValueError(f"queue_size must be >= 1, got {queue_size}")
    if not bloom_bits_per_kmer > 0:
        raise ValueError(f"bloom_bits_per_kmer must be > 0, got {bloom_bits_per_kmer!r}")
    t_start = time.perf_counter()
    problem = None
    try:
        srcs = [_as_source(s) for s in sources]
    except KmerInputError as e:
        problem = str(e)
    problem = _cli.agree(problem, pybcl.comm() if _core.initialized() else None)
    if problem:
        raise KmerInputError(problem)
    me, P = _cli.world()[:2] if not _core.initialized() else (pybcl.rank(), pybcl.nprocs())
    queue_size = int(queue_size or QUEUE_ENTRIES)
    first = int(capacity or FIRST_KMERS)
    seconds = {}

    # -- set-up: the map, its buffer and the filter live in the pybcl segment --
    t = time.perf_counter()
    share = sum(s.share_kmers(k, P) for s in srcs)     # k-mers a rank reads, about
    bloom_items = max(share * P * FILTER_ITEMS, 1024.0) if bloom else 0.0
    if not _core.initialized():
        pybcl.init(segment_size=max(_segment_need(share, first, queue_size, bloom_items / P),
                                    pybcl._env.segment_size()))
    if pybcl.nprocs() != P:
        raise RuntimeError("pybcl runs on another communicator than COMM_WORLD")
    prog = Progress(progress and me == 0, expected=share)
    counts = pybcl.HashMap(2 * first * P, key_type="uint64", value_type="int64")
    buf = pybcl.HashMapBuffer(counts, queue_size, min(queue_size, MESSAGE_ENTRIES), grow=True)
    buckets_first = counts.capacity
    seconds["setup"] = time.perf_counter() - t

    # -- one pass: read, buffer, flush (the owners count what they receive) ---
    t = time.perf_counter()
    if bloom:
        # the paper's filter: a k-mer's first sighting only sets its bits; from
        # its second on (or a false positive) it enters the map, with count 0
        filt = pybcl.BloomFilter(int(bloom_items), fpr=min(0.5, FPR_PER_BIT ** bloom_bits_per_kmer))

        def candidates(arr: NDArray[np.uint64]) -> None:
            buf.accumulate_many(arr[filt.insert_many(arr)], 0)
        read = _count_pass(srcs, k, me, P, buf, candidates, prog, "count")
        filter_bytes = filt.nbits // 8 // P      # freed now: the map takes over
        filt.close()
    else:
        read = _count_pass(srcs, k, me, P, buf, buf.accumulate_many, prog, "count")
    seconds["count"] = time.perf_counter() - t
    if bloom:
        # exact counts from a second pass (BFCounter's scheme): every sighting
        # of a k-mer the map holds; a stored k-mer counted once was a false
        # positive, a singleton.  The map only changes inside flush(), which
        # every rank leaves only once all have applied, so the lookups run
        # under the find-only promise.
        t = time.perf_counter()

        def recount(arr: NDArray[np.uint64]) -> None:
            _, found = counts.find_many(arr, promise=pybcl.ConProm.HashMap.find)
            buf.accumulate_many(arr[found])
        _count_pass(srcs, k, me, P, buf, recount, prog, "recount")
        seconds["recount"] = time.perf_counter() - t

    # -- histogram --------------------------------------------------------------------
    t = time.perf_counter()
    pybcl.barrier()
    keys, kcounts = counts.local_arrays()
    total = int(pybcl.allreduce(np.array([read], dtype=np.int64), "sum")[0])
    if save:
        t_save = time.perf_counter()
        if bloom:   # the filter's false positives: singletons, like those it kept out
            counts.erase_many(keys[kcounts < 2])
            pybcl.barrier()
        counts.save(save, meta=save_meta(k, bloom, total, srcs))
        seconds["save"] = time.perf_counter() - t_save
    buckets = counts.capacity
    buf.close()
    counts.close()
    h = np.bincount(kcounts) if len(kcounts) else np.zeros(1, dtype=np.int64)
    hlen = int(pybcl.allreduce(np.array([len(h)], dtype=np.int64), "max")[0])
    hist = np.zeros(max(hlen, 2), dtype=np.int64)
    hist[:len(h)] = h
    hist[0] = 0
    hist = pybcl.allreduce(hist, "sum")
    in_table = int(hist.sum())
    false_positives = int(hist[1]) if bloom else 0
    if bloom:   # singletons, bar the filter's false positives, never reach the map
        hist[1] = max(0, total - int((np.arange(2, len(hist)) * hist[2:]).sum()))
        keep = kcounts >= 2      # a stored key counted once was a false positive
        keys, kcounts = keys[keep], kcounts[keep]
    res = {"histogram": hist}
    if items:
        res["keys"], res["counts"] = keys, kcounts
    res["top"], res["top_n"] = _best(keys, kcounts, top, None if bloom else h), top
    seconds["histogram"] = time.perf_counter() - t
    seconds["total"] = time.perf_counter() - t_start
    rss = pybcl.comm().allgather(peak_rss_bytes())
    stats = {
        "app": "kmer", "k": k, "ranks": P, "bloom": bool(bloom),
        "transport": pybcl.transport(),
        "inputs": [str(s) for s in srcs],
        "reading": [getattr(s, "mode", "memory, blocks dealt round-robin") for s in srcs],
        "kmers_total": total,
        "distinct": int(hist[1:].sum()),
        "distinct_in_table": in_table,
        "bloom_false_positives": false_positives,
        "map_buckets": buckets,
        "map_buckets_first": buckets_first,
        "table_bytes_per_rank": [BUCKET_BYTES * buckets // P] * P,
        "filter_bytes_per_rank": [filter_bytes] * P if bloom else [],
        "peak_rss_bytes_per_rank": rss,
        "counting": "pybcl.HashMap through a HashMapBuffer(grow=True)" +
                    (", pybcl.BloomFilter in front" if bloom else ""),
        "kmers_per_s": total / max(seconds["count"] + seconds.get("recount", 0.0), 1e-9),
        "seconds": seconds,
    }
    res["stats"] = stats
    return res


# ---- output -----------------------------------------------------------------------

def save_meta(k: int, bloom: bool, total: int, sources: Sequence[Any]) -> dict[str, Any]:
    """The meta a saved count map carries (``pybcl.apps.kmerdb`` reads it):
    k, canonical k-mers, whether a Bloom filter kept singletons out (then
    only counts >= 2 are in the map, and the k-mers read give the count-1
    line of the histogram)."""
    return {"app": "pybcl.apps.kmer", "k": k, "canonical": True, "bloom": bool(bloom),
            "min_count": 2 if bloom else 1, "kmers_total": total,
            "inputs": [str(s) for s in sources]}


def histo_lines(hist: NDArray[np.int64]) -> str:
    return "".join(f"{c} {int(n)}\n" for c, n in enumerate(hist) if c > 0 and n > 0)


def top_kmers(res: dict[str, Any], n: int = 10) -> list[tuple[int, int]]:
    """Collective: the n most frequent k-mers (same list on every rank)."""
    keys, counts = (res["keys"], res["counts"]) if "keys" in res else res["top"]
    if "keys" not in res and n > res["top_n"]:
        raise ValueError(f"top_kmers: count_kmers kept only the top {res['top_n']}")
    best_keys, best_counts = _best(keys, counts, n)
    mine = list(zip(best_keys.tolist(), best_counts.tolist()))
    everyone = pybcl.comm().allgather(mine)
    merged = sorted((kv for part in everyone for kv in part), key=lambda kv: (-kv[1], kv[0]))
    return merged[:n]


def write_counts(res: dict[str, Any], path: str, k: int) -> None:
    """Collective: ranks append their entries (sorted by code) in turn, rank 0 first."""
    order = np.argsort(res["keys"])
    data = _kernels.kmer_tsv(res["keys"][order], res["counts"][order], k)
    _cli.append_in_turn(path, data, pybcl.rank(), pybcl.nprocs(), pybcl.barrier, "--counts")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _cli.Parser.for_reads(
        "kmer",
        "Count canonical k-mers of FASTA/FASTQ files (gzipped or not) with pybcl, one "
        "pass, each rank counting the k-mers it owns.  Run under mpiexec.",
        "count reads simulated from the lambda phage genome the package ships (30x, 100 "
        "bp, 1%% substitutions)",
        "k-mer length, 1..32 (default 31)")
    ap.add_argument("--bloom", action="store_true",
                    help="keep singletons out of the table with a Bloom filter (less memory; "
                         "a second pass over the input keeps the counts exact)")
    ap.add_argument("--histo", metavar="FILE", help="histogram, Jellyfish histo format")
    ap.add_argument("--counts", metavar="FILE", help="KMER<TAB>COUNT lines")
    ap.add_argument("--save", metavar="DB",
                    help="the counts as a saved map, for pybcl.apps.kmerdb and "
                         "contigs --counts (pybcl.io.read reads it too)")
    ap.add_argument("--json", metavar="FILE", help="the run's figures as JSON")
    ap.add_argument("--top", type=int, default=10, help="k-mers to print (default 10)")
    ap.add_argument("--capacity", type=int,
                    help=f"the map's first size per rank, in k-mers (default {FIRST_KMERS}; "
                         f"the map grows when full)")
    ap.add_argument("--message-size", type=int, default=QUEUE_ENTRIES,
                    help=f"k-mers each rank's inbox takes per round (default {QUEUE_ENTRIES})")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    args = ap.parse_args(argv)
    if not 1 <= args.k <= 32:
        ap.error(f"argument -k: must be in [1, 32], got {args.k}")
    ap.at_least("--capacity", args.capacity, 1)
    ap.at_least("--message-size", args.message_size, 1)
    ap.at_least("--top", args.top, 0)
    ap.check_reads(args)
    prog = ap.prog
    sources = _cli.open_inputs(prog, (("--histo", args.histo), ("--counts", args.counts),
                                      ("--save", args.save), ("--json", args.json)),
                               lambda: cli_sources(args.reads, args.demo), KmerInputError)
    if sources is None:
        return _cli.INPUT

    try:
        res = count_kmers(sources, k=args.k, bloom=args.bloom, capacity=args.capacity,
                          queue_size=args.message_size, progress=not args.quiet,
                          items=bool(args.counts), top=min(args.top, 1 << 20),
                          save=args.save)
    except KmerInputError as e:
        _cli.say_error(prog, str(e))
        return _cli.INPUT
    except pybcl.SegmentFull as e:          # raised on every rank alike
        _cli.say_error(prog, str(e))
        return 1
    st = res["stats"]
    top = top_kmers(res, min(args.top, 1 << 20))
    with _cli.Outputs(prog) as out:
        t = time.perf_counter()
        if args.counts:
            write_counts(res, args.counts, args.k)
        st["seconds"]["output"] = time.perf_counter() - t
        if pybcl.rank() == 0:
            hist = res["histogram"]
            text = histo_lines(hist)
            _cli.write_file("--histo", args.histo, text)
            _cli.write_json(args.json, dict(
                st, histogram=[[c, int(n)] for c, n in enumerate(hist) if c and n]))
            report(args, st, top, text)
    return out.status(0)


def report(args: argparse.Namespace, st: dict[str, Any], top: list[tuple[int, int]],
           histo_text: str) -> None:
    """The run's summary on stdout (rank 0)."""
    s = st["seconds"]
    print(f"k-mer counting, k={args.k}, {st['ranks']} rank(s), transport {st['transport']}"
          f"{', Bloom filter' if args.bloom else ''}: {', '.join(st['inputs'])}")
    print(f"  {st['kmers_total']:,} k-mers, {st['distinct']:,} distinct; "
          f"{st['kmers_per_s'] / 1e6:.2f} M k-mers/s (count {s['count']:.2f} s; "
          f"setup {s['setup']:.2f} s, histogram {s['histogram']:.2f} s); peak RSS "
          f"{max(st['peak_rss_bytes_per_rank']) / 2**20:.0f} MiB/rank")
    print(f"top {len(top)} k-mers (canonical, count):")
    if top:
        names = _kernels.kmer_decode(np.array([kv[0] for kv in top], dtype=np.uint64), args.k)
        for name, (_, c) in zip(names, top):
            print(f"  {name.decode()}  {c}")
    print(f"histogram head (count  number of k-mers)"
          f"{' -- count 1 derived' if args.bloom else ''}:")
    for line in histo_text.splitlines()[:10]:
        count, number = line.split()
        print(f"  {int(count):5d}  {int(number):,}")
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
