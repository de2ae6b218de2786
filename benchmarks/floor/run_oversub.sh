#!/bin/sh
# The relax policies of the request-poll wait loop (oversub.c) compared: the
# experiment behind pybcl's patient waits (docs/progress.md).  Earlier sweeps
# (wait modes, K, MPICH/UCX knobs) and their logs are in git history (fa78eaa).
# Usage: benchmarks/floor/run_oversub.sh > results/oversub.jsonl
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=/tmp/oversub_f.$$
trap 'rm -f "$BIN"' EXIT
${MPICC:-mpicc.mpich} -O2 -Wall -o "$BIN" "$HERE/oversub.c" || exit 1
R="timeout 60 ${MPIEXEC:-mpiexec.mpich}"
tag() { sed "s/^{/{\"rep\":$1,\"loadavg1\":$(cut -d' ' -f1 /proc/loadavg),\"policy\":\"$2\",/"; }
for rep in 1 2 3; do
  for np in 2 4; do
    for pol in "yield:4:0" "sleep:4:0" "hybrid:32:64" "hybrid:4:16"; do
      rx=${pol%%:*}; rest=${pol#*:}; k=${rest%%:*}; y=${rest#*:}
      $R -n $np "$BIN" --test ops --secs 0.4 --wait req --K $k --Y $y --relax $rx --active all --idle ibarrier_yield | tag $rep $pol
      $R -n $np "$BIN" --test spin --hops 300 --wait req --K $k --Y $y --relax $rx --idle ibarrier_yield | tag $rep $pol
    done
  done
done
