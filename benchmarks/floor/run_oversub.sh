#!/bin/sh
# Oversubscription / progress sweep for oversub.c; JSON lines on stdout
# (one per run; a run that times out prints {"timeout":...}).
# Usage: benchmarks/floor/run_oversub.sh > results/oversub.jsonl
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
MPICC=${MPICC:-mpicc.mpich}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
BIN=/tmp/oversub.$$
trap 'rm -f "$BIN"' EXIT
$MPICC -O2 -Wall -o "$BIN" "$HERE/oversub.c" || exit 1
SECS=${SECS:-0.5}
run() { # run <env> <np> <mpiexec-opts> <args...>
    envs=$1; np=$2; mo=$3; shift 3
    out=$(env $envs timeout 60 $MPIEXEC $mo -n $np "$BIN" "$@" 2>/dev/null | tail -1)
    [ -n "$out" ] || out="{\"timeout\":true,\"n\":$np,\"args\":\"$*\"}"
    echo "$out" | sed "s|^{|{\"env\":\"$envs\",\"mpiexec_opts\":\"$mo\",|"
}
WAITS="flush flush_yield req:-1 req:0 req:1 req:10 req:32 req:100 iprobe:10"
for np in 2 4; do
  for w in $WAITS; do
    wm=${w%%:*}; k=${w#*:}; [ "$k" = "$w" ] && k=0
    run "X=1" $np "" --test ops --secs $SECS --wait $wm --K $k --active all --idle barrier
    for idle in barrier ibarrier_yield compute; do
      run "X=1" $np "" --test ops --secs $SECS --wait $wm --K $k --active half --idle $idle
    done
  done
done
# environment / launcher variants at -n 4 (all ranks active)
for e in "MPIR_CVAR_ASYNC_PROGRESS=1" "MPIR_CVAR_POLLS_BEFORE_YIELD=1" "UCX_TLS=sm,self" "UCX_TLS=tcp,self" \
         "UCX_TLS=posix,self" "MPIR_CVAR_CH4_GLOBAL_PROGRESS=0"; do
  for w in flush req:10; do
    wm=${w%%:*}; k=${w#*:}; [ "$k" = "$w" ] && k=0
    run "$e" 4 "" --test ops --secs $SECS --wait $wm --K $k --active all --idle barrier
  done
done
for b in "-bind-to core" "-bind-to none"; do
  for w in flush req:10; do
    wm=${w%%:*}; k=${w#*:}; [ "$k" = "$w" ] && k=0
    run "X=1" 4 "$b" --test ops --secs $SECS --wait $wm --K $k --active all --idle barrier
  done
done
# spin-wait token ring on a remote counter
for np in 2 4; do
  for w in flush flush_yield req:-1 req:0 req:10 req:32; do
    wm=${w%%:*}; k=${w#*:}; [ "$k" = "$w" ] && k=0
    run "X=1" $np "" --test spin --hops 1000 --wait $wm --K $k --idle barrier
  done
done
# barrier cost
for np in 2 4; do
  for idle in barrier ibarrier_yield ibarrier_spin; do
    run "X=1" $np "" --test barrier --iters 1000 --idle $idle
  done
done
