#!/usr/bin/env bash
# Build pybcl with AddressSanitizer + UBSan in a scratch copy of this tree and
# run the MPI suite under it (shm, then rma), 2 ranks.  Leak checking is off:
# CPython itself does not free everything at exit.
#   bash scripts/run_sanitizers.sh            (after scripts/setup_env.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. .venv/bin/activate 2>/dev/null || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files -z | xargs -0 -I{} cp --parents {} "$work"
cd "$work"
PYBCL_SANITIZE=address,undefined python setup.py -q build_ext --inplace
export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH=$PWD
for transport in shm rma; do
    echo "== ASan+UBSan, 2 ranks, $transport"
    PYBCL_TRANSPORT=$transport timeout 1200 mpiexec.mpich -n 2 \
        python -m pytest -q --with-mpi -p no:cacheprovider tests
done
