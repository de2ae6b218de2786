"""The k-mer benchmarks' input: reads simulated from the E. coli genome carried in
tests/data/ (see its README), by pybcl's own simulator (the one the k-mer
app's --demo uses: `pybcl.apps.kmer.demo_reads`, PCG32, deterministic: same
genome, coverage, length, error rate and seed, same bytes).

Files are cached under $TMPDIR/pybcl_bench, one per (coverage, seeds); several
seeds are concatenated (30x as 6 x 5x keeps each simulation's memory small).
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ECOLI = os.path.join(os.path.dirname(HERE), "tests", "data", "NC_008253.fna.gz")
LENGTH, ERROR_RATE = 100, 0.01


def ecoli_reads(coverage, seeds=(1,)):
    """Path of a FASTQ of simulated E. coli 536 reads (100 bp, 1 % substitutions)."""
    out_dir = os.path.join(tempfile.gettempdir(), "pybcl_bench")
    os.makedirs(out_dir, exist_ok=True)
    tag = "-".join(map(str, seeds))
    path = os.path.join(out_dir, f"ecoli_sim_C{coverage}_s{tag}.fq")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        # in a child: the caller (a benchmark driver that launches mpiexec)
        # never loads pybcl itself
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.dirname(HERE)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        subprocess.run([sys.executable, os.path.abspath(__file__), str(coverage), tmp]
                       + [str(s) for s in seeds], env=env, check=True)
        os.replace(tmp, path)
    return path


def _simulate(coverage, out, seeds):
    from pybcl.apps import kmer
    with open(out, "wb") as fh:
        for seed in seeds:
            fh.write(kmer.demo_reads(coverage=coverage, length=LENGTH,
                                     error_rate=ERROR_RATE, seed=seed, genome_path=ECOLI))


if __name__ == "__main__":
    _simulate(float(sys.argv[1]), sys.argv[2], [int(s) for s in sys.argv[3:]])
