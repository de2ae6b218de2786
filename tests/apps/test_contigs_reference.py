"""The contig tests' serial reference (test_contigs.py: unitigs grown from
every k-mer) against BCALM 2 on the branching cases.  Plain Python and one
BCALM process, nothing shared between ranks: a local test
(scripts/test_sets.sh), run in the one-rank passes."""
import shutil
import subprocess

import pytest

from test_contigs import branching_cases, fasta, kmer_sets, reference_unitigs, solid_kmers


@pytest.mark.skipif(shutil.which("bcalm") is None, reason="BCALM 2 (Debian package bcalm) "
                    "not installed")
@pytest.mark.parametrize("k", [11, 21])
def test_serial_reference_agrees_with_bcalm(tmp_path, k):
    for case, seqs_in in sorted(branching_cases(k).items()):
        (tmp_path / "in.fa").write_bytes(fasta(seqs_in))
        subprocess.run(["bcalm", "-in", "in.fa", "-kmer-size", str(k), "-abundance-min",
                        "1", "-nb-cores", "1", "-out", "o", "-verbose", "0"],
                       check=True, capture_output=True, cwd=tmp_path, timeout=60)
        lines = (tmp_path / "o.unitigs.fa").read_text().splitlines()
        got = kmer_sets([l for l in lines if l and not l.startswith(">")], k)
        assert got == reference_unitigs(solid_kmers(seqs_in, k, 1), k), case
