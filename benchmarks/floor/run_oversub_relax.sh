#!/bin/sh
# sched_yield() vs nanosleep() as the "relax" step, -n 4 on 2 cores, repeated.
# Each JSON line is prefixed with the 1-min load average (the box may be shared).
# Usage: benchmarks/floor/run_oversub_relax.sh > results/oversub_relax.jsonl
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=/tmp/oversub_r.$$
trap 'rm -f "$BIN"' EXIT
${MPICC:-mpicc.mpich} -O2 -Wall -o "$BIN" "$HERE/oversub.c" || exit 1
R="timeout 60 ${MPIEXEC:-mpiexec.mpich}"
tag() { sed "s/^{/{\"rep\":$1,\"loadavg1\":$(cut -d' ' -f1 /proc/loadavg),/"; }
for rep in 1 2 3; do
  for np in 4 2; do
    $R -n $np "$BIN" --test ops --secs 0.5 --wait flush --active all --idle ibarrier_yield --relax sleep | tag $rep
    for rx in yield sleep; do
      for k in 0 4 32; do
        $R -n $np "$BIN" --test ops --secs 0.5 --wait req --K $k --active all --idle ibarrier_yield --relax $rx | tag $rep
      done
      $R -n $np "$BIN" --test ops --secs 0.5 --wait req --K 4 --active half --idle ibarrier_yield --relax $rx | tag $rep
      $R -n $np "$BIN" --test ops --secs 0.5 --wait req --K 4 --active half --idle barrier --relax $rx | tag $rep
      $R -n $np "$BIN" --test spin --hops 400 --wait req --K 4 --idle ibarrier_yield --relax $rx | tag $rep
      $R -n $np "$BIN" --test barrier --iters 300 --idle ibarrier_yield --relax $rx | tag $rep
    done
    $R -n $np "$BIN" --test ops --op put --secs 0.5 --wait req --K 4 --active all --idle ibarrier_yield --relax sleep | tag $rep
  done
done
