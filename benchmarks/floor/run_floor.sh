#!/bin/sh
# Build and run the raw-MPI RMA floor (rma_floor.c) in four configurations and
# print ONE merged JSON object on stdout:
#   default           MPI_THREAD_MULTIPLE (as mpi4py), default window info
#   thread_single     --single
#   acc_ordering_none --acc-none (info accumulate_ordering=none)
#   async_progress    MPIR_CVAR_ASYNC_PROGRESS=1, MPI_THREAD_MULTIPLE
# Each configuration contains the target-idle (rank 1 in MPI_Barrier) and the
# target-busy (rank 1 computing outside MPI) tables plus the FAO/CAS atomicity test.
# Usage: benchmarks/floor/run_floor.sh [extra rma_floor args] > floor.json
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
MPICC=${MPICC:-mpicc.mpich}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
BIN=${BIN:-/tmp/rma_floor.$$}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$BIN"' EXIT
$MPICC -O2 -Wall -o "$BIN" "$HERE/rma_floor.c"
$MPIEXEC -n 2 "$BIN" "$@"                        > "$TMP/default.json"
$MPIEXEC -n 2 "$BIN" --single "$@"               > "$TMP/thread_single.json"
$MPIEXEC -n 2 "$BIN" --acc-none "$@"             > "$TMP/acc_ordering_none.json"
MPIR_CVAR_ASYNC_PROGRESS=1 $MPIEXEC -n 2 "$BIN" "$@" > "$TMP/async_progress.json"
python3 - "$TMP" <<'PY'
import json, os, sys
d = sys.argv[1]
out = {"benchmark": "rma_floor (raw MPI floor for pybcl rma transport)",
       "host_cores": os.cpu_count(), "configs": {}}
for name in ("default", "thread_single", "acc_ordering_none", "async_progress"):
    with open(os.path.join(d, name + ".json")) as f:
        out["configs"][name] = json.load(f)
print(json.dumps(out, indent=1))
PY
