#!/bin/sh
# Focused, repeated K sweep at -n 4 (and -n 2) with yielding idle ranks.
# JSON lines on stdout.  Usage: benchmarks/floor/run_oversub_k.sh > results/oversub_k.jsonl
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=/tmp/oversub_k.$$
trap 'rm -f "$BIN"' EXIT
${MPICC:-mpicc.mpich} -O2 -Wall -o "$BIN" "$HERE/oversub.c" || exit 1
for rep in 1 2 3; do
  for np in 2 4; do
    for k in 0 1 4 10 32 100; do
      for act in all half; do
        timeout 60 ${MPIEXEC:-mpiexec.mpich} -n $np "$BIN" --test ops --secs 0.5 --wait req --K $k --active $act --idle ibarrier_yield | sed "s/^{/{\"rep\":$rep,/"
      done
    done
    for op in fao put; do
      timeout 60 ${MPIEXEC:-mpiexec.mpich} -n $np "$BIN" --test ops --op $op --secs 0.5 --wait flush --active all --idle ibarrier_yield | sed "s/^{/{\"rep\":$rep,/"
    done
    timeout 60 ${MPIEXEC:-mpiexec.mpich} -n $np "$BIN" --test ops --op put --secs 0.5 --wait req --K 4 --active all --idle ibarrier_yield | sed "s/^{/{\"rep\":$rep,/"
  done
done
