"""Contig generation on pybcl (the BCL paper's Meraculous benchmark, 9.2.1).

    mpiexec -n P python -m pybcl.apps.contigs READS... [-k 31] [--min-count 2]
        [-o contigs.fa] [--json FILE] [--demo]

    mpiexec -n P python -m pybcl.apps.contigs --counts DB [--min-count 2]
        [-o contigs.fa] [--json FILE]

Writes the unitigs of the de Bruijn graph of the *solid* canonical k-mers
(seen at least ``--min-count`` times): node-centric, k-1 overlaps, both
strands, exactly as BCALM 2 defines them.  The edge s -> t is merged when s
has one successor (t), t has one predecessor (s), and t is not s's own
reverse complement (a hairpin); a unitig is a maximal merged path, a single
k-mer when neither side merges, and an isolated cycle is written once, cut
at its smallest k-mer.  k must be odd (no k-mer is then its own reverse
complement).

Phases, every rank (SPMD):

1. *count* -- the k-mer app's reading and counting
   (``pybcl.apps.kmer.count_kmers``): each rank ends with the counts of the
   k-mers it owns; it keeps the solid ones.  With ``--counts DB`` the counts
   come from a saved count map instead (``kmer --save DB``; loaded with
   ``pybcl.load``, each k-mer again on the rank that owns it).
2. *graph* -- each solid k-mer adds one bit to each of its two (k-1)-mers
   (``_kernels.dbg_overlaps_by_hash``: bit b: x+b is solid, bit 4+b: b+x
   is; in the order of the map's hash, so that the map is swept, not
   jumped across) in a temporary ``pybcl.HashMap`` of (k-1)-mers (sized
   from a sketch of them), through a ``HashMapBuffer``
   (``accumulate_many``; no bit is added twice, so the sums are masks), and
   looks its two masks up (``find_many`` with the find-only promise).  They
   give its extension bits (bit b: successor c[1:]+b is solid, bit 4+b:
   predecessor b+c[:-1] is) and the presence of its 6 "siblings"
   (``_kernels.dbg_from_overlaps_by_hash``).  The graph map (uint64 k-mer -> uint64
   ``(extension bits << 32) | count``) is then filled through a
   ``HashMapBuffer``, in hash order too (``_kernels.hash_sort``).
3. *ends* -- the edge c -> t is merged when c has one successor t and none
   of c's 3 siblings b+c[1:] (the other k-mers that would precede t) is
   solid, and the same on the predecessor side; so the ends are decided on
   each rank with no further lookup.  The k-mers with an unmerged side are
   where walks start (both ends of every unitig).
4. *walk* -- all of a rank's walks advance together in C
   (``_kernels.DbgWalk``): each round asks the map, in one ``find_many``, for
   every walk's next k-mer (on shm every round runs in C, ``DbgWalk.run``;
   elsewhere the rounds are collective: the owners answer).  A unitig is
   walked from both of its ends and
   exactly one copy is kept (the one starting at the smaller oriented
   k-mer), decided locally: no unitig is written twice and no claim traffic
   is needed.
5. *cycles* -- if the unitigs hold fewer k-mers than the graph, the missing
   ones lie on isolated cycles: the covered k-mers are marked in a second
   map, the uncovered ones go to rank 0, which cuts each cycle at its
   smallest k-mer.
6. *output* -- FASTA (ranks append in turn, rank 0 first), headers
   ``>ID LN:i:LENGTH KC:i:KMER_COUNT_SUM km:f:MEAN_COUNT`` as BCALM 2 writes
   them; ``--json`` has the unitig count, N50, total length, seconds per
   phase and each rank's peak RSS.
"""
import sys
import time
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core
from pybcl.apps import _kernels
from pybcl.apps import _cli, kmer, kmerdb

LOOKUP_BATCH = 1 << 20          # k-mers per HashMapBuffer call while building the graph
MAX_WALKERS = 1 << 20           # walks in flight per rank at once
MAP_LOAD = 0.8                  # the graph's maps hold their known keys this full (compact)


class ContigInputError(_cli.InputError):
    """A corrupt or unreadable input (same message on every rank)."""


def _find(m: Any, keys: NDArray[np.uint64]) -> tuple[NDArray[np.uint64], NDArray[np.bool_]]:
    """Collective: find_many of every rank's keys, each answered by the
    rank that owns it (every rank reads for itself on shm)."""
    vals, found = m.find_many(keys, promise=pybcl.ConProm.HashMap.find, collective=True)
    return vals, found


def _buffer(m: Any, mine: int, grow: bool = False) -> Any:
    """Collective: a HashMapBuffer for m, sized from the largest rank's batch."""
    most = int(pybcl.allreduce(np.array([mine], dtype=np.int64), "max")[0])
    qs = int(min(max(most, 1024), 1 << 20))    # the same on every rank (collective)
    return pybcl.HashMapBuffer(m, qs, 4096, grow=grow)


def _insert_all(m: Any, keys: NDArray[np.uint64], values: NDArray[np.uint64]) -> None:
    """Collective: keys -> values into m through a HashMapBuffer."""
    with _buffer(m, len(keys)) as buf:
        for lo in range(0, len(keys), LOOKUP_BATCH):
            buf.insert_many(keys[lo:lo + LOOKUP_BATCH], values[lo:lo + LOOKUP_BATCH])


def _rc(s: int, k: int) -> int:
    r = 0
    for _ in range(k):
        r = (r << 2) | (3 - (s & 3))
        s >>= 2
    return r


def _out_bits(s: int, k: int, ext: int) -> int:
    """Successor bits of oriented s (bit b: s[1:]+b) from its k-mer's extension bits."""
    if s <= _rc(s, k):
        return ext & 15
    pred = (ext >> 4) & 15          # rc(c)[1:]+b is rc of the predecessor (3-b)+c[:-1]
    return sum(1 << b for b in range(4) if pred >> (3 - b) & 1)


def _cut_cycles(codes: NDArray[np.uint64], vals: NDArray[np.uint64],
                k: int) -> list[tuple[bytes, int, int]]:
    """Isolated cycles among `codes` (canonical, every side merged), each cut at
    its smallest k-mer: (sequence, k-mers, count sum) per cycle.  Serial: the
    uncovered k-mers are few (a genome's circles, not its bulk)."""
    value = dict(zip(codes.tolist(), vals.tolist()))
    left = set(value)
    mask = (1 << (2 * k)) - 1
    out = []
    for c in sorted(value):
        if c not in left:
            continue
        left.discard(c)
        seq, total, n, s = [kmer.decode(c, k)], value[c] & 0xFFFFFFFF, 1, c
        while True:
            bits = _out_bits(s, k, value[min(s, _rc(s, k))] >> 32)
            if bin(bits).count("1") != 1:
                break
            t = ((s << 2) | (bits.bit_length() - 1)) & mask
            ct = min(t, _rc(t, k))
            if ct not in left:          # back at the cut
                break
            left.discard(ct)
            seq.append("ACGT"[t & 3])
            total, n, s = total + (value[ct] & 0xFFFFFFFF), n + 1, t
        out.append(("".join(seq).encode(), n, total))
    return out


# ---- the phases ---------------------------------------------------------------

def _accumulate_all(m: Any, keys: NDArray[np.uint64], deltas: NDArray[np.uint64]) -> None:
    """Collective: adds deltas to keys' values in m through a HashMapBuffer
    that grows m if it fills."""
    with _buffer(m, len(keys), grow=True) as buf:
        for lo in range(0, len(keys), LOOKUP_BATCH):
            buf.accumulate_many(keys[lo:lo + LOOKUP_BATCH], deltas[lo:lo + LOOKUP_BATCH])


def _ext_siblings(keys: NDArray[np.uint64], k: int, ov: NDArray[np.uint64],
                  bits: NDArray[np.uint64], buckets: int
                  ) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
    """Collective: this rank's keys' extension bits and siblings' presence,
    from the overlap masks of their (k-1)-mers (`ov`, `bits`:
    dbg_overlaps_by_hash's), summed over every rank's k-mers in a map of
    (k-1)-mers of `buckets` buckets (_overlap_capacity) that is dropped
    again."""
    om = pybcl.HashMap(buckets, "uint64", "uint64")
    _accumulate_all(om, ov, bits)
    pybcl.barrier()
    masks, found = _find(om, ov)
    pybcl.barrier()             # every rank's lookups done before the map goes
    del om
    if not found.all():
        raise RuntimeError("a k-mer's own (k-1)-mer is missing from the overlap map")
    return _kernels.dbg_from_overlaps_by_hash(keys, k, masks)


def _graph(keys: NDArray[np.uint64], counts: NDArray[np.int64], k: int, total: int,
           ext: NDArray[np.uint8]) -> tuple[Any, NDArray[np.uint64]]:
    """Collective: the graph map (solid k-mer -> (ext << 32) | count) and this
    rank's keys' values."""
    P = pybcl.nprocs()
    m = pybcl.HashMap(int(total / MAP_LOAD) + 1024 * P, "uint64", "uint64")
    values = (ext.astype(np.uint64) << np.uint64(32)) | \
        np.minimum(counts, 0xFFFFFFFF).astype(np.uint64)
    _insert_all(m, *_kernels.hash_sort(keys, values))    # the inserts sweep the map
    pybcl.barrier()
    return m, values


def _walk(m: Any, starts: NDArray[np.uint64], values: NDArray[np.uint64], k: int,
          limit: int) -> tuple[list[bytes], NDArray[np.uint64], NDArray[np.uint64], int]:
    """Collective: every walk from `starts`, MAX_WALKERS at a time, a
    find_many per round.  (sequences, k-mers, count sums, rounds) of the
    unitigs this rank keeps.  On shm each rank reads the map for itself and
    goes at its own pace; elsewhere the lookups are collective (an exchange
    per round instead of a one-sided get per probe), so every rank takes
    part in every round until no rank has a walk going."""
    collective = pybcl.transport() != "shm"
    batches = -(-len(starts) // MAX_WALKERS)
    if collective:
        batches = int(pybcl.allreduce(np.array([batches], dtype=np.int64), "max")[0])
    seqs: list[bytes] = []
    kmers, sums = [np.zeros(0, np.uint64)], [np.zeros(0, np.uint64)]
    rounds = 0
    for b in range(batches):
        lo = b * MAX_WALKERS
        w = _kernels.DbgWalk(k, starts[lo:lo + MAX_WALKERS], values[lo:lo + MAX_WALKERS], limit)
        if not collective:      # every round in C, no Python between them
            rounds += w.run(m)
        while collective:
            q = w.queries()
            going = len(q)
            if collective:
                going = int(pybcl.allreduce(np.array([going], dtype=np.int64), "sum")[0])
            if not going:
                break
            rounds += 1
            w.advance(*m.find_many(q, promise=pybcl.ConProm.HashMap.find,
                                   collective=collective))
        s, km, cs = w.results()
        seqs += s
        kmers.append(km)
        sums.append(cs)
    return seqs, np.concatenate(kmers), np.concatenate(sums), rounds


def _cycles(keys: NDArray[np.uint64], values: NDArray[np.uint64], is_start: NDArray[np.bool_],
            seqs: list[bytes], k: int, total: int) -> list[tuple[bytes, int, int]]:
    """Collective: the isolated cycles (on rank 0; [] elsewhere).  The k-mers
    of this rank's unitigs are marked in a map; this rank's k-mers that start
    no walk and are unmarked are on cycles."""
    P = pybcl.nprocs()
    seen = pybcl.HashMap(int(total / MAP_LOAD) + 1024 * P, "uint64", "uint64")
    fasta = b"".join(b">\n" + s + b"\n" for s in seqs)
    covered = _kernels.kmers_from_bytes(fasta, k) if seqs else np.zeros(0, np.uint64)
    _insert_all(seen, covered, np.ones(len(covered), dtype=np.uint64))
    pybcl.barrier()
    inner = ~is_start
    _, marked = _find(seen, keys[inner])
    left_k, left_v = keys[inner][~marked], values[inner][~marked]
    pybcl.barrier()
    del seen                    # every rank drops it: freed
    parts = pybcl.comm().gather((left_k, left_v), root=0)
    if pybcl.rank() != 0:
        return []
    return _cut_cycles(np.concatenate([p[0] for p in parts]),
                       np.concatenate([p[1] for p in parts]), k)


def n50(lengths: NDArray[np.int64]) -> int:
    """The largest L such that unitigs of length >= L hold half the bases."""
    if not len(lengths):
        return 0
    s = np.sort(lengths)[::-1]
    half = s.sum() / 2
    return int(s[np.searchsorted(np.cumsum(s), half)])


def _counted(sources: Sequence[Union[kmer.Source, bytes, bytearray, memoryview, str]],
             k: int, progress: bool, min_count: int
             ) -> tuple[NDArray[np.uint64], NDArray[np.int64]]:
    """Collective: this rank's k-mers of `sources` seen at least `min_count`
    times and their counts (read in place: no copy of the others)."""
    try:
        res = kmer.count_kmers(sources, k=k, items=True, top=0, progress=progress,
                               items_at_least=min_count)
    except kmer.KmerInputError as e:
        raise ContigInputError(str(e)) from None
    return res["keys"], res["counts"]


def saved_counts(path: str, k: Optional[int], min_count: int
                 ) -> tuple[NDArray[np.uint64], NDArray[np.int64], int]:
    """Collective: this rank's k-mers and counts from the saved count map at
    `path` (``kmer --save``), and its k.  ContigInputError on every rank when
    it is not one, was counted with another k than `k` (None: any), with an
    even k, or with --bloom while min_count < 2 (its singletons are gone)."""
    try:
        m, info = kmerdb.open_counts(path)
    except kmerdb.KmerDbError as e:
        raise ContigInputError(str(e)) from None
    meta = info["meta"]
    problem = None
    if k is not None and meta["k"] != k:
        problem = f"{path}: counted with k={meta['k']}, not {k}"
    elif not _core_k_ok(meta["k"]):
        problem = f"{path}: counted with k={meta['k']}; contigs need an odd k in [3, 31]"
    elif meta.get("min_count", 1) > min_count:
        problem = (f"{path}: holds only k-mers counted at least {meta['min_count']} times "
                   f"(--bloom); --min-count must be at least that")
    keys, counts = m.local_arrays()
    m.close()
    if problem:
        raise ContigInputError(problem)
    return keys, counts, meta["k"]


def unitigs(sources: Sequence[Union[kmer.Source, bytes, bytearray, memoryview, str]],
            k: int = 31, min_count: int = 2, progress: bool = False,
            counts_db: Optional[str] = None) -> dict[str, Any]:
    """Collective.  The unitigs of the solid k-mers of `sources` (paths or
    FASTA/FASTQ bytes), or of the saved count map at `counts_db` (``kmer
    --save``; `sources` unused, `k` must be its k).  Returns a dict:
    'sequences' (this rank's unitigs, a list of bytes, each unitig on exactly
    one rank), 'kmers' and 'count_sums' (uint64 arrays: each unitig's k-mer
    count and sum of k-mer counts) and 'stats' (global figures, same on
    every rank).  ValueError for a bad k or min_count; a bad input raises
    ``ContigInputError`` on every rank."""
    if isinstance(k, bool) or not isinstance(k, int) or not _core_k_ok(k):
        raise ValueError(f"k must be an odd int in [3, 31], got {k!r}")
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be an int >= 1, got {min_count!r}")
    t0 = time.perf_counter()
    seconds: dict[str, float] = {}
    ours = not _core.initialized()          # we start pybcl: ours to resize
    if counts_db is None:
        keys, counts = _counted(sources, k, progress, min_count)   # the solid k-mers only
    else:
        keys, kcounts, _ = saved_counts(counts_db, k, min_count)
        solid = kcounts >= min_count
        keys, counts = keys[solid], kcounts[solid]
        del kcounts
    seconds["count"] = time.perf_counter() - t0
    t = time.perf_counter()
    total = int(pybcl.allreduce(np.array([len(keys)], dtype=np.int64), "sum")[0])
    # each k-mer's two (k-1)-mers, in the order of the map's hash: the
    # overlap map is swept, not jumped across, and sized from their sketch
    ov, bits = _kernels.dbg_overlaps_by_hash(keys, k)
    obuckets = _overlap_capacity(total, _distinct(ov))
    need = _segment_need(obuckets, len(keys))
    if ours and need > _core.segment_size():
        # the counting segment was sized for its queues; the graph's maps
        # are known only now (same sizes on every rank)
        pybcl.finalize()
        pybcl.init(segment_size=need)
    ext, siblings = _ext_siblings(keys, k, ov, bits, obuckets)
    del ov, bits
    m, values = _graph(keys, counts, k, total, ext)
    seconds["graph"] = time.perf_counter() - t

    t = time.perf_counter()
    starts, idx = _kernels.dbg_starts_local(keys, ext, k, siblings)
    del siblings
    seconds["ends"] = time.perf_counter() - t

    t = time.perf_counter()
    seqs, kmers_, sums, rounds = _walk(m, starts, values[idx], k, max(total, 1))
    pybcl.barrier()
    seconds["walk"] = time.perf_counter() - t
    del m

    t = time.perf_counter()
    covered = int(pybcl.allreduce(np.array([int(kmers_.sum())], dtype=np.int64), "sum")[0])
    n_cycles = 0
    if covered < total:
        is_start = np.zeros(len(keys), dtype=bool)
        is_start[idx.astype(np.int64)] = True
        cyc = _cycles(keys, values, is_start, seqs, k, total)
        n_cycles = int(pybcl.allreduce(np.array([len(cyc)], dtype=np.int64), "sum")[0])
        seqs += [c[0] for c in cyc]
        kmers_ = np.concatenate([kmers_, np.array([c[1] for c in cyc], dtype=np.uint64)])
        sums = np.concatenate([sums, np.array([c[2] for c in cyc], dtype=np.uint64)])
    seconds["cycles"] = time.perf_counter() - t

    lengths = np.concatenate(pybcl.comm().allgather(
        np.array([len(s) for s in seqs], dtype=np.int64)))
    in_unitigs = int(pybcl.allreduce(np.array([int(kmers_.sum())], dtype=np.int64), "sum")[0])
    if in_unitigs != total:
        raise RuntimeError(f"unitigs hold {in_unitigs} k-mers, the graph {total}")
    seconds["total"] = time.perf_counter() - t0
    rounds_all = pybcl.comm().allgather(rounds)
    stats = {
        "app": "contigs", "k": k, "min_count": min_count, "ranks": pybcl.nprocs(),
        "transport": pybcl.transport(),
        "solid_kmers": total,
        "unitigs": int(len(lengths)),
        "cycles": n_cycles,
        "total_length": int(lengths.sum()),
        "n50": n50(lengths),
        "max_length": int(lengths.max()) if len(lengths) else 0,
        "walk_rounds_per_rank": rounds_all,
        "walks_per_rank": pybcl.comm().allgather(int(len(starts))),
        "peak_rss_bytes_per_rank": pybcl.comm().allgather(kmer.peak_rss_bytes()),
        "seconds": seconds,
    }
    return {"sequences": seqs, "kmers": kmers_, "count_sums": sums, "stats": stats}


def _distinct(keys: NDArray[np.uint64]) -> float:
    """Collective: the distinct keys of every rank's `keys`, estimated by a
    HyperLogLog sketch (about 1 % off)."""
    regs = np.zeros(_kernels.HLL_REGISTERS, dtype=np.uint8)
    _kernels.hll_add(regs, keys)
    return _kernels.hll_estimate(pybcl.allreduce(regs, "max"))


def _overlap_capacity(total: int, distinct: Optional[float] = None) -> int:
    """Buckets of the (k-1)-mer map: its `distinct` (k-1)-mers (an estimate,
    taken 10 % high) or else the most there can be, 2 per k-mer (isolated
    k-mers), at a load of 0.8 at most, under the 85 % past which a growing
    compact map doubles (docs/hashmap.md).  A graph of long paths has about
    one per k-mer: a map sized for two would be twice the pages to clear
    and to sweep."""
    most = 2 * total
    want = most if distinct is None else min(most, int(1.1 * distinct))
    return int(want / MAP_LOAD) + 1024 * pybcl.nprocs()


def _segment_need(overlap_buckets: int, mine: int) -> int:
    """Collective: segment bytes per rank the graph phase needs (generously:
    32 bytes a bucket): the (k-1)-mer map of `overlap_buckets` and room for
    it to grow once (old and new at once), which outweighs the graph map,
    and their buffers."""
    P = pybcl.nprocs()
    most = int(pybcl.allreduce(np.array([mine], dtype=np.int64), "max")[0])
    buckets = 3 * overlap_buckets // P + 1
    return buckets * 32 + min(max(most, 1024), 1 << 20) * 64 + P * 4096 * 64 + (64 << 20)


def _db_k(path: str) -> Optional[int]:
    """The k a saved count map was counted with, or None when it cannot say
    (loading it then names the problem, on every rank)."""
    try:
        return int(kmerdb.describe(path)["meta"]["k"])
    except kmerdb.KmerDbError:
        return None


def _core_k_ok(k: int) -> bool:
    return 3 <= k <= 31 and k % 2 == 1


# ---- output -----------------------------------------------------------------

def fasta(res: dict[str, Any], first_id: int = 0) -> bytes:
    """This rank's unitigs as FASTA, BCALM 2's header fields, ids from first_id."""
    lines = []
    for i, (s, n, c) in enumerate(zip(res["sequences"], res["kmers"].tolist(),
                                      res["count_sums"].tolist())):
        lines.append(b">%d LN:i:%d KC:i:%d km:f:%.1f\n%s\n"
                     % (first_id + i, len(s), c, c / max(n, 1), s))
    return b"".join(lines)


def write_fasta(res: dict[str, Any], path: str) -> None:
    """Collective: ranks append their unitigs in turn, rank 0 first."""
    counts = pybcl.comm().allgather(len(res["sequences"]))
    data = fasta(res, sum(counts[:pybcl.rank()]))
    _cli.append_in_turn(path, data, pybcl.rank(), pybcl.nprocs(), pybcl.barrier, "-o")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _cli.Parser.for_reads(
        "contigs",
        "Unitigs (maximal non-branching paths, as BCALM 2 defines them) of the de Bruijn "
        "graph of the solid canonical k-mers of FASTA/FASTQ files, with pybcl.  Run under "
        "mpiexec.",
        "assemble reads simulated from the lambda phage genome the package ships (30x, "
        "100 bp, 1%% substitutions)",
        "k-mer length, odd, 3..31 (default 31)")
    ap.add_argument("--counts", metavar="DB",
                    help="the k-mer counts saved by kmer --save DB, instead of READS "
                         "(-k: the database's)")
    ap.add_argument("--min-count", type=int, default=2,
                    help="keep k-mers seen at least this often (default 2)")
    ap.add_argument("-o", "--output", metavar="FILE", help="unitigs as FASTA")
    ap.add_argument("--json", metavar="FILE", help="the run's figures as JSON")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    args = ap.parse_args(argv)
    k_given = any(a == "-k" or a.startswith("-k") for a in (argv or sys.argv[1:]))
    ap.at_least("--min-count", args.min_count, 1)
    if args.counts:
        if args.reads or args.demo:
            ap.error("give READS, --demo or --counts DB (one of them)")
        db_k = None if k_given else _db_k(args.counts)
        args.k = db_k if db_k is not None else args.k
    else:
        ap.check_reads(args)
    if not _core_k_ok(args.k):
        ap.error(f"argument -k: must be odd and in [3, 31], got {args.k}")
    prog = ap.prog
    sources = _cli.open_inputs(prog, (("-o", args.output), ("--json", args.json)),
                               lambda: [] if args.counts else
                               kmer.cli_sources(args.reads, args.demo),
                               kmer.KmerInputError)
    if sources is None:
        return _cli.INPUT

    try:
        res = unitigs(sources, k=args.k, min_count=args.min_count, progress=not args.quiet,
                      counts_db=args.counts)
    except ContigInputError as e:
        _cli.say_error(prog, str(e))
        return _cli.INPUT
    st = res["stats"]
    with _cli.Outputs(prog) as out:
        t = time.perf_counter()
        if args.output:
            write_fasta(res, args.output)
        st["seconds"]["output"] = time.perf_counter() - t
        if pybcl.rank() == 0:
            st["inputs"] = [str(s) for s in sources] or [f"saved counts {args.counts}"]
            s = st["seconds"]
            print(f"contigs, k={args.k}, min count {args.min_count}, {st['ranks']} rank(s), "
                  f"transport {st['transport']}: {', '.join(st['inputs'])}")
            print(f"  {st['solid_kmers']:,} solid k-mers -> {st['unitigs']:,} unitigs "
                  f"({st['cycles']} cycles), {st['total_length']:,} bp, N50 {st['n50']:,}, "
                  f"longest {st['max_length']:,}")
            print("  seconds: " + ", ".join(f"{p} {v:.2f}" for p, v in s.items())
                  + f"; peak RSS {max(st['peak_rss_bytes_per_rank']) / 2**20:.0f} MiB/rank")
            _cli.write_json(args.json, st)
    return out.status(0)


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
