#!/bin/sh
# Build hm_apply_vs_floor.c against the C core and run it on one rank; prints
# its JSON object.  Usage: benchmarks/floor/run_apply_floor.sh [ARGS]
# (ARGS: see hm_apply_vs_floor.c).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MPICC=${MPICC:-mpicc.mpich}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
BIN=$(mktemp /tmp/hm_apply_vs_floor.XXXXXX)
trap 'rm -f "$BIN"' EXIT
$MPICC -O2 -Wall -I"$ROOT/csrc" -o "$BIN" "$HERE/hm_apply_vs_floor.c" \
    "$ROOT"/csrc/runtime/*.c "$ROOT"/csrc/comm/*.c "$ROOT"/csrc/serial/*.c \
    "$ROOT"/csrc/containers/*.c "$ROOT"/csrc/containers/hashmap/*.c -lm
$MPIEXEC -n 1 "$BIN" "$@"
