#!/usr/bin/env bash
# Set up everything pybcl needs on a fresh Debian/Ubuntu machine, idempotently:
# MPICH (apt), a venv at .venv, mpi4py built against MPICH, and pybcl itself
# (editable, with the test extras).  Sourced by the README's two commands.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# tabix: htslib's bgzip, so tests/apps/test_kmer_bgzf.py checks the app against
# real BGZF output (not only the BGZF the tests write themselves).
# bcalm: BCALM 2, so tests/apps/test_contigs.py checks the contig app's unitigs
# against it (and benchmarks/bench_contigs.py times it).
if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null \
        || [ ! -f /usr/include/zlib.h ] || ! command -v bgzip >/dev/null \
        || ! command -v bcalm >/dev/null; then
    echo "== installing MPICH, zlib, bgzip and bcalm (apt-get)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mpich libmpich-dev zlib1g-dev \
        tabix bcalm >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    $PY -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
export MPICC=mpicc.mpich
if ! python -c "import mpi4py.MPI as M, sys; sys.exit('MPICH' not in M.Get_library_version())" 2>/dev/null; then
    echo "== building mpi4py against MPICH"
    pip install -q --upgrade pip
    pip install -q --no-binary=mpi4py --force-reinstall --no-deps "mpi4py>=3.1"
fi
# pyproject.toml's SPDX `license = "..."` needs setuptools >= 77, also for
# in-place builds (`python setup.py build_ext --inplace`) in this venv
python -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' \
    2>/dev/null || pip install -q "setuptools>=77"
# the distribution was called `pybcl` before it became pybcl-mpi: one copy only
if pip show pybcl >/dev/null 2>&1; then pip uninstall -q -y pybcl; fi
echo "== installing pybcl (editable) with the test and notebook extras"
pip install -q -e ".[test,notebooks]"
