#!/usr/bin/env bash
# The suite against Open MPI, the other MPI library pybcl supports besides
# MPICH (the main passes of scripts/run_tests.sh use Debian's MPICH; the
# `mpich` wheel's pip-only route is the package pass, scripts/check_dist.sh):
# Open MPI 4.1 (Debian's libopenmpi-dev), pybcl built with its mpicc in a venv
# of its own, mpi4py from its MPI-ABI-aware binary wheel told to use Open
# MPI's ABI (MPI4PY_MPIABI=openmpi).  It gets the variant passes of
# scripts/test_sets.sh (in-job tests at 1 rank, the launcher's jobs, 2 ranks
# on shm and rma; PYBCL_VARIANT_NPROCS="2 3": more rank counts).
#   bash scripts/run_mpi_variants.sh [openmpi]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VENVS=${PYBCL_VARIANT_VENVS:-$ROOT/.variants}
LIMIT=${PYBCL_TEST_TIMEOUT:-900}
PY=${PYTHON:-python3}
# Rank counts of the multi-rank passes, each on shm and on rma.
export VARIANT_NPROCS=${PYBCL_VARIANT_NPROCS:-2}
# Each variant names its own MPI; an MPICC from the caller (setup_env.sh
# exports mpicc.mpich) must not leak into its build.
unset MPICC
. scripts/test_sets.sh      # run, variant_passes
# Which MPI the installed pybcl and mpi4py really load (run outside the tree).
SHOW_MPI='import pybcl, mpi4py.MPI as M; print("==", pybcl.__file__, M.Get_library_version().splitlines()[0])'

fresh_venv() {
    rm -rf "$1"
    $PY -m venv "$1"
    "$1/bin/pip" install -q --upgrade pip
}

openmpi() {
    echo; echo "== Open MPI (Debian)"
    # the compiler wrapper and the headers (another package, e.g. hpcc, may
    # have brought Open MPI's runtime and mpicc.openmpi without libopenmpi-dev)
    if ! command -v mpicc.openmpi >/dev/null || ! command -v mpiexec.openmpi >/dev/null \
            || ! dpkg -s libopenmpi-dev >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenmpi-dev openmpi-bin >/dev/null
    fi
    local venv=$VENVS/openmpi
    fresh_venv "$venv"
    "$venv/bin/pip" install -q --no-cache-dir "mpi4py>=4.1"
    MPICC=mpicc.openmpi "$venv/bin/pip" install -q --no-cache-dir ".[test]"
    (
        export PATH=$venv/bin:$PATH MPI4PY_MPIABI=openmpi
        # CI runs as root; 2 ranks may exceed the slots Open MPI counts.
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        (cd /tmp && python -c "$SHOW_MPI")
        # The whole suite, rma included: on Open MPI 4.0.0-4.0.4/4.1.0-4.1.4
        # (Debian 12: 4.1.4) `import pybcl` itself sets OMPI_MCA_osc=^rdma,
        # keeping out the osc/rdma whose 64-bit compare-and-swap crashes
        # (open-mpi/ompi#7027; docs/install.md).  The jobs the tests launch
        # themselves use mpiexec.openmpi too (tests/launch.py knows how Open
        # MPI's mpirun reports a job); --oversubscribe: 2 cores, up to 4 ranks.
        variant_passes "$ROOT" mpiexec.openmpi --oversubscribe
    )
}

for v in ${@:-openmpi}; do
    case $v in
        openmpi) "$v" ;;
        *) echo "unknown variant '$v' (openmpi)" >&2; exit 2 ;;
    esac
done
echo; echo "== all MPI variants passed: ${*:-openmpi}"
