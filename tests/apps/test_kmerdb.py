"""Count once, query later: kmer --save DB, then the kmerdb app (query,
histo, dump, merge) at other rank counts and without mpiexec, and contigs
--counts DB, checked against an independent count of the reads."""
import collections
import os
import subprocess
import sys

import numpy as np
import pytest

import pybcl
from launch import job_env, quiet_args, run_python
from test_contigs import canon
from test_kmer import ref_kmers, small_reads

K = 21
ACGT = "ACGT"


def decode(code, k=K):
    return "".join(ACGT[(code >> (2 * (k - 1 - i))) & 3] for i in range(k))


def app(args, nprocs):
    """pybcl.apps.ARGS on nprocs ranks; nprocs 0: a plain python, no mpiexec."""
    if nprocs:
        return run_python(["-m", "pybcl.apps." + args[0], *args[1:]], nprocs, timeout=300,
                          extra=quiet_args())
    env = {k: v for k, v in job_env().items()
           if not k.startswith(("PMI_", "PMIX_", "OMPI_", "HYDRA_", "MPIR_"))}
    return subprocess.run([sys.executable, "-m", "pybcl.apps." + args[0], *args[1:]],
                          env=env, capture_output=True, text=True, timeout=300)


def ok(r):
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def unitig_set(path):
    return {canon(line.strip()) for line in open(path) if not line.startswith(">")}


@pytest.mark.serial_only
def test_count_once_then_query_histo_dump_merge_and_assemble(tmp_path):
    reads = small_reads(seed=11, n=600)
    (tmp_path / "r.fq").write_text(reads)
    want = ref_kmers(reads, K)
    db, bloom_db = str(tmp_path / "r.db"), str(tmp_path / "rb.db")
    ok(app(["kmer", str(tmp_path / "r.fq"), "-k", str(K), "--save", db, "--quiet"], 2))
    ok(app(["kmer", str(tmp_path / "r.fq"), "-k", str(K), "--bloom", "--save", bloom_db,
            "--histo", str(tmp_path / "rb.histo"), "--quiet"], 2))
    info = pybcl.io.info(db)
    assert info["meta"]["k"] == K and info["meta"]["canonical"] and not info["meta"]["bloom"]

    # dump: ascending k-mer order, the same bytes at any rank count
    dump = "".join(f"{decode(c)}\t{n}\n" for c, n in sorted(want.items()))
    ok(app(["kmerdb", "dump", db, "-o", str(tmp_path / "d0.tsv")], 0))
    ok(app(["kmerdb", "dump", db, "-o", str(tmp_path / "d3.tsv")], 3))
    assert (tmp_path / "d0.tsv").read_text() == dump == (tmp_path / "d3.tsv").read_text()
    two = ok(app(["kmerdb", "dump", bloom_db, "--min-count", "2"], 0))
    assert two == "".join(f"{decode(c)}\t{n}\n" for c, n in sorted(want.items()) if n >= 2)

    # histo: Jellyfish's format; with --bloom the count-1 line from the k-mers read
    hist = collections.Counter(want.values())
    histo = "".join(f"{c} {hist[c]}\n" for c in sorted(hist))
    assert ok(app(["kmerdb", "histo", db], 2)) == histo
    assert ok(app(["kmerdb", "histo", bloom_db], 0)) == histo == \
        (tmp_path / "rb.histo").read_text()

    # query: as typed, canonical, 0 when absent, from arguments and a file
    some = sorted(want)[:5]
    asked = [decode(some[0]), decode(some[1]).lower(), "A" * K] + \
            [decode(c)[::-1].translate(str.maketrans(ACGT, "TGCA")) for c in some[2:]]
    (tmp_path / "q.txt").write_text("\n".join(asked[3:]) + "\n")
    got = ok(app(["kmerdb", "query", db, *asked[:3], "--file", str(tmp_path / "q.txt")], 3))
    counts = [want[some[0]], want[some[1]], want.get(0, 0)] + [want[c] for c in some[2:]]
    assert got == "".join(f"{s}\t{n}\n" for s, n in zip(asked, counts))

    # merge: the union, counts summed (a database with itself: doubled)
    ok(app(["kmerdb", "merge", db, db, "-o", str(tmp_path / "m.db")], 2))
    keys, values = pybcl.io.read(str(tmp_path / "m.db"))
    assert dict(zip(keys.tolist(), values.tolist())) == {c: 2 * n for c, n in want.items()}

    # contigs from the saved counts = contigs from the reads
    ok(app(["contigs", str(tmp_path / "r.fq"), "-k", str(K), "-o", str(tmp_path / "u.fa"),
            "--quiet"], 2))
    ok(app(["contigs", "--counts", db, "-o", str(tmp_path / "uc.fa"), "--quiet"], 3))
    assert unitig_set(tmp_path / "u.fa") == unitig_set(tmp_path / "uc.fa") != set()


@pytest.mark.serial_only
def test_kmerdb_errors_are_one_line(tmp_path):
    reads = small_reads(seed=3, n=50)
    (tmp_path / "r.fq").write_text(reads)
    db = str(tmp_path / "r.db")
    ok(app(["kmer", str(tmp_path / "r.fq"), "-k", "15", "--save", db, "--quiet"], 1))
    a = pybcl.DArray(4)
    a.save(str(tmp_path / "a.pybcl"))
    other = str(tmp_path / "o.db")
    ok(app(["kmer", str(tmp_path / "r.fq"), "-k", "17", "--save", other, "--quiet"], 1))
    cases = [
        (["query", db, "ACGT"], "'ACGT': 4 bases, the database's k is 15"),
        (["query", db, "ACGTACGTACGTNNA"], "only A, C, G and T"),
        (["histo", str(tmp_path / "a.pybcl")], "not a k-mer count database"),
        (["dump", str(tmp_path / "missing.db")], "missing.db: no such file"),
        (["merge", db, other, "-o", str(tmp_path / "m.db")], "different k"),
    ]
    failures = []
    for args, words in cases:
        r = app(["kmerdb", *args], 2)
        lines = [line for line in r.stderr.splitlines() if "error:" in line]
        if r.returncode != 1 or len(lines) != 1 or words not in lines[0] or r.stdout:
            failures.append((args, r.returncode, r.stdout, r.stderr[-400:]))
    assert not failures, failures
    assert not os.path.exists(tmp_path / "m.db")
    r = app(["contigs", "--counts", db, "--demo"], 1)
    assert r.returncode == 2 and "one of them" in r.stderr
    np.testing.assert_equal(len(pybcl.io.read(db)[0]), len(ref_kmers(reads, 15)))
