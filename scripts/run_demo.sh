#!/usr/bin/env bash
# The main job: k-mer counting demo on 2 ranks.  Sets up what it needs (MPI,
# mpi4py, NumPy, pybcl: from wheels where no MPICH is installed, see
# scripts/setup_env.sh), then counts the k-mers of
# reads simulated from the lambda phage genome the package ships, with a
# distributed pybcl HashMap, and prints the top k-mers and the histogram head.
# Extra arguments go to the app (e.g. --bloom, -k 21, --json out.json).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYBCL_SETUP=demo . scripts/setup_env.sh
# the system's MPICH launcher, or the `mpich` wheel's (the venv's mpiexec)
if mpicc.mpich -show >/dev/null 2>&1; then MPIEXEC=mpiexec.mpich; else MPIEXEC=mpiexec; fi
echo "== $MPIEXEC -n ${PYBCL_DEMO_RANKS:-2} python -m pybcl.apps.kmer --demo $*"
exec "$MPIEXEC" -n "${PYBCL_DEMO_RANKS:-2}" python -m pybcl.apps.kmer --demo "$@"
