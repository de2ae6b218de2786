"""k-mer counting: the C parser against a pure-Python reference, then the app.

Parser tests are local (every rank runs them on its own).  The app is
checked in-process on whatever communicator pytest runs on, and, in the
one-rank pass, by launching `python -m pybcl.apps.kmer` under mpiexec at 1, 2
and 4 ranks and comparing with collections.Counter.
"""
import collections
import gzip
import json
import os
import random
import re

import numpy as np
import pytest

import pybcl
from launch import ROOT, run_app
from pybcl.apps import _kernels
from conftest import all_ok

ENC = {"A": 0, "C": 1, "G": 2, "T": 3}
COMP = str.maketrans("ACGT", "TGCA")


# ---- the independent reference ----------------------------------------------------

def ref_records(text):
    """Sequences of a FASTA/FASTQ text, line breaks removed, uppercased."""
    lines = text.replace("\r", "").split("\n")
    seqs = []
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        return seqs
    if lines[i].startswith(">"):
        cur = None
        for line in lines[i:]:
            if line.startswith(">"):
                if cur is not None:
                    seqs.append("".join(cur))
                cur = []
            else:
                cur.append(line.strip(" \t"))
        seqs.append("".join(cur))
        return seqs
    # FASTQ (multi-line allowed): seq lines until '+', quality as long as seq
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        assert lines[i].startswith("@")
        i += 1
        seq = []
        while not lines[i].startswith("+"):
            seq.append(lines[i].strip(" \t"))
            i += 1
        i += 1
        s = "".join(seq)
        q = 0
        while q < len(s):
            q += len(lines[i])
            i += 1
        seqs.append(s)
    return seqs


def ref_kmers(text, k):
    """Counter of canonical k-mer codes."""
    out = collections.Counter()
    for s in ref_records(text):
        s = s.upper()
        for j in range(len(s) - k + 1):
            w = s[j:j + k]
            if any(c not in ENC for c in w):
                continue
            rc = w.translate(COMP)[::-1]
            a = b = 0
            for c, d in zip(w, rc):
                a = a * 4 + ENC[c]
                b = b * 4 + ENC[d]
            out[min(a, b)] += 1
    return out


def c_kmers(text, k, chunk=0, rank=0, nprocs=1, block_shift=20):
    return _kernels.kmers_from_bytes(text.encode(), k, rank, nprocs, chunk, block_shift)


TRICKY = {
    "multiline_fasta": ">chr1 first\nACGTACGTTG\nCATGCAT\n\n>chr2\nttgacGGATC\nNNACGTAGGCTTA\n"
                       ">empty\n>short\nACG\n>last no newline\nGATTACAGATTACA",
    "crlf_fasta": ">a\r\nACGTTGCA\r\nGGCCATAT\r\n>b\r\nTTTTGGGGCCCCAAAA\r\n",
    "fastq": "@r1 desc\nACGTTGCAAGT\n+\nIIIIIIIIIII\n@r2\nNNNNACGTACCA\n+r2\n@@@@IIII@@@@\n"
             "@r3\nacgtgggtttacc\n+\n!!!!!!!!!!!!!\n",
    "fastq_at_quality": "@q1\nACGTAC\n+\n@IIII@\n@q2\nGGGTTT\n+\n@@@@@@\n",
    "fastq_multiline": "@m1\nACGTAC\nGTTG\n+\nIIII\nIIIIII\n@m2\nTTGCA\n+\nIIIII",
    "fastq_empty_record": "@e\n\n+\n\n@f\nACGTAA\n+\nIIIIII\n",
    "iupac_and_dots": ">x\nACGTRYACGTKM.ACGTACGTNNNacgtacgtAC\n",
    "blank_lead": "\n\n>x\nAC\nGT\nAC\nGT\nAC\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
@pytest.mark.parametrize("k", [1, 3, 5, 11])
def test_parser_matches_reference(name, k):
    text = TRICKY[name]
    want = ref_kmers(text, k)
    for chunk in (0, 1, 2, 3, 7, 64):
        got = collections.Counter(c_kmers(text, k, chunk).tolist())
        assert got == want, (name, k, chunk)


def random_text(rng, fmt, nrec=30):
    parts = []
    for i in range(nrec):
        n = rng.randrange(0, 90)
        seq = "".join(rng.choice("ACGTACGTACGTacgtN") for _ in range(n))
        if fmt == "fasta":
            width = rng.choice([5, 13, 60, 1000])
            lines = [seq[j:j + width] for j in range(0, len(seq), width)] or [""]
            parts.append(f">rec{i} x\n" + "\n".join(lines) + "\n")
        else:
            qual = "".join(rng.choice("@+!I#") for _ in range(n))
            parts.append(f"@rec{i}\n{seq}\n+\n{qual}\n")
    return "".join(parts)


@pytest.mark.parametrize("fmt", ["fasta", "fastq"])
@pytest.mark.parametrize("k", [7, 21, 31, 32])
def test_parser_random_inputs(fmt, k):
    rng = random.Random(f"{fmt}{k}")
    for _ in range(4):
        text = random_text(rng, fmt)
        want = ref_kmers(text, k)
        for chunk in (0, 17, 4096):
            assert collections.Counter(c_kmers(text, k, chunk).tolist()) == want


@pytest.mark.parametrize("nprocs", [2, 3, 4])
def test_rank_shares_partition_the_kmers(nprocs):
    rng = random.Random(nprocs)
    text = random_text(rng, "fastq", 60) + ""
    want = ref_kmers(text, 15)
    got = collections.Counter()
    sizes = []
    for r in range(nprocs):
        part = c_kmers(text, 15, 5, r, nprocs, block_shift=6)
        sizes.append(len(part))
        got.update(part.tolist())
    assert got == want
    assert min(sizes) > 0


def test_encode_decode_and_canonical():
    assert _kernels.kmer_encode("ACGT") == 0b00011011
    assert _kernels.kmer_encode("TTTT") == _kernels.kmer_encode("AAAA") == 0
    assert _kernels.kmer_encode("acgTT") == _kernels.kmer_encode("AACGT")
    with pytest.raises(ValueError):
        _kernels.kmer_encode("ACNT")
    codes = np.array([0, 27, (1 << 62) - 1 + (1 << 62)], dtype=np.uint64)
    assert _kernels.kmer_decode(codes, 4).tolist() == [b"AAAA", b"ACGT", b"TTTT"]
    assert _kernels.kmer_decode(np.array([~np.uint64(0)]), 32).tolist() == [b"T" * 32]


def test_malformed_inputs_raise():
    for bad in ("hello\n", "@r\nACGT\n+\nIIIII\n", "@r\nACGT\n"):
        with pytest.raises(ValueError):
            c_kmers(bad, 3)
    with pytest.raises(ValueError):
        c_kmers(">x\nACGT\n", 33)


@pytest.mark.parametrize("gz", [False, True])
def test_reader_files_plain_and_gz(tmp_path, gz):
    text = TRICKY["fastq"] * 200
    path = tmp_path / ("r.fq.gz" if gz else "r.fq")
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    got = collections.Counter()
    for arr in _kernels.KmerReader(str(path), 5, 0, 1, 7):   # tiny chunks: records span them
        assert arr.dtype == np.uint64
        got.update(arr.tolist())
    assert got == ref_kmers(text, 5)
    with pytest.raises(OSError):
        _kernels.KmerReader(str(tmp_path / "missing.fq"), 5)


def test_reader_real_data_matches_python():
    path = os.path.join(ROOT, "tests", "data", "reads_1.fq.gz")
    text = gzip.open(path, "rt").read()[:200_000]
    text = text[:text.rfind("\n@r")]   # whole records
    assert collections.Counter(c_kmers(text, 21, 1000).tolist()) == ref_kmers(text, 21)


def test_hll_estimate_close():
    regs = np.zeros(_kernels.HLL_REGISTERS, dtype=np.uint8)
    keys = np.arange(200_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    _kernels.hll_add(regs, keys)
    _kernels.hll_add(regs, keys[:1000])
    est = _kernels.hll_estimate(regs)
    assert abs(est - 200_000) / 200_000 < 0.05


def test_simulated_reads_deterministic():
    g = b"ACGT" * 100 + b"GATTACA" * 50
    a = _kernels.simulate_reads(g, 50, 40, 0.02, 3)
    assert a == _kernels.simulate_reads(g, 50, 40, 0.02, 3)
    assert a != _kernels.simulate_reads(g, 50, 40, 0.02, 4)
    assert a.count(b"\n") == 200 and len(ref_records(a.decode())) == 50


# ---- the app ------------------------------------------------------------------------



def small_reads(seed=7, n=300, length=60, err=0.02):
    rng = random.Random(seed)
    genome = "".join(rng.choice("ACGT") for _ in range(3000)).encode()
    return _kernels.simulate_reads(genome, n, length, err, seed).decode()


def gather_counts(res):
    mine = dict(zip(res["keys"].tolist(), res["counts"].tolist()))
    merged = {}
    for part in pybcl.comm().allgather(mine):
        assert not set(part) & set(merged), "a k-mer is stored on two ranks"
        merged.update(part)
    return merged


def test_app_counts_exact_in_process():
    from pybcl.apps import kmer
    text = small_reads()
    want = ref_kmers(text, 15)
    res = kmer.count_kmers([text.encode()], k=15)
    got = gather_counts(res)
    hist = res["histogram"]
    ok = got == dict(want) and res["stats"]["kmers_total"] == sum(want.values())
    ok = ok and all(int(hist[c]) == n for c, n in
                    collections.Counter(want.values()).items())
    assert all_ok(ok)


@pytest.mark.parametrize("bits", [0.25, 10])
def test_app_bloom_counts_exact_in_process(bits):
    """--bloom gives the plain run's counts and histogram, even with a filter
    so small that it errs often (a false positive must not count a k-mer
    one too high: the recount pass corrects it)."""
    from pybcl.apps import kmer
    text = small_reads(seed=11)
    want = ref_kmers(text, 15)
    plain = kmer.count_kmers([text.encode()], k=15)
    res = kmer.count_kmers([text.encode()], k=15, bloom=True, bloom_bits_per_kmer=bits)
    st = res["stats"]
    repeated = {km: c for km, c in want.items() if c >= 2}
    ok = gather_counts(res) == repeated          # the k-mers seen twice, exactly
    ok = ok and np.array_equal(res["histogram"], plain["histogram"])
    ok = ok and all(int(res["histogram"][c]) == n for c, n in
                    collections.Counter(want.values()).items())
    ok = ok and st["kmers_total"] == sum(want.values()) and st["distinct"] == len(want)
    if bits < 1:     # the filter did err, and the counts stayed exact
        ok = ok and st["bloom_false_positives"] > 0
    else:            # and with a real filter the table holds far fewer keys
        ok = ok and st["distinct_in_table"] < 0.7 * plain["stats"]["distinct_in_table"]
    top = kmer.top_kmers(res, 5)
    ok = ok and top == sorted(repeated.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    assert all_ok(ok)


def at_quality_reads(seed, n=600):
    """4-line FASTQ whose quality lines often start with '@' (a resync trap)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        L = rng.randrange(25, 90)
        seq = "".join(rng.choice("ACGTACGTN") for _ in range(L))
        qual = "@" + "".join(rng.choice("@I#+") for _ in range(L - 1))
        out.append(f"@r{i}\n{seq}\n+\n{qual}\n")
    return "".join(out)


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_app_cli_exact_counts(tmp_path, nprocs):
    text = small_reads(seed=nprocs, n=400)
    fa = ">g1 multi-line\n" + "\n".join(small_reads(seed=99, n=20).split("\n")[1::4]) + "\n"
    plain = at_quality_reads(nprocs)         # plain 4-line FASTQ: split in byte ranges
    (tmp_path / "a.fq.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "b.fa").write_text(fa)
    (tmp_path / "c.fq").write_text(plain)
    want = ref_kmers(text, 21) + ref_kmers(fa, 21) + ref_kmers(plain, 21)
    r = run_app(["-m", "pybcl.apps.kmer", str(tmp_path / "a.fq.gz"), str(tmp_path / "b.fa"),
                 str(tmp_path / "c.fq"), "--round-kmers", "700",
                 "-k", "21", "--counts", str(tmp_path / "c.tsv"), "--histo",
                 str(tmp_path / "h.txt"), "--json", str(tmp_path / "r.json")], nprocs)
    assert r.returncode == 0, r.stderr
    got = {}
    for line in (tmp_path / "c.tsv").read_text().splitlines():
        km, c = line.split("\t")
        assert len(km) == 21
        code = _kernels.kmer_encode(km)
        assert code not in got
        got[code] = int(c)
    assert got == dict(want)
    hist = collections.Counter(want.values())
    assert (tmp_path / "h.txt").read_text() == "".join(
        f"{c} {hist[c]}\n" for c in sorted(hist))
    js = json.loads((tmp_path / "r.json").read_text())
    assert js["ranks"] == nprocs and js["kmers_total"] == sum(want.values())
    assert js["round_kmers"] == 700
    assert js["distinct"] == len(want) and js["kmers_per_s"] > 0
    assert {"setup", "count", "histogram"} <= set(js["seconds"])
    assert len(js["peak_rss_bytes_per_rank"]) == nprocs
    assert all(x > 0 for x in js["peak_rss_bytes_per_rank"])
    assert "top 10 k-mers" in r.stdout


@pytest.mark.serial_only
def test_app_cli_demo_and_errors(tmp_path):
    r = run_app(["-m", "pybcl.apps.kmer", "--demo", "--bloom", "--quiet"], 2)
    assert r.returncode == 0, r.stderr
    assert "top 10 k-mers" in r.stdout and "histogram head" in r.stdout
    r = run_app(["-m", "pybcl.apps.kmer", str(tmp_path / "missing.fq")], 1)
    assert r.returncode != 0 and "missing.fq" in r.stderr


# ---- the counting map -------------------------------------------------------------

def test_app_map_grows_from_a_tiny_first_size():
    """The map starts at 16 k-mers a rank and grows at the flush: no k-mer is
    lost and the top list is exact."""
    from pybcl.apps import kmer
    text = small_reads(seed=5)
    want = ref_kmers(text, 15)
    res = kmer.count_kmers([text.encode()], k=15, capacity=16, top=5)
    st = res["stats"]
    ok = gather_counts(res) == dict(want)
    ok = ok and st["map_buckets_first"] <= 2 * 16 * pybcl.nprocs() + 8 < st["map_buckets"]
    best = sorted(want.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    ok = ok and kmer.top_kmers(res, 5) == best
    assert all_ok(ok)


def test_app_keeps_the_map_open_to_query_later():
    """keep_map: the counts map comes back open, holding every k-mer's exact
    count (looked up from any rank), and the caller closes it."""
    from pybcl.apps import kmer
    text = small_reads(seed=7)
    want = ref_kmers(text, 15)
    res = kmer.count_kmers([text.encode()], k=15, keep_map=True)
    m = res["map"]
    probe = sorted(want)[pybcl.rank()::pybcl.nprocs()][:50]
    values, found = m.find_many(np.array(probe, dtype=np.uint64))
    ok = bool(found.all()) and values.tolist() == [want[km] for km in probe]
    ok &= len(m) == len(want)
    m.close()
    ok &= "map" not in kmer.count_kmers([text.encode()], k=15)
    assert all_ok(ok)


@pytest.mark.parametrize("bloom", [False, True])
def test_app_counts_in_rounds_when_the_input_outgrows_a_flush(monkeypatch, bloom):
    """A rank flushes whenever it has buffered FLUSH_KMERS k-mers (what
    waits in its memory stays bounded); the ranks' rounds differ in number
    of pieces and the counts stay exact."""
    from pybcl.apps import kmer
    monkeypatch.setattr(kmer, "FLUSH_KMERS", 500 + 300 * pybcl.rank())
    text = small_reads(seed=9)
    want = ref_kmers(text, 15)
    lines = text.splitlines(keepends=True)
    records = ["".join(lines[i:i + 4]) for i in range(0, len(lines), 4)]
    parts = [("".join(records[i::7])).encode() for i in range(7)]     # a piece each
    res = kmer.count_kmers(parts, k=15, capacity=16, bloom=bloom)
    kept = {km: c for km, c in want.items() if c >= 2} if bloom else dict(want)
    ok = gather_counts(res) == kept and res["stats"]["kmers_total"] == sum(want.values())
    ok = ok and all(int(res["histogram"][c]) == n for c, n in
                    collections.Counter(want.values()).items())
    assert all_ok(ok)


def test_app_sizes_the_map_from_the_first_rounds():
    """The map is sized from the counts of the first rounds (the model of
    pybcl.apps._kmer_size) and ends well filled: at most three changes of
    size after the first (a straight-line one, the model's, a refit), none
    larger than the last by more than the resize slack (the peak memory is
    the largest table), a load of at least half and at most the growth
    threshold, every count exact."""
    from pybcl.apps import kmer
    reads = kmer.demo_reads(coverage=20, seed=3)
    res = kmer.count_kmers([reads], k=31, round_kmers=3000 // pybcl.nprocs() + 1)
    st = res["stats"]
    want = {}
    for arr in kmer.BytesSource(reads).pieces(31, 0, 1):
        u, c = np.unique(arr, return_counts=True)
        for km, n in zip(u.tolist(), c.tolist()):
            want[km] = want.get(km, 0) + n
    ok = gather_counts(res) == want
    sizes = st["map_sizes"]
    ok = ok and len(sizes) <= 4 and max(sizes) <= (1 + kmer.RESIZE_SLACK) * sizes[-1]
    ok = ok and 0.5 <= st["map_load"] <= 0.85
    assert all_ok(ok), sizes


def test_model_of_distinct_kmers_fits_simulated_counts():
    """The sizing model, on the counts of a simulated genome's reads: from a
    fifth of them it predicts the distinct k-mers (plain) and the repeated
    ones (--bloom) of the whole within 10 %; it never predicts fewer than
    it has seen."""
    from pybcl.apps import _kmer_size, kmer
    reads = kmer.demo_reads(coverage=15, seed=4)
    allk = np.concatenate(list(kmer.BytesSource(reads).pieces(31, 0, 1)))
    T = len(allk)
    _, c = np.unique(allk, return_counts=True)
    part = allk[:T // 5]
    _, cp = np.unique(part, return_counts=True)
    D, F1, C = len(cp), int((cp == 1).sum()), int((cp >= 2).sum())
    d_end = _kmer_size.distinct_at_end(T, len(part), D, F1)
    c_end = _kmer_size.repeated_at_end(T, len(part), D, C)
    assert abs(d_end / len(c) - 1) < 0.1
    assert abs(c_end / int((c >= 2).sum()) - 1) < 0.1
    assert d_end >= D and c_end >= C
    assert _kmer_size.distinct_at_end(T, T, D, F1) == D
def test_model_of_distinct_kmers_fits_only_counts_it_reproduces():
    """A fit of the sizing model reproduces the distinct and seen-once counts
    it was given (the fitting function can change sign twice; a fit must be
    a root, not an end of the interval), and counts it cannot fit get None:
    the counts of E. coli 5x reads after their first 4.5 %, where the genome
    and the errors cannot yet be told apart, and simulated reads' prefixes."""
    import math
    from pybcl.apps import _kmer_size, kmer
    T, Tx, D, F1 = 17423646, 786432, 756175, 722875
    cases = [(Tx, D, F1)]
    for cov in (5, 15, 30):
        allk = np.concatenate(list(kmer.BytesSource(kmer.demo_reads(coverage=cov, seed=4))
                                   .pieces(31, 0, 1)))
        for frac in (25, 10, 5):
            _, cp = np.unique(allk[:len(allk) // frac], return_counts=True)
            cases.append((len(allk) // frac, len(cp), int((cp == 1).sum())))
    for tx, d, f1 in cases:
        fit = _kmer_size._fit(tx, d, f1)
        if fit is None:
            continue
        eps, G = fit
        u = (1 - eps) * tx / G
        assert abs(eps * tx + G * (1 - math.exp(-u)) - d) <= 1e-3 * d, (tx, d, f1, fit)
        assert abs(eps * tx + G * u * math.exp(-u) - f1) <= 1e-3 * f1, (tx, d, f1, fit)
    assert _kmer_size.distinct_at(T, Tx, D, F1) is None
    assert _kmer_size.distinct_at_end(T, Tx, D, F1) == min(D * T / Tx, D + T - Tx)


def test_progress_line_gives_the_share_done_and_the_time_left(monkeypatch, capsys):
    from pybcl.apps import kmer

    class EveryPiece(kmer.Progress):          # a line per piece, not every 2 s
        def __init__(self, enabled, expected=0.0):
            super().__init__(enabled, expected, every=0.0)
    monkeypatch.setattr(kmer, "Progress", EveryPiece)
    text = small_reads(seed=4)
    kmer.count_kmers([text.encode()] * 3, k=15, progress=True)
    lines = capsys.readouterr().err.splitlines()
    line = re.compile(r"kmer \[count\] +[0-9.]+ M k-mers read on rank 0, +[0-9.]+ M k-mers/s, "
                      r"[0-9]+% done, about [0-9]+ s left$")
    ok = len(lines) >= 1 and all(line.match(x) for x in lines) if pybcl.rank() == 0 else True
    assert all_ok(ok), lines
    assert kmer.duration(185) == "3 min 05 s" and kmer.duration(4800) == "1 h 20 min"


def test_kmer_kernels_take_their_parameters_by_name(tmp_path):
    """Every documented parameter of the k-mer kernels can be passed by the
    name their signature shows, with the positional call's result; a bad
    value is refused naming the parameter."""
    text = (TRICKY["fastq"] * 20).encode()
    kmers = _kernels.kmers_from_bytes(text, 5)
    assert _kernels.kmers_from_bytes(data=text, k=5, chunk=7).tolist() == kmers.tolist()
    keys, counts = np.unique(kmers, return_counts=True)
    assert _kernels.kmer_tsv(kmers=keys, counts=counts, k=5) == _kernels.kmer_tsv(keys, counts, 5)
    assert _kernels.kmer_decode(codes=keys, k=5).tolist() == _kernels.kmer_decode(keys, 5).tolist()
    assert _kernels.kmer_encode(kmer="ACGTA") == _kernels.kmer_encode("ACGTA")
    regs = np.zeros(_kernels.HLL_REGISTERS, dtype=np.uint8)
    _kernels.hll_add(registers=regs, kmers=kmers)
    assert _kernels.hll_estimate(registers=regs) == _kernels.hll_estimate(regs) > 0
    path = tmp_path / "r.fq"
    path.write_bytes(text)
    assert (_kernels.seq_resync(path=str(path), size=len(text), offset=5, fmt="fastq")
            == _kernels.seq_resync(str(path), len(text), 5, "fastq"))
    assert _kernels.bgzf_blocks(path=str(path)) is None
    reads = _kernels.simulate_reads(genome=b"ACGTTGCA" * 8, n_reads=3, length=20, error_rate=0.1,
                                 seed=2)
    assert reads == _kernels.simulate_reads(b"ACGTTGCA" * 8, 3, 20, 0.1, 2)
    with pytest.raises(TypeError, match="kmer_tsv.*'count'"):
        _kernels.kmer_tsv(kmers=keys, count=counts, k=5)


@pytest.mark.parametrize("fmt", ["fastq", "fasta"])
@pytest.mark.parametrize("P", [2, 3, 5, 16])
def test_byte_ranges_tile_the_file(tmp_path, fmt, P):
    text = at_quality_reads(P) if fmt == "fastq" else random_text(random.Random(P), "fasta", 200)
    path = tmp_path / "x.txt"
    path.write_text(text)
    size = len(text)
    cuts = [_kernels.seq_resync(str(path), size, size * r // P, fmt) for r in range(P + 1)]
    assert cuts[0] == 0 and cuts[-1] == size and cuts == sorted(cuts)
    mark = ">" if fmt == "fasta" else "@"
    assert all(c == size or text[c] == mark and (c == 0 or text[c - 1] == "\n") for c in cuts)
    got = collections.Counter()
    for r in range(P):
        for arr in _kernels.KmerReader(str(path), 13, 0, 1, 100, start=cuts[r], end=cuts[r + 1]):
            got.update(arr.tolist())
    assert got == ref_kmers(text, 13)


def test_gzip_reader_is_strict(tmp_path):
    text = (TRICKY["fastq"] * 300).encode()
    gz = gzip.compress(text)
    two = tmp_path / "two.fq.gz"                         # two members: fine
    two.write_bytes(gz + gzip.compress(text))
    got = collections.Counter()
    for arr in _kernels.KmerReader(str(two), 5, chunk_bytes=1000):
        got.update(arr.tolist())
    want = ref_kmers(text.decode(), 5)
    assert got == want + want
    cases = {"trunc.fq.gz": (gz[:len(gz) // 2], "truncated"),
             "trail.fq.gz": (gz + b"garbage\n", "trailing garbage"),
             "trail1.fq.gz": (gz + b"\0", "trailing garbage"),
             "corrupt.fq.gz": (gz[:20] + bytes(b ^ 0x5A for b in gz[20:60]) + gz[60:],
                               "gzip")}
    for name, (data, words) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=words):
            for _ in _kernels.KmerReader(str(tmp_path / name), 5, chunk_bytes=4096):
                pass


BAD_CLI = [
    (["{d}/missing.fq"], 1, "missing.fq: no such file"),
    (["{d}"], 1, "is a directory"),
    (["{d}/binary.fq"], 1, "not FASTA or FASTQ"),
    (["{d}/bad.fq"], 1, "quality string longer"),
    (["{d}/trunc.fq.gz"], 1, "truncated gzip"),
    (["{d}/trail.fq.gz"], 1, "trailing garbage"),
    (["{d}/ok.fq", "--capacity", "0"], 2, "--capacity"),
    (["{d}/ok.fq", "--message-size", "0"], 2, "--message-size"),
    (["{d}/ok.fq", "--top", "-5"], 2, "--top"),
    (["{d}/ok.fq", "-k", "40"], 2, "-k"),
    (["{d}/ok.fq", "--json", "{d}/no/such/dir/r.json"], 1, "--json"),
    (["{d}/ok.fq", "--histo", "{d}"], 1, "--histo"),
]


@pytest.mark.serial_only
def test_app_cli_errors_one_line_from_rank_0(tmp_path):
    ok = small_reads(seed=3, n=200)
    (tmp_path / "ok.fq").write_text(ok)
    (tmp_path / "binary.fq").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "bad.fq").write_text("@r\nACGT\n+\nIIIIII\n")
    gz = gzip.compress(ok.encode())
    (tmp_path / "trunc.fq.gz").write_bytes(gz[:len(gz) // 2])
    (tmp_path / "trail.fq.gz").write_bytes(gz + b"trailing")
    failures = []
    for args, code, words in BAD_CLI:
        argv = [a.format(d=tmp_path) for a in args]
        r = run_app(["-m", "pybcl.apps.kmer", "--quiet", *argv], 2)
        lines = r.stderr.strip().splitlines()
        if not (r.returncode == code and len(lines) == 1 and
                lines[0].startswith("python -m pybcl.apps.kmer: error: ") and
                words in lines[0] and not r.stdout.strip()):
            failures.append((argv, r.returncode, r.stdout[-300:], r.stderr[-600:]))
    assert not failures, failures
    assert not (tmp_path / "no").exists()


@pytest.mark.serial_only
def test_app_cli_corrupt_record_mid_file_fails_on_every_rank(tmp_path):
    # the bad record lies in the last rank's byte range: found mid-run, after
    # the up-front checks; every rank must stop, rank 0 must say why
    good = at_quality_reads(1, n=3000)
    (tmp_path / "mid.fq").write_text(good + "@bad\nACGT\n+\nIIIIIIII\n" + good)
    r = run_app(["-m", "pybcl.apps.kmer", "--quiet", str(tmp_path / "mid.fq")], 2)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "error: " in lines[0], r.stderr


@pytest.mark.serial_only
def test_app_cli_bloom_reports_rss_and_saves_table(tmp_path):
    text = small_reads(seed=21, n=3000, err=0.05)
    (tmp_path / "r.fq").write_text(text)
    figs = {}
    for mode in ("plain", "bloom"):
        js = tmp_path / f"{mode}.json"
        r = run_app(["-m", "pybcl.apps.kmer", "--quiet", str(tmp_path / "r.fq"), "--json",
                     str(js)] + (["--bloom"] if mode == "bloom" else []), 2)
        assert r.returncode == 0, r.stderr
        figs[mode] = json.loads(js.read_text())
    want = ref_kmers(text, 31)
    assert figs["plain"]["distinct"] == len(want)
    assert figs["bloom"]["histogram"] == figs["plain"]["histogram"]       # exact
    assert figs["bloom"]["distinct_in_table"] < 0.7 * figs["plain"]["distinct_in_table"]
    assert len(figs["bloom"]["peak_rss_bytes_per_rank"]) == 2
