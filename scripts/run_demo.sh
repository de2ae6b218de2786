#!/usr/bin/env bash
# The main job: k-mer counting demo on 2 ranks.  Sets up the same environment
# as scripts/run_tests.sh (MPICH, .venv, pybcl), then counts the k-mers of
# reads simulated from the lambda phage genome the package ships, with a
# distributed pybcl HashMap, and prints the top k-mers and the histogram head.
# Extra arguments go to the app (e.g. --bloom, -k 21, --json out.json).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/setup_env.sh
echo "== mpiexec.mpich -n 2 python -m pybcl.apps.kmer --demo $*"
exec mpiexec.mpich -n "${PYBCL_DEMO_RANKS:-2}" python -m pybcl.apps.kmer --demo "$@"
