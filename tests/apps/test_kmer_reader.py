"""The public k-mer reader: `pybcl.apps.kmer.read_kmers` and `decode`.

Every rank reads its share of the same file; together the shares must be
exactly the file's k-mer occurrences (the C parser on the whole text, which
tests/apps/test_kmer.py checks against a pure-Python reference), whatever the
rank count and however the file is split (byte ranges, BGZF blocks, or an
ordinary gzip stream dealt in blocks).
"""
import collections
import gzip
import random

import numpy as np
import pytest

import pybcl
from bgzf import bgzf
from conftest import all_ok
from pybcl.apps import _kernels
from pybcl.apps.kmer import KmerInputError, decode, read_kmers

BASES = "ACGT"


def reads_fastq(n_reads, length=100, seed=7):
    rng = random.Random(seed)
    genome = "".join(rng.choice(BASES) for _ in range(20000))
    out = []
    for i in range(n_reads):
        p = rng.randrange(len(genome) - length)
        seq = genome[p:p + length]
        if i % 17 == 0:
            seq = seq[:40] + "N" + seq[41:]         # a base outside ACGT
        out.append(f"@read{i}\n{seq}\n+\n{'I' * length}\n")
    return "".join(out).encode()


def many_record_fasta(n_records, seed=11):
    rng = random.Random(seed)
    recs = []
    for i in range(n_records):
        seq = "".join(rng.choice("ACGTacgt") for _ in range(rng.randrange(20, 300)))
        lines = [seq[j:j + 60] for j in range(0, len(seq), 60)]
        recs.append(f">rec{i}\n" + "\n".join(lines) + "\n")
    return "".join(recs).encode()


def gathered(path, k):
    """Every rank's share, concatenated (collective)."""
    mine = [a.copy() for a in read_kmers(path, k)]
    for a in mine:
        assert a.dtype == np.uint64 and a.ndim == 1
    mine_all = np.concatenate(mine) if mine else np.zeros(0, np.uint64)
    return np.concatenate(pybcl.comm().allgather(mine_all)), len(mine_all)


FORMS = {
    "fastq": lambda text: text,
    "fasta": lambda text: text,
    "gzip": gzip.compress,
    "bgzf": lambda text: bgzf(text, sizes=(4096,)),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("k", [15, 31])
def test_rank_shares_are_exactly_the_files_kmers(tmp_path, form, k):
    text = many_record_fasta(400) if form == "fasta" else reads_fastq(3000)
    path = tmp_path / f"reads.{form}"
    path.write_bytes(FORMS[form](text))
    everything, mine = gathered(path, k)
    want = collections.Counter(_kernels.kmers_from_bytes(text, k).tolist())
    assert all_ok(collections.Counter(everything.tolist()) == want)
    # a share each, not the whole file on every rank (an ordinary gzip stream
    # is dealt in 1 MiB blocks of its text: this one is a single block)
    splits = form != "gzip" and pybcl.nprocs() > 1
    assert all_ok(not splits or mine < sum(want.values()))


def test_read_kmers_accepts_a_str_path_and_works_alone(tmp_path):
    text = reads_fastq(50)
    path = tmp_path / "r.fq"
    path.write_bytes(text)
    everything, _ = gathered(str(path), 21)
    assert all_ok(sorted(everything.tolist()) == sorted(_kernels.kmers_from_bytes(text, 21).tolist()))


def encode(s):
    """2-bit code of a k-mer as written (not canonical), first base high."""
    code = 0
    for c in s:
        code = code * 4 + BASES.index(c)
    return code


@pytest.mark.parametrize("k", [1, 5, 31, 32])
def test_decode_inverts_the_encoding(k):
    rng = random.Random(k)
    for _ in range(50):
        s = "".join(rng.choice(BASES) for _ in range(k))
        assert decode(encode(s), k) == s
        assert decode(np.uint64(encode(s)), k) == s
    assert decode(np.uint64(0), k) == "A" * k
    assert decode(4 ** k - 1, k) == "T" * k


def test_decoded_shares_are_canonical(tmp_path):
    path = tmp_path / "r.fq"
    path.write_bytes(reads_fastq(200))
    comp = str.maketrans("ACGT", "TGCA")
    for arr in read_kmers(path, 11):
        for code in arr[:200].tolist():
            s = decode(code, 11)
            assert s <= s.translate(comp)[::-1]


@pytest.mark.parametrize("k", [0, 33, -1, True, 31.0, "31"])
def test_read_kmers_names_a_bad_k(tmp_path, k):
    path = tmp_path / "r.fq"
    path.write_bytes(reads_fastq(5))
    with pytest.raises((ValueError, TypeError), match="k must be"):
        read_kmers(path, k)


def test_read_kmers_names_a_missing_or_non_sequence_file(tmp_path):
    with pytest.raises(KmerInputError, match="nope.fq: no such file"):
        read_kmers(tmp_path / "nope.fq", 31)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello, not a sequence file\n")
    with pytest.raises(KmerInputError, match="bad.txt: not FASTA or FASTQ"):
        read_kmers(bad, 31)
    with pytest.raises(TypeError, match="path"):
        read_kmers(12345, 31)


def test_read_kmers_reports_a_truncated_gzip_by_name(tmp_path):
    data = gzip.compress(reads_fastq(3000))
    path = tmp_path / "cut.fq.gz"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(KmerInputError, match="cut.fq.gz"):
        for _ in read_kmers(path, 31):
            pass


@pytest.mark.parametrize("code,k,err", [(4 ** 5, 5, ValueError), (-1, 5, ValueError),
                                        (1, 0, ValueError), (1.5, 5, TypeError),
                                        ("ACG", 3, TypeError)])
def test_decode_names_bad_arguments(code, k, err):
    with pytest.raises(err, match="decode"):
        decode(code, k)
