#!/usr/bin/env bash
# Simulated hosts on one machine for pybcl's multi-host tests: each host is a
# network namespace with its own veth into a private bridge, so MPI traffic
# between "hosts" crosses a real TCP/IP stack (no shared memory: also set
# UCX_TLS=tcp,self for a UCX-based MPICH).  Needs root and iproute2.
#
#   hosts.sh up N       create hosts 1..N (idempotent: existing ones are kept)
#   hosts.sh down       remove every host and the bridge (idempotent)
#   hosts.sh list N     the mpiexec -hosts list for N hosts ("A,B,C")
#   hosts.sh addr I     the address of host I
#   hosts.sh iface      the bridge's name (mpiexec -iface)
#
# Names come from PYBCL_NETNS_NAME (default "pb"): the bridge is <name>br0,
# host I is namespace <name>hI at <net>.(10+I) on <net>.0/24, where <net> is
# PYBCL_NETNS_NET (default 10.77.0).  Two jobs on one machine that must not
# disturb each other use different names and nets.  Launch across the hosts
# with MPICH's hydra, using nsexec.sh (beside this file) in place of ssh:
#   mpiexec -launcher ssh -launcher-exec scripts/netns/nsexec.sh \
#           -iface "$(hosts.sh iface)" -hosts "$(hosts.sh list 3)" -n 3 python x.py
set -euo pipefail
NAME=${PYBCL_NETNS_NAME:-pb}
NET=${PYBCL_NETNS_NET:-10.77.0}
BRIDGE="${NAME}br0"

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
addr() { echo "$NET.$((10 + $1))"; }
has_ns() { ip netns list | awk '{print $1}' | grep -qx "$1"; }

make_bridge() {
    ip link show "$BRIDGE" >/dev/null 2>&1 && return
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
}

# host I: namespace <name>hI; the veth's outer end (v<name>hI) joins the
# bridge, its inner end is the host's eth0 with the host's address
make_host() {
    local ns="${NAME}h$1" outer="v${NAME}h$1"
    has_ns "$ns" && return
    ip netns add "$ns"
    ip link add "$outer" type veth peer name eth0 netns "$ns"
    ip link set "$outer" master "$BRIDGE"
    ip link set "$outer" up
    ip netns exec "$ns" ip addr add "$(addr "$1")/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
}

remove_all() {
    local ns
    # deleting a namespace deletes its veth pair with it
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^${NAME}h[0-9]+\$" || true); do
        ip netns del "$ns"
    done
    ip link del "$BRIDGE" 2>/dev/null || true
}

count() { [[ ${1:-} =~ ^[1-9][0-9]?$ ]] || { echo "hosts.sh: N must be 1..99, got '${1:-}'" >&2; exit 2; }; }

case ${1:-} in
    up)    count "${2:-}"; make_bridge; for i in $(seq 1 "$2"); do make_host "$i"; done ;;
    down)  remove_all ;;
    list)  count "${2:-}"; for i in $(seq 1 "$2"); do addr "$i"; done | paste -sd, ;;
    addr)  count "${2:-}"; addr "$2" ;;
    iface) echo "$BRIDGE" ;;
    *)     usage ;;
esac
