#!/usr/bin/env bash
# The whole test suite: one rank (plain python, no mpiexec), then 2 and 4
# ranks on the default transport, then 2 ranks on the rma transport.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup_env.sh
MPIEXEC=mpiexec.mpich
LIMIT=${PYBCL_TEST_TIMEOUT:-900}     # seconds per pass: a hang fails, it never blocks CI

run() {
    echo
    echo "== $*"
    local start=$SECONDS
    timeout --kill-after=30 "$LIMIT" "$@"
    echo "== passed in $((SECONDS - start)) s"
}

run python -m pytest -q --with-mpi tests
run $MPIEXEC -n 2 python -m pytest -q --with-mpi tests
run $MPIEXEC -n 4 python -m pytest -q --with-mpi tests
PYBCL_TRANSPORT=rma run $MPIEXEC -n 2 python -m pytest -q --with-mpi tests
echo
echo "== all test passes succeeded"
bash scripts/run_multihost.sh
