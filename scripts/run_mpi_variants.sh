#!/usr/bin/env bash
# The suite against the other MPI libraries pybcl supports, each built in a
# venv of its own (the main passes of scripts/run_tests.sh use Debian's MPICH):
#   wheel    MPICH 5.x from PyPI's `mpich` wheel, pulled in by `pip install .`
#            alone on a machine where no system MPI is visible
#            (scripts/without_system_mpi.sh): the pip-only install route;
#   openmpi  Open MPI 4.1 (Debian's libopenmpi-dev), pybcl built with its
#            mpicc, mpi4py from its MPI-ABI-aware binary wheel told to use
#            Open MPI's ABI (MPI4PY_MPIABI=openmpi).
# Each runs the 1-rank pass (with the tests that launch their own jobs, through
# the variant's own mpiexec) and 2 ranks on shm and on rma
# (PYBCL_VARIANT_NPROCS="2 3": more rank counts).
#   bash scripts/run_mpi_variants.sh [wheel] [openmpi]     (default: both)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VENVS=${PYBCL_VARIANT_VENVS:-$ROOT/.variants}
LIMIT=${PYBCL_TEST_TIMEOUT:-900}
PY=${PYTHON:-python3}
# Rank counts of the multi-rank passes, each on shm and on rma.
NPROCS=${PYBCL_VARIANT_NPROCS:-2}
# Each variant names its own MPI; an MPICC from the caller (setup_env.sh
# exports mpicc.mpich) must not leak into the "no system MPI" route.
unset MPICC
# Which MPI the installed pybcl and mpi4py really load (run outside the tree).
SHOW_MPI='import pybcl, mpi4py.MPI as M; print("==", pybcl.__file__, M.Get_library_version().splitlines()[0])'

passes() {   # passes MPIEXEC [launcher args...]: the passes, from outside the tree
    local mpiexec=$1; shift
    export PYBCL_TEST_MPIEXEC=$mpiexec PYBCL_TEST_MPIEXEC_ARGS="$*"
    # From /tmp, so the installed pybcl is imported, not the checkout's sources.
    cd /tmp
    run python -m pytest -q -p no:cacheprovider --with-mpi "$ROOT/tests"
    local n
    for n in $NPROCS; do
        run "$mpiexec" "$@" -n "$n" python -m pytest -q -p no:cacheprovider --with-mpi \
            "$ROOT/tests"
        PYBCL_TRANSPORT=rma run "$mpiexec" "$@" -n "$n" python -m pytest -q \
            -p no:cacheprovider --with-mpi "$ROOT/tests"
    done
    cd "$ROOT"
}

run() {
    echo "== $*"
    local start=$SECONDS
    timeout --kill-after=30 "$LIMIT" "$@"
    echo "== passed in $((SECONDS - start)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}

fresh_venv() {
    rm -rf "$1"
    $PY -m venv "$1"
    "$1/bin/pip" install -q --upgrade pip
}

wheel() {
    echo; echo "== MPICH wheel route: pip install . with no system MPI"
    fresh_venv "$VENVS/wheel"
    bash scripts/without_system_mpi.sh bash "$0" wheel_inside
}

wheel_inside() {       # run by wheel(), where no system MPI is visible
    local venv=$VENVS/wheel
    # --no-cache-dir: a wheel of pybcl or mpi4py built against another MPI
    # must never be reused from pip's cache.
    "$venv/bin/pip" install -q --no-cache-dir ".[test]"
    export PATH=$venv/bin:$PATH
    (cd /tmp && python -c "$SHOW_MPI")
    passes "$venv/bin/mpiexec"
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
        passes mpiexec.openmpi --oversubscribe
    )
}

if [ "${1:-}" = wheel_inside ]; then
    wheel_inside
    exit
fi
for v in ${@:-wheel openmpi}; do
    case $v in
        wheel|openmpi) "$v" ;;
        *) echo "unknown variant '$v' (wheel, openmpi)" >&2; exit 2 ;;
    esac
done
echo; echo "== all MPI variants passed: ${*:-wheel openmpi}"
