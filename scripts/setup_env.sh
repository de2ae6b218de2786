#!/usr/bin/env bash
# Set up everything pybcl needs on a fresh Debian/Ubuntu machine, idempotently:
# MPICH (apt), a venv at .venv, mpi4py built against MPICH, and pybcl itself
# (editable, with the test extras).  Sourced by the README's two commands.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
PY=${PYTHON:-python3}

# The demo (scripts/run_demo.sh) needs MPI, mpi4py, NumPy and pybcl only.  On
# a machine without MPICH it takes them from wheels -- PyPI's `mpich` and
# mpi4py's binary wheel, which finds that wheel's libmpi: one MPI, no apt-get,
# no mpi4py build -- and builds pybcl in place against the wheel's mpicc, in
# parallel.  With a system MPICH it goes on as for the tests (below), so a
# machine that has one keeps using it.
if [ "${PYBCL_SETUP:-test}" = demo ] && ! mpicc.mpich -show >/dev/null 2>&1; then
    [ -x .venv/bin/python ] || { echo "== creating .venv"; $PY -m venv .venv; }
    # shellcheck disable=SC1091
    . .venv/bin/activate
    if ! python -c "import mpi4py.MPI, numpy, setuptools" 2>/dev/null; then
        echo "== installing MPICH, mpi4py and NumPy (wheels)"
        pip install -q "mpich>=4" "mpi4py>=4.1" numpy "setuptools>=77" wheel
    fi
    echo "== building pybcl in place"
    python setup.py -q build_ext --inplace -j "$(nproc)" >/dev/null
    return 0 2>/dev/null || exit 0
fi
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

if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    $PY -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
export MPICC=mpicc.mpich
# A demo set-up before MPICH was installed used the `mpich` wheel: the tests
# run against the system's MPICH, so mpi4py and pybcl are built again for it.
if pip show mpich >/dev/null 2>&1; then
    pip uninstall -q -y mpich mpi4py
    rm -f pybcl/_core.*.so
fi
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
