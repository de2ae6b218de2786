"""The contig app: `pybcl.apps.contigs` (unitigs of the solid k-mers).

Unitigs are compared as sets of canonical k-mer sets (one set per unitig),
so the orientation a unitig is written in and where a cycle is cut do not
matter.  The expected sets come from a serial reference written here
(grown from every k-mer in both directions, a different formulation from
the app's walks from unitig ends), from the sequences a synthetic genome
was cut from, and, where BCALM 2 is installed, from BCALM 2 itself.
"""
import gzip
import os
import random
import shutil
import subprocess

import numpy as np
import pytest

import pybcl
from conftest import all_ok
from launch import ROOT, quiet_args, run_python
from pybcl.apps import _kernels
from pybcl.apps import contigs

BASES = "ACGT"
DATA = os.path.join(ROOT, "tests", "data")
ECOLI = os.path.join(DATA, "NC_008253.fna.gz")


def rc(s):
    return s[::-1].translate(str.maketrans("ACGT", "TGCA"))


def canon(s):
    return min(s, rc(s))


def kmer_sets(seqs, k):
    """The unitigs as a set of frozensets of canonical k-mers."""
    return {frozenset(canon(s[i:i + k]) for i in range(len(s) - k + 1)) for s in seqs}


def solid_kmers(reads, k, min_count):
    counts = {}
    for r in reads:
        for part in r.upper().split("N"):
            for i in range(len(part) - k + 1):
                c = canon(part[i:i + k])
                counts[c] = counts.get(c, 0) + 1
    return {c for c, n in counts.items() if n >= min_count}


def reference_unitigs(kmers, k):
    """Serial reference: the edge s -> t is merged when s has one successor,
    t one predecessor, and t is not s's own k-mer; each k-mer is grown in
    both directions into its unitig (a cycle is cut where it was entered)."""
    def succs(s):
        return [s[1:] + b for b in BASES if canon(s[1:] + b) in kmers]

    def merged_next(s):
        out = succs(s)
        if len(out) != 1 or canon(out[0]) == canon(s):
            return None
        t = out[0]
        preds = [b + t[:-1] for b in BASES if canon(b + t[:-1]) in kmers]
        return t if len(preds) == 1 else None

    seen, result = set(), set()
    for c in sorted(kmers):
        if c in seen:
            continue
        seen.add(c)
        members = {c}
        for s in (c, rc(c)):
            t = merged_next(s)
            while t is not None and canon(t) not in seen:
                seen.add(canon(t))
                members.add(canon(t))
                t = merged_next(t)
        result.add(frozenset(members))
    return result


def fasta(seqs):
    return "".join(f">r{i}\n{s}\n" for i, s in enumerate(seqs)).encode()


def app_unitigs(data, k, min_count=1):
    """Collective: every rank's unitigs (sequences), and the stats."""
    res = contigs.unitigs([data], k=k, min_count=min_count)
    seqs = [s.decode() for part in pybcl.comm().allgather(res["sequences"]) for s in part]
    return seqs, res["stats"]


def random_seq(rng, n):
    return "".join(rng.choice(BASES) for _ in range(n))


@pytest.mark.parametrize("k", [21, 31])
def test_random_genomes_cut_into_overlapping_reads_come_back_whole(k):
    rng = random.Random(k)
    genomes = [random_seq(rng, rng.randrange(200, 3000)) for _ in range(6 + pybcl.nprocs())]
    reads = []
    for g in genomes:                       # error-free, every k-mer in >= 2 reads
        for p in range(0, len(g) - 50, 10):
            reads.append(g[p:p + 70] if rng.random() < 0.5 else rc(g[p:p + 70]))
        reads += [g[:70], g[-70:], rc(g[-70:])]
    seqs, stats = app_unitigs(fasta(reads), k, min_count=2)
    assert all_ok(kmer_sets(seqs, k) == kmer_sets(genomes, k))
    assert all_ok(sorted(len(s) for s in seqs) == sorted(len(g) for g in genomes))
    assert stats["unitigs"] == len(genomes) and stats["cycles"] == 0


def branching_cases(k):
    rng = random.Random(5)
    left, right = random_seq(rng, 80), random_seq(rng, 80)
    repeat = random_seq(rng, k + 12)
    half = random_seq(rng, (k - 1) // 2)
    hairpin = random_seq(rng, 40) + half + rc(half) + random_seq(rng, 1)
    ring = random_seq(rng, 150)
    return {
        "snp bubble": [left + "A" + right, left + "C" + right],
        "repeat longer than k": [random_seq(rng, 60) + repeat + random_seq(rng, 60),
                                 random_seq(rng, 60) + repeat + random_seq(rng, 60)],
        "palindrome-adjacent k-mer": [hairpin, random_seq(rng, 50)],
        "isolated cycle": [ring + ring[:k - 1], random_seq(rng, 90)],
        "cycle on both strands": [ring + ring[:k - 1], rc(ring[30:100])],
        "reads shorter than k": [random_seq(rng, k - 1), random_seq(rng, 100),
                                 random_seq(rng, 5)],
        "N bases": [random_seq(rng, 70) + "N" + random_seq(rng, 70), "NNNN" + random_seq(rng, 60)],
        "tip and branch": [left + right, left[40:] + "T" + random_seq(rng, 30)],
    }


@pytest.mark.parametrize("case", sorted(branching_cases(21)))
@pytest.mark.parametrize("k", [11, 21])
def test_branching_cases_match_the_serial_reference(case, k):
    seqs_in = branching_cases(k)[case]
    seqs, stats = app_unitigs(fasta(seqs_in), k)
    want = reference_unitigs(solid_kmers(seqs_in, k, 1), k)
    assert all_ok(kmer_sets(seqs, k) == want)
    assert all_ok(stats["solid_kmers"] == sum(len(u) for u in want))
    assert stats["cycles"] == (1 if "cycle" in case else 0)


def test_each_unitig_written_once_with_its_counts():
    rng = random.Random(3)
    g = random_seq(rng, 500)
    reads = [g] * 3 + [g[:200]]             # k-mers of the first 200 bases: 4 times
    res = contigs.unitigs([fasta(reads)], k=21, min_count=1)
    everything = pybcl.comm().allgather((res["sequences"], res["kmers"].tolist(),
                                         res["count_sums"].tolist()))
    rows = [row for seqs, km, cs in everything for row in zip(seqs, km, cs)]
    got = sorted((len(s), n, c) for s, n, c in rows)
    # counts do not cut a path: one unitig; its first 180 k-mers were seen 4 times
    assert all_ok(got == [(500, 480, 180 * 4 + 300 * 3)])


@pytest.mark.skipif(shutil.which("bcalm") is None, reason="BCALM 2 (Debian package bcalm) "
                    "not installed")
def test_ecoli_slice_reads_give_bcalms_unitigs(tmp_path):
    genome = b"".join(l.strip() for l in gzip.open(ECOLI) if not l.startswith(b">"))
    piece = genome[1_000_000:1_150_000]
    reads = _kernels.simulate_reads(piece, 150_000 * 8 // 100, 100, 0.01, 11)
    seqs, stats = app_unitigs(reads, 31, min_count=2)
    want = None
    if pybcl.rank() == 0:
        (tmp_path / "r.fq").write_bytes(reads)
        subprocess.run(["bcalm", "-in", str(tmp_path / "r.fq"), "-kmer-size", "31",
                        "-abundance-min", "2", "-nb-cores", "1", "-out", str(tmp_path / "b"),
                        "-out-tmp", str(tmp_path), "-verbose", "0"],
                       check=True, capture_output=True, cwd=tmp_path, timeout=120)
        lines = (tmp_path / "b.unitigs.fa").read_text().splitlines()
        want = kmer_sets([l for l in lines if l and not l.startswith(">")], 31)
    want = pybcl.comm().bcast(want, root=0)
    assert all_ok(kmer_sets(seqs, 31) == want)
    assert stats["unitigs"] == len(want)


def test_bad_arguments_raise_naming_them():
    for bad in (0, 2, 30, 33, "31", True):
        with pytest.raises(ValueError, match="k must be"):
            contigs.unitigs([b">a\nACGT\n"], k=bad)
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="min_count"):
            contigs.unitigs([b">a\nACGT\n"], k=31, min_count=bad)


def test_n50():
    assert contigs.n50(np.array([], dtype=np.int64)) == 0
    assert contigs.n50(np.array([2, 3, 4, 10], dtype=np.int64)) == 10
    assert contigs.n50(np.array([5, 5, 5, 5], dtype=np.int64)) == 5
    assert contigs.n50(np.array([1, 2, 3, 4, 5], dtype=np.int64)) == 4


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs", [1, 3])
def test_cli_writes_fasta_and_json(tmp_path, nprocs):
    rng = random.Random(nprocs)
    genomes = [random_seq(rng, 400) for _ in range(5)]
    reads = [g[p:p + 60] for g in genomes for p in range(0, 341, 10)]
    (tmp_path / "r.fa").write_bytes(fasta(reads))
    r = run_python(["-m", "pybcl.apps.contigs", str(tmp_path / "r.fa"), "-k", "21",
                    "--min-count", "1", "-o", str(tmp_path / "u.fa"),
                    "--json", str(tmp_path / "u.json"), "--quiet"], nprocs, timeout=120, extra=quiet_args())
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "u.fa").read_text().splitlines()
    heads, seqs = text[0::2], text[1::2]
    assert kmer_sets(seqs, 21) == kmer_sets(genomes, 21)
    assert sorted(int(h.split()[0][1:]) for h in heads) == list(range(len(genomes)))
    assert all(f"LN:i:{len(s)} " in h for h, s in zip(heads, seqs))
    import json
    st = json.loads((tmp_path / "u.json").read_text())
    assert st["unitigs"] == 5 and st["n50"] == 400 and st["total_length"] == 2000
    assert len(st["peak_rss_bytes_per_rank"]) == nprocs


@pytest.mark.serial_only
@pytest.mark.parametrize("args, code, text", [
    (["-k", "30", "--demo"], 2, "argument -k: must be odd"),
    (["--min-count", "0", "--demo"], 2, "argument --min-count"),
    ([], 2, "give READS files, or --demo"),
    (["/nonexistent/reads.fq"], 1, "/nonexistent/reads.fq: no such file"),
    (["--demo", "-o", "/nonexistent/dir/u.fa"], 1, "-o /nonexistent/dir/u.fa: directory"),
])
def test_cli_errors_are_one_line_from_rank_0(args, code, text):
    r = run_python(["-m", "pybcl.apps.contigs"] + args, 2, timeout=120, extra=quiet_args())
    assert r.returncode == code, r.stderr
    lines = [l for l in r.stderr.splitlines() if "error:" in l]
    assert len(lines) == 1 and text in lines[0], r.stderr


def test_graph_kernels_reject_bad_arguments():
    keys = np.array([1, 2, 3], dtype=np.uint64)
    with pytest.raises(ValueError, match="k must be odd"):
        _kernels.dbg_overlaps(keys, 20)
    with pytest.raises(ValueError, match="k"):
        _kernels.dbg_from_overlaps(keys, 33, np.zeros(6, dtype=np.uint64))
    with pytest.raises(ValueError, match="2 per key"):
        _kernels.dbg_from_overlaps(keys, 21, np.zeros(5, dtype=np.uint64))
    with pytest.raises(TypeError, match="masks"):
        _kernels.dbg_from_overlaps(keys, 21, "masks")
    with pytest.raises(ValueError, match="6 flags"):
        _kernels.dbg_starts_local(keys, np.zeros(3, dtype=np.uint8), 21, np.zeros(5, dtype=bool))
    with pytest.raises(ValueError, match="as long as"):
        _kernels.DbgWalk(21, keys, keys[:2], 10)
    w = _kernels.DbgWalk(21, keys, np.zeros(3, dtype=np.uint64), 10)
    assert len(w.queries()) == 0            # no extension bits: every walk ends at once
    with pytest.raises(ValueError, match="results for"):
        w.advance(np.zeros(2, dtype=np.uint64), np.zeros(2, dtype=bool))
    seqs, kmers, sums = w.results()
    assert len(seqs) == 3 and kmers.tolist() == [1, 1, 1]


def _rc_code(s, k):
    r = 0
    for _ in range(k):
        r, s = (r << 2) | (3 - (s & 3)), s >> 2
    return r


@pytest.mark.parametrize("k", [3, 5, 7])
def test_overlap_masks_give_every_neighbour_and_sibling(k):
    """Edges found through the (k-1)-mer overlap masks equal a brute-force
    check of all 8 neighbours and 6 siblings, with half of all k-mers solid
    (small k: palindromic (k-1)-mers and hairpins occur)."""
    rng = np.random.default_rng(k)
    canon = sorted({min(c, _rc_code(c, k)) for c in range(4 ** k)})
    solid = set(rng.choice(canon, len(canon) // 2, replace=False).tolist())
    keys = np.array(sorted(solid), dtype=np.uint64)
    ov, bit = _kernels.dbg_overlaps(keys, k)
    sums = {}
    for x, b in zip(ov.tolist(), bit.tolist()):
        assert sums.get(x, 0) & b == 0          # no bit is set twice: adding is OR
        sums[x] = sums.get(x, 0) + b
    ext, sib = _kernels.dbg_from_overlaps(keys, k, np.array([sums[x] for x in ov.tolist()],
                                                         dtype=np.uint64))
    mask = (1 << (2 * k)) - 1

    def has(s):
        return min(s, _rc_code(s, k)) in solid
    for i, c in enumerate(keys.tolist()):
        first, last = c >> (2 * (k - 1)), c & 3
        want = sum(has(((c << 2) | b) & mask) << b for b in range(4))
        want |= sum(has((b << (2 * (k - 1))) | (c >> 2)) << (4 + b) for b in range(4))
        assert ext[i] == want, (k, c)
        want_sib = [has((b << (2 * (k - 1))) | (c & (mask >> 2))) for b in range(4) if b != first]
        want_sib += [has((c & ~3) | b) for b in range(4) if b != last]
        assert sib[6 * i:6 * i + 6].tolist() == want_sib, (k, c)


@pytest.mark.parametrize("k", [5, 21])
def test_overlaps_by_hash_are_the_overlaps_in_hash_sorts_order(k):
    """dbg_overlaps_by_hash: dbg_overlaps' entries in the stable order
    hash_sort gives the same (k-1)-mers; dbg_from_overlaps_by_hash reads
    their masks in that order as dbg_from_overlaps does in its own."""
    rng = np.random.default_rng(k)
    keys = np.unique(rng.integers(0, 4 ** k, 5000, dtype=np.uint64))
    keys = np.unique(np.minimum(keys, np.array([_rc_code(c, k) for c in keys.tolist()],
                                               dtype=np.uint64)))
    ov, bit = _kernels.dbg_overlaps(keys, k)
    hov, hbit = _kernels.dbg_overlaps_by_hash(keys, k)
    skeys, place = _kernels.hash_sort(ov, np.arange(len(ov), dtype=np.uint64))
    assert np.array_equal(skeys, hov) and np.array_equal(bit[place.astype(np.int64)], hbit)
    assert not np.array_equal(hov, ov)
    sums = {}
    for x, b in zip(ov.tolist(), bit.tolist()):
        sums[x] = sums.get(x, 0) + b
    masks = np.array([sums[x] for x in ov.tolist()], dtype=np.uint64)
    swept = np.array([sums[x] for x in hov.tolist()], dtype=np.uint64)
    want, got = _kernels.dbg_from_overlaps(keys, k, masks), \
        _kernels.dbg_from_overlaps_by_hash(keys, k, swept)
    assert np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1])
    with pytest.raises(ValueError, match="as long as"):
        _kernels.hash_sort(ov, ov[:3])
    with pytest.raises(ValueError, match="k must be odd"):
        _kernels.dbg_overlaps_by_hash(keys, 20)
    with pytest.raises(ValueError, match="2 per key"):
        _kernels.dbg_from_overlaps_by_hash(keys, k, swept[:5])


def test_walk_run_in_c_gives_the_rounds_walks():
    """DbgWalk.run(graph) (every round in C, one-sided find) walks what
    rounds of queries(), find_many and advance() walk; run() refuses what is
    not a uint64 -> uint64 HashMap."""
    k = 21
    rng = random.Random(7)
    g = random_seq(rng, 3000)
    kmers = _kernels.kmers_from_bytes(fasta([g, g[:1500] + "A" + g[1501:]]), k)
    keys = np.unique(kmers)
    keys = keys[pybcl.rank()::pybcl.nprocs()]            # any split: inserts are routed
    counts = np.full(len(keys), 2, dtype=np.int64)
    total = int(pybcl.allreduce(np.array([len(keys)], dtype=np.int64), "sum")[0])
    ov, bits = _kernels.dbg_overlaps_by_hash(keys, k)
    ext, sib = contigs._ext_siblings(keys, k, ov, bits,
                                     contigs._overlap_capacity(total, contigs._distinct(ov)))
    m, values = contigs._graph(keys, counts, k, total, ext)
    starts, idx = _kernels.dbg_starts_local(keys, ext, k, sib)
    a = _kernels.DbgWalk(k, starts, values[idx], total)
    rounds = 0
    while len(q := a.queries()):
        a.advance(*m.find_many(q, promise=pybcl.ConProm.HashMap.find))
        rounds += 1
    b = _kernels.DbgWalk(k, starts, values[idx], total)
    assert b.run(m) == rounds
    ra, rb = a.results(), b.results()
    ok = ra[0] == rb[0] and all(np.array_equal(x, y) for x, y in zip(ra[1:], rb[1:]))
    with pytest.raises(TypeError, match="graph"):
        b.run(5)
    other = pybcl.HashMap(64, "uint64", "int64")
    with pytest.raises(TypeError, match="uint64"):
        b.run(other)
    pybcl.barrier()
    assert all_ok(ok)
