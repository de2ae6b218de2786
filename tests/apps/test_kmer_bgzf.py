"""k-mer counting on BGZF input: ranks split the compressed file by blocks.

Local checks (the block map, and every way of cutting a file into P ranges
tiling its records) run on each rank alone; the app is checked in-process on
whatever communicator pytest runs on (so at every -n of the suite), and by
launching `python -m pybcl.apps.kmer` on real reads at 2 and 3 ranks.
"""
import collections
import gzip
import os
import random
import shutil
import subprocess

import numpy as np
import pytest

import pybcl
from bgzf import BGZF_EOF, bgzf, bgzf_block
from conftest import all_ok
from launch import ROOT
from pybcl.apps import _kernels
from test_kmer import at_quality_reads, gather_counts, random_text, ref_kmers, run_app

READS = os.path.join(ROOT, "tests", "data", "reads_1.fq.gz")       # tests/data/README.md
LAMBDA_READS = os.path.join(ROOT, "pybcl", "data", "lambda_virus.fa.gz")

# block data sizes: large; smaller than a record (records span many blocks);
# with empty blocks between
SIZES = {"big": (65280,), "tiny": (7,), "empty_between": (13, 0, 1, 0, 50, 0, 0, 3)}


def test_bgzf_map_is_walked_header_to_header(tmp_path):
    text = at_quality_reads(5, n=200).encode()
    data = bgzf(text, sizes=(100, 0, 37))
    p = tmp_path / "x.fq.bgz"
    p.write_bytes(data)
    coff, uoff = _kernels.bgzf_blocks(str(p))
    assert coff[0] == 0 and coff[-1] == len(data) and np.all(np.diff(coff) > 0)
    assert uoff[0] == 0 and uoff[-1] == len(text)
    sizes = np.diff(uoff).tolist()
    assert sizes[:3] == [100, 0, 37] and sizes[-1] == 0          # the EOF block
    assert gzip.decompress(data) == text
    for name, blob in {"plain.fq": text, "plain.fq.gz": gzip.compress(text),
                       "mixed.fq.gz": data[:-len(BGZF_EOF)] + gzip.compress(text),
                       "empty.fq": b""}.items():
        (tmp_path / name).write_bytes(blob)
        assert _kernels.bgzf_blocks(str(tmp_path / name)) is None, name
    bad = {"cut_block.bgz": (data[:len(data) - 40], "truncated"),
           "cut_header.bgz": (data + bgzf_block(b"ACGT")[:9], "truncated"),
           "garbage.bgz": (data + b"garbage\n", "trailing garbage"),
           "zero.bgz": (data + b"\0", "trailing garbage")}
    for name, (blob, words) in bad.items():
        (tmp_path / name).write_bytes(blob)
        with pytest.raises(ValueError, match=words):
            _kernels.bgzf_blocks(str(tmp_path / name))


@pytest.mark.parametrize("fmt", ["fastq", "fasta"])
@pytest.mark.parametrize("sizes", sorted(SIZES))
def test_bgzf_ranges_tile_the_records(tmp_path, fmt, sizes):
    from pybcl.apps import kmer
    rng = random.Random(f"{fmt}{sizes}")
    text = at_quality_reads(3, n=300) if fmt == "fastq" else random_text(rng, "fasta", 200)
    p = tmp_path / "x.bgz"
    p.write_bytes(bgzf(text.encode(), SIZES[sizes]))
    src = kmer.FileSource(str(p))
    assert src.splittable and src.mode.startswith("BGZF")
    want = ref_kmers(text, 13)
    nblocks = len(src.blocks[0]) - 1
    for P in (1, 2, 3, 5, 16, nblocks + 3):         # the last: more ranks than blocks
        got = collections.Counter()
        for r in range(P):
            for arr in src.pieces(13, r, P):
                got.update(arr.tolist())
        assert got == want, (P, nblocks)


def test_bgzf_one_block_many_ranks(tmp_path):
    from pybcl.apps import kmer
    text = at_quality_reads(8, n=50)
    p = tmp_path / "one.bgz"
    p.write_bytes(bgzf(text.encode(), eof=False))
    src = kmer.FileSource(str(p))
    assert len(src.blocks[0]) == 2                  # one block, then the end
    shares = [sum(len(a) for a in src.pieces(9, r, 4)) for r in range(4)]
    assert shares[1:] == [0, 0, 0] and shares[0] == sum(ref_kmers(text, 9).values())


def _same_file_everywhere(tmp_path, name, blob):
    """Each rank writes the same bytes to its own path (pytest's tmp_path is
    per process)."""
    p = tmp_path / name
    p.write_bytes(blob)
    return str(p)


@pytest.mark.parametrize("sizes", ["big", "tiny", "empty_between"])
def test_app_bgzf_counts_equal_plain_in_process(tmp_path, sizes):
    from pybcl.apps import kmer
    text = at_quality_reads(13, n=400 if sizes != "tiny" else 120).encode()
    plain = _same_file_everywhere(tmp_path, "r.fq", text)
    bgz = _same_file_everywhere(tmp_path, "r.fq.bgz", bgzf(text, SIZES[sizes]))
    a = kmer.count_kmers([plain], k=17)
    b = kmer.count_kmers([bgz], k=17)
    ok = gather_counts(a) == gather_counts(b) == dict(ref_kmers(text.decode(), 17))
    ok = ok and np.array_equal(a["histogram"], b["histogram"])
    ok = ok and b["stats"]["reading"] == ["BGZF blocks, records resynced"]
    assert all_ok(ok)


@pytest.mark.parametrize("damage", ["corrupt_block", "truncated"])
def test_app_bad_bgzf_fails_on_every_rank(tmp_path, damage):
    from pybcl.apps import kmer
    text = at_quality_reads(17, n=3000).encode()
    data = bytearray(bgzf(text, (4000,)))
    coff, _ = _kernels.bgzf_blocks(str(_same_file_everywhere(tmp_path, "ok.bgz", bytes(data))))
    if damage == "corrupt_block":          # deflate data of a block in the last quarter
        j = int(coff[3 * (len(coff) - 1) // 4])
        data[j + 30:j + 60] = bytes(x ^ 0x5A for x in data[j + 30:j + 60])
    else:
        del data[len(data) - 100:]
    path = _same_file_everywhere(tmp_path, "bad.bgz", bytes(data))
    try:
        kmer.count_kmers([path], k=17)
        msg = None
    except kmer.KmerInputError as e:
        msg = str(e)
    words = "truncated" if damage == "truncated" else "gzip"
    assert all_ok(msg is not None and words in msg and "bad.bgz" in msg)
    pybcl.barrier()


def _histo_counts(tmp_path, path, nprocs, tag):
    h, c = tmp_path / f"{tag}.histo", tmp_path / f"{tag}.tsv"
    r = run_app(["-m", "pybcl.apps.kmer", "--quiet", path, "-k", "25", "--histo", str(h),
                 "--counts", str(c)], nprocs)
    assert r.returncode == 0, r.stderr
    return h.read_bytes(), c.read_bytes()


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs", [2, 3])
def test_app_cli_bgzf_real_reads_identical(tmp_path, nprocs):
    """Real reads (bowtie2's lambda example, tests/data): histogram and
    --counts byte-identical for plain, gzip, BGZF."""
    with gzip.open(READS, "rb") as fh:
        text = fh.read()
    paths = {"plain": tmp_path / "r.fq", "gz": tmp_path / "r.fq.gz",
             "bgzf": tmp_path / "r.fq.bgz"}
    paths["plain"].write_bytes(text)
    paths["gz"].write_bytes(gzip.compress(text, 1))
    paths["bgzf"].write_bytes(bgzf(text, level=1))
    out = {k: _histo_counts(tmp_path, str(p), nprocs, k) for k, p in paths.items()}
    assert out["plain"] == out["gz"] == out["bgzf"]


@pytest.mark.skipif(shutil.which("bgzip") is None, reason="htslib's bgzip not installed")
def test_bgzf_written_by_htslib_bgzip(tmp_path):
    """The map and the ranges on a file written by bgzip itself."""
    from pybcl.apps import kmer
    text = at_quality_reads(21, n=3000)
    p = tmp_path / "h.fq"
    p.write_text(text)
    with open(tmp_path / "h.fq.gz", "wb") as fh:
        subprocess.run(["bgzip", "-c", str(p)], stdout=fh, check=True)
    src = kmer.FileSource(str(tmp_path / "h.fq.gz"))
    assert src.blocks is not None and len(src.blocks[0]) > 2
    got = collections.Counter()
    for r in range(3):
        for arr in src.pieces(15, r, 3):
            got.update(arr.tolist())
    assert got == ref_kmers(text, 15)
