"""Distributed k-mer counting on pybcl (BCL paper, section 9.2.2).

    mpiexec -n P python -m pybcl.apps.kmer READS... [-k 31] [--bloom]
        [--histo FILE] [--counts FILE] [--save DB] [--json FILE] [--demo]
        [--checkpoint DIR [--checkpoint-every SECONDS] [--resume]]

Collective, every rank alike (SPMD): each rank reads its share of the input
(FASTA/FASTQ, plain, gzip or BGZF), turns it into canonical 2-bit k-mers in
C (``read_kmers``) and counts them in a distributed ``pybcl.HashMap``
through a ``HashMapBuffer(grow=True)``: the buffer ships each owner its
k-mers and the owners add them to their own blocks at the flush, in rounds
of ``--round-kmers`` k-mers a rank, so what a rank buffers stays bounded.
The map is sized from the first rounds (``_kmer_size``).  ``--bloom`` keeps
singletons out of the map with two ``pybcl.BloomFilter``s (seen, seen
twice) in a first pass, then counts the k-mers seen twice in a second, so
the counts stay exact.  docs/apps.md describes how inputs are split, the
map's sizing and ``--bloom``.
``--save DB`` keeps the counts as a saved ``HashMap(uint64 -> int64)``
that ``pybcl.apps.kmerdb`` (query, histo, dump, merge), ``contigs
--counts`` and ``pybcl.io.read`` take later.  ``--checkpoint DIR`` commits
the count, the filters and every rank's input position after each round
(``_kmer_checkpoint``); ``--resume`` goes on from there after the job died.
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
from pybcl.apps import _cli, _kmer_checkpoint, _kmer_size

# What a rank holds besides the map, whatever the input's size (about 15 MiB
# at the defaults): a piece of input being parsed and its k-mers, the k-mers
# buffered for a round (8 bytes each), the inbox they arrive in at the
# flush (16 bytes each), the queue others push into (24 bytes an entry).
CHUNK_BYTES = 1 << 20       # bytes parsed per piece
FLUSH_KMERS = 1 << 18       # k-mers a rank buffers before a flush round (--round-kmers)
QUEUE_ENTRIES = 1 << 16     # each rank's incoming queue, in entries (--message-size)
MESSAGE_ENTRIES = 1 << 13   # entries the buffer gathers per destination before a push
BUCKET_BYTES = 16           # a uint64 -> int64 bucket: key word and value (compact layout)
LOAD = 0.82                 # the map's load at the end, as sized from the estimate
REFIT_AT = (0.04, 0.2, 0.4)  # input fractions read when the map is sized (again)
RESIZE_SLACK = 0.04         # a new size within 4 % of the map's is not worth a resize
SIZING_SAMPLE = 1 << 16     # buckets a rank reads (at least) to size the map
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


def _after(it: Iterator[NDArray[np.uint64]], skip: int) -> Iterator[NDArray[np.uint64]]:
    """The pieces of `it` after its first `skip` k-mers (a resumed count's
    share, less what its checkpoint holds)."""
    for arr in it:
        if skip >= len(arr):
            skip -= len(arr)
            continue
        yield arr[skip:] if skip else arr
        skip = 0


def _count_pass(srcs: Sequence[Source], k: int, me: int, P: int, buf: Any, add: Any,
                prog: "Progress", phase: str, round_kmers: int,
                after_round: Optional[Any] = None, skip: int = 0,
                commit: Optional[Any] = None) -> int:
    """Collective.  Reads this rank's share of `srcs`, handing it to add() in
    rounds of `round_kmers` k-mers (a piece is cut at the round's end), and
    after each round flushes `buf` (if any) and calls after_round(k-mers
    read by all ranks so far), so what waits in a rank's memory stays
    bounded whatever the input's size.  A rank whose input fails stops
    reading and still takes part in the round's flush, after which every
    rank raises KmerInputError.  skip: k-mers of the share counted already
    (a resumed count drops them); commit(k-mers of its share this rank has
    counted) follows every round but the last (a checkpoint).  Returns the
    k-mers of its share this rank has counted."""
    it = _after(_pieces(srcs, k, me, P), skip)
    prog.begin(phase)
    read, more, problem = skip, True, None
    rest: Optional[NDArray[np.uint64]] = None
    while True:
        taken = 0
        while more and taken < round_kmers:
            arr = rest
            rest = None
            if arr is None:
                try:
                    arr = next(it, None)
                except (ValueError, OSError) as e:
                    arr, problem = None, str(e)
            if arr is None:
                more = False
                break
            room = round_kmers - taken
            if len(arr) > room:
                arr, rest = arr[:room], arr[room:]
            add(arr)
            read += len(arr)
            taken += len(arr)
            prog(phase, read)
        if buf is not None:
            buf.flush()
        flags = pybcl.allreduce(np.array([int(more), int(problem is not None), read],
                                         dtype=np.int64), "sum")
        if flags[1]:
            raise KmerInputError(_cli.agree(problem, pybcl.comm()))
        if after_round is not None:
            after_round(int(flags[2]), not flags[0])
        if not flags[0]:
            return read
        if commit is not None:
            commit(read)


def _segment_need(share: float, P: int, queue_size: int, filter_items: float) -> int:
    """Segment bytes per rank: the map at its largest (every k-mer this rank
    reads distinct, at LOAD) and, during a resize, the table it replaces
    (at most as large), the incoming queue and the Bloom filters' share.
    Only the pages the map writes cost memory (docs/hashmap.md)."""
    table = BUCKET_BYTES * max(share, 1024.0) / LOAD
    return int(2.2 * table + 24 * queue_size + 2 * filter_items / 8 / P) + (64 << 20)


class _Sizer:
    """Resizes a plain count's map when REFIT_AT fractions of the input have
    been read.  The first time, the input read is too little to tell the
    errors' k-mers from the genome's (the model can fit it with the genome
    seen half or twice over): the map gets room only until the next refit
    (the model's count for that point where it fits, never above the
    straight line; else the straight line).  From then on it is sized to
    the distinct k-mers the model predicts for the end (_kmer_size).  The peak memory is the largest
    table the count ever holds; a refit that grows the map gives the old
    table back page by page as it moves (docs/hashmap.md), one that shrinks
    it comes after that peak.  Collective: every rank calls it after every
    round."""

    def __init__(self, counts: Any, total: float) -> None:
        self.counts, self.total = counts, total
        self.todo = list(REFIT_AT)

    def __call__(self, read: int, last: bool) -> None:
        if last or not self.todo or read < self.todo[0] * self.total:
            return
        first = len(self.todo) == len(REFIT_AT)
        while self.todo and read >= self.todo[0] * self.total:
            self.todo.pop(0)
        # a sample of the buckets is enough for the model (2^16 a rank or
        # more: the counts within a few tenths of a per cent) and saves
        # reading a large table whole
        every = max(1, self.counts.capacity // pybcl.nprocs() // SIZING_SAMPLE)
        h = self.counts.local_histogram(every=every)
        d, f1 = every * pybcl.allreduce(np.array([h.sum(), h[1] if len(h) > 1 else 0],
                                                 dtype=np.int64), "sum")
        end = max(self.total, read)
        want = None if first else _kmer_size.distinct_at(end, read, float(d), float(f1))
        if want is None:   # first, or no fit: room until the next refit
            until = self.todo[0] * self.total if self.todo else end
            want = _kmer_size.distinct_at_end(max(until, read), read, float(d), float(f1))
        _resize_to(self.counts, want, int(d))


def _resize_to(m: Any, keys: float, held: int) -> None:
    """Collective: resize m to hold `keys` at LOAD, unless its size is close
    enough already, or the move could not give the old table back as it goes
    (a table is only sure to take keys up to half its buckets)."""
    want = int(keys / LOAD) + 1
    cap = m.capacity
    if abs(want - cap) > RESIZE_SLACK * cap and 2 * held <= want:
        m.resize(want)


def _local_top(m: Any, h: NDArray[np.int64], n: int,
               at_least: int = 1) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """This rank's n entries with the highest counts (ties: the smaller code),
    counts >= at_least: the n-th highest count read off the histogram h,
    then only the entries at or above it copied (local_select) and sorted."""
    if n <= 0 or not len(h):
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    geq = np.cumsum(h[::-1])[::-1]                 # geq[c]: entries counted >= c
    enough = np.flatnonzero(geq >= n)
    keys, counts = m.local_select(max(at_least, int(enough[-1]) if len(enough) else 0))
    order = np.lexsort((keys, -counts))[:n]
    return keys[order], counts[order]


def _best(keys: NDArray[np.uint64], counts: NDArray[np.int64],
          n: int) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """The n entries with the highest counts (ties: the smaller code)."""
    order = np.lexsort((keys, -counts))[:n]
    return keys[order], counts[order]


def _filter(items: float, bits_per_kmer: float) -> Any:
    return pybcl.BloomFilter(max(int(items), 1024),
                             fpr=min(0.5, FPR_PER_BIT ** bits_per_kmer))


def count_kmers(sources: Sequence[Union[Source, bytes, bytearray, memoryview, str]], k: int = 31,
                bloom: bool = False, capacity: Optional[int] = None,
                queue_size: Optional[int] = None, progress: bool = False,
                bloom_bits_per_kmer: float = BLOOM_BITS_PER_KMER, items: bool = True,
                top: int = 10, round_kmers: Optional[int] = None,
                items_at_least: int = 1, save: Optional[str] = None,
                checkpoint: Optional[str] = None, resume: bool = False,
                checkpoint_every: float = 0.0, keep_map: bool = False) -> dict[str, Any]:
    """Collective.  Counts the canonical k-mers of `sources` (paths or bytes)
    in a distributed ``pybcl.HashMap`` (uint64 code -> int64 count) filled
    through a ``HashMapBuffer`` in rounds.

    Returns a dict: 'keys', 'counts' (this rank's entries of the map, exact
    counts; under bloom only the k-mers seen at least twice), 'stats'
    (global figures, same on every rank) and 'histogram' (int64 array:
    histogram[c] = k-mers seen c times; exact with or without bloom).
    capacity: the map's first size, in k-mers per rank (by default the first
    round's; it is sized again from the counts as the input is read, and
    grows if full); queue_size: entries each rank's incoming queue holds;
    round_kmers: k-mers a rank buffers before a flush round.  items=False
    leaves 'keys'/'counts' out (the CLI needs them only for --counts), and
    items_at_least keeps only the k-mers counted at least that often in them
    (read in place: the others are never copied); 'top' holds this rank's
    `top` best entries.  save: also write the counts there
    (``HashMap.save``; under bloom only the k-mers seen at least twice), with
    meta ``save_meta`` describes.  checkpoint: a folder where the count,
    the filters and every rank's input position are committed together
    after each round (``_kmer_checkpoint``; with checkpoint_every > 0, after
    the first round at least that many seconds after the last commit);
    resume: go on from the checkpoint there (same rank count, inputs, k and
    bloom, else CheckpointError).  keep_map: leave the map open and return it
    as 'map' (``pybcl.HashMap``, uint64 code -> int64 count; under bloom it
    may also hold the filter's false positives, counted once, unless save
    erased them), to query it later; the caller closes it.  A corrupt input
    raises KmerInputError on every rank.
    """
    if not isinstance(k, int) or not 1 <= k <= 32:
        raise ValueError(f"k must be an int in [1, 32], got {k!r}")
    if capacity is not None and capacity < 1:
        raise ValueError(f"capacity must be >= 1, got {capacity}")
    if queue_size is not None and queue_size < 1:
        raise ValueError(f"queue_size must be >= 1, got {queue_size}")
    if round_kmers is not None and round_kmers < 1:
        raise ValueError(f"round_kmers must be >= 1, got {round_kmers}")
    if resume and not checkpoint:
        raise ValueError("resume needs the checkpoint folder to resume from")
    if not checkpoint_every >= 0:
        raise ValueError(f"checkpoint_every must be >= 0, got {checkpoint_every!r}")
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
    per_round = int(round_kmers or FLUSH_KMERS)
    seconds = {}
    manifest: Optional[dict[str, Any]] = None
    if checkpoint:
        ident = _kmer_checkpoint.identity(srcs, k, bloom, P)
        if resume:
            manifest = _kmer_checkpoint.read_manifest(checkpoint, ident)
        else:
            _kmer_checkpoint.forget(checkpoint)

    # -- set-up: the map, its buffer and the filters live in the pybcl segment --
    t = time.perf_counter()
    share = sum(s.share_kmers(k, P) for s in srcs)     # k-mers a rank reads, about
    total = share * P
    filter_items = max(total * FILTER_ITEMS, 1024.0) if bloom else 0.0
    if not _core.initialized():
        pybcl.init(segment_size=max(_segment_need(share, P, queue_size, filter_items),
                                    pybcl._env.segment_size()))
    if pybcl.nprocs() != P:
        raise RuntimeError("pybcl runs on another communicator than COMM_WORLD")
    prog = Progress(progress and me == 0, expected=share)
    ck = (_kmer_checkpoint.Checkpointer(checkpoint, ident, checkpoint_every,
                                        manifest["round"] if manifest else 0)
          if checkpoint else None)
    loaded: dict[str, Any] = {}
    phase, mine = "filter" if bloom else "count", {"position": 0}
    if checkpoint and manifest is not None:
        loaded = _kmer_checkpoint.load(checkpoint, manifest)
        phase, mine = manifest["phase"], manifest["ranks"][me]
    seconds["setup"] = time.perf_counter() - t

    counts = loaded.get("counts")
    if bloom and phase == "count":      # resumed after the first pass
        twice = loaded["twice"]
        read, seen_bits = mine["filter_read"], mine["seen_bits"]
        filter_bytes = (seen_bits + twice.nbits) // 8 // P
        seconds["count"] = 0.0
    elif bloom:
        # -- first pass: which k-mers come twice (no map yet) -----------------------
        # `seen` takes every k-mer; one it already holds goes into `twice`.
        # The k-mers new to `twice` are the map's keys (bar the filters'
        # false positives), so the map is made for them once.
        t = time.perf_counter()
        if "seen" in loaded:
            seen, twice = loaded["seen"], loaded["twice"]
        else:
            seen = _filter(filter_items, bloom_bits_per_kmer)
            twice = _filter(filter_items * FILTER_ITEMS, bloom_bits_per_kmer)
        repeated = [mine.get("repeated", 0)]

        def sift(arr: NDArray[np.uint64]) -> None:
            again = arr[seen.insert_many(arr)]
            repeated[0] += len(again) - int(twice.insert_many(again).sum())

        def commit_filter(position: int) -> None:
            if ck is not None and ck.due():
                ck.commit("filter", position, {"seen": seen, "twice": twice},
                          {"repeated": repeated[0]})
        read = _count_pass(srcs, k, me, P, None, sift, prog, "filter", per_round,
                           skip=mine["position"], commit=commit_filter)
        seen_bits = seen.nbits
        filter_bytes = (seen.nbits + twice.nbits) // 8 // P
        seen.close()
        mine = {"position": 0}          # the second pass starts at the beginning
        seconds["count"] = time.perf_counter() - t       # the first pass (as before)
        keys_expected = int(pybcl.allreduce(np.array([repeated[0]], dtype=np.int64))[0])
        # the second filter's false positives come in too: about its rate
        # times the k-mers it is asked about that it does not hold
        keys_expected += int(FPR_PER_BIT ** bloom_bits_per_kmer * filter_items)
        first = float(capacity * P if capacity else keys_expected)
    else:
        # until the first estimate: room for every k-mer read by then distinct
        first = float(capacity * P if capacity else min(total, max(per_round * P,
                                                                    REFIT_AT[0] * total)))
    if counts is None:
        counts = pybcl.HashMap(max(int(first / LOAD) + 1, 16 * P), key_type="uint64",
                               value_type="int64")
    buf = pybcl.HashMapBuffer(counts, queue_size, min(queue_size, MESSAGE_ENTRIES), grow=True)
    sizes = [counts.capacity]           # the map's sizes, first and after each change

    def after_round(read: int, last: bool) -> None:
        if sizer is not None:
            sizer(read, last)
        if counts.capacity != sizes[-1]:
            sizes.append(counts.capacity)

    # -- count: read, buffer, flush in rounds (the owners count what they get) ----
    t = time.perf_counter()
    if bloom:
        # exact counts of the k-mers `twice` holds (BFCounter's scheme); a
        # k-mer counted once was the filter's false positive, a singleton
        def recount(arr: NDArray[np.uint64]) -> None:
            buf.accumulate_many(arr[twice.find_many(arr)])

        def commit_recount(position: int) -> None:
            if ck is not None and ck.due():
                ck.commit("count", position, {"twice": twice, "counts": counts},
                          {"filter_read": read, "seen_bits": seen_bits})
        sizer = None
        _count_pass(srcs, k, me, P, buf, recount, prog, "recount", per_round, after_round,
                    skip=mine["position"], commit=commit_recount)
        twice.close()
        seconds["recount"] = time.perf_counter() - t
    else:
        sizer = None if capacity else _Sizer(counts, total)

        def commit_count(position: int) -> None:
            if ck is not None and ck.due():
                ck.commit("count", position, {"counts": counts})
        read = _count_pass(srcs, k, me, P, buf, buf.accumulate_many, prog, "count",
                           per_round, after_round, skip=mine["position"], commit=commit_count)
        seconds["count"] = time.perf_counter() - t

    # -- histogram and top k-mers, read in place ----------------------------------
    t = time.perf_counter()
    pybcl.barrier()
    buf.close()
    h = counts.local_histogram()
    hlen = int(pybcl.allreduce(np.array([len(h)], dtype=np.int64), "max")[0])
    hist = np.zeros(max(hlen, 2), dtype=np.int64)
    hist[:len(h)] = h
    hist[0] = 0
    hist = pybcl.allreduce(hist, "sum")
    total_read = int(pybcl.allreduce(np.array([read], dtype=np.int64), "sum")[0])
    in_table = int(hist.sum())
    false_positives = int(hist[1]) if bloom else 0
    if bloom:   # singletons, bar the filter's false positives, never reach the map
        hist[1] = max(0, total_read - int((np.arange(2, len(hist)) * hist[2:]).sum()))
    res = {"histogram": hist}
    if items:   # under bloom a stored key counted once was a false positive
        res["keys"], res["counts"] = counts.local_select(max(items_at_least, 2 if bloom else 1))
    res["top"], res["top_n"] = _local_top(counts, h, top, 2 if bloom else 1), top
    seconds["histogram"] = time.perf_counter() - t
    if save:
        t = time.perf_counter()
        if bloom:   # the filter's false positives: singletons, like those it kept out
            keys, kcounts = counts.local_arrays()
            counts.erase_many(keys[kcounts < 2])
            del keys, kcounts
            pybcl.barrier()
        counts.save(save, meta=save_meta(k, bloom, total_read, srcs))
        seconds["save"] = time.perf_counter() - t
    buckets = counts.capacity
    if keep_map:
        res["map"] = counts
    else:
        counts.close()
    seconds["total"] = time.perf_counter() - t_start
    rss = pybcl.comm().allgather(peak_rss_bytes())
    stats = {
        "app": "kmer", "k": k, "ranks": P, "bloom": bool(bloom),
        "transport": pybcl.transport(),
        "inputs": [str(s) for s in srcs],
        "reading": [getattr(s, "mode", "memory, blocks dealt round-robin") for s in srcs],
        "kmers_total": total_read,
        "distinct": int(hist[1:].sum()),
        "distinct_in_table": in_table,
        "bloom_false_positives": false_positives,
        "map_buckets": buckets,
        "map_buckets_first": sizes[0],
        "map_sizes": sizes,
        "map_load": round(in_table / max(buckets, 1), 4),
        "round_kmers": per_round,
        "table_bytes_per_rank": [BUCKET_BYTES * buckets // P] * P,
        "filter_bytes_per_rank": [filter_bytes] * P if bloom else [],
        "peak_rss_bytes_per_rank": rss,
        "counting": "pybcl.HashMap through a HashMapBuffer(grow=True)" +
                    (", two pybcl.BloomFilters in a first pass" if bloom else ""),
        "kmers_per_s": total_read / max(seconds["count"] + seconds.get("recount", 0.0), 1e-9),
        "seconds": seconds,
        "checkpoint": None if ck is None else {
            "dir": checkpoint, "commits": ck.commits, "round": ck.round,
            "resumed_from_round": manifest["round"] if manifest else None,
            "resumed_phase": manifest["phase"] if manifest else None},
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
                    help="the map's first size per rank, in k-mers (default: sized from the "
                         "first rounds' counts; the map grows when full)")
    ap.add_argument("--round-kmers", type=int, default=FLUSH_KMERS, metavar="N",
                    help=f"k-mers a rank reads and buffers before each flush round "
                         f"(default {FLUSH_KMERS}: about 15 MiB a rank besides the map)")
    ap.add_argument("--checkpoint", metavar="DIR",
                    help="commit the counts, any Bloom filter and every rank's input position "
                         "to DIR after each round (see --checkpoint-every), so --resume can "
                         "go on after the job dies")
    ap.add_argument("--checkpoint-every", type=float, default=0.0, metavar="SECONDS",
                    help="commit a checkpoint after the first round that ends at least this "
                         "long after the last one (default 0: after every round)")
    ap.add_argument("--resume", action="store_true",
                    help="go on from the checkpoint in --checkpoint DIR (same rank count, "
                         "inputs, -k and --bloom as the job that wrote it)")
    ap.add_argument("--message-size", type=int, default=QUEUE_ENTRIES,
                    help=f"entries each rank's incoming queue holds (default {QUEUE_ENTRIES})")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    args = ap.parse_args(argv)
    if not 1 <= args.k <= 32:
        ap.error(f"argument -k: must be in [1, 32], got {args.k}")
    ap.at_least("--capacity", args.capacity, 1)
    ap.at_least("--round-kmers", args.round_kmers, 1)
    ap.at_least("--message-size", args.message_size, 1)
    ap.at_least("--top", args.top, 0)
    if args.resume and not args.checkpoint:
        ap.error("argument --resume: needs --checkpoint DIR (the checkpoint to resume)")
    if not args.checkpoint_every >= 0:
        ap.error(f"argument --checkpoint-every: must be >= 0, got {args.checkpoint_every}")
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
                          round_kmers=args.round_kmers, save=args.save,
                          checkpoint=args.checkpoint, resume=args.resume,
                          checkpoint_every=args.checkpoint_every)
    except (KmerInputError, _kmer_checkpoint.CheckpointError) as e:
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
    ck = st["checkpoint"]
    if ck and ck["resumed_from_round"]:
        print(f"  resumed from checkpoint round {ck['resumed_from_round']} "
              f"({ck['resumed_phase']} pass) in {ck['dir']}")
    if ck:
        print(f"  {ck['commits']} checkpoint(s) committed to {ck['dir']}")
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
