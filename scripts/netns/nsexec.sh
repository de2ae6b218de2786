#!/usr/bin/env bash
# Stand-in for ssh in MPICH hydra's launcher (-launcher ssh -launcher-exec
# nsexec.sh): `nsexec.sh [ssh options] HOST COMMAND...` runs COMMAND in the
# network namespace of simulated host HOST (an address made by hosts.sh,
# beside this file), under its own hostname, so MPI sees separate nodes.
# PYBCL_NETNS_NAME / PYBCL_NETNS_NET: as for hosts.sh (hydra passes our
# environment on to the launcher).
set -euo pipefail
NAME=${PYBCL_NETNS_NAME:-pb}
NET=${PYBCL_NETNS_NET:-10.77.0}
while [[ ${1:-} == -* ]]; do shift; done      # hydra's ssh options (-x, ...)
host=${1:?nsexec.sh: no host given}
shift
case $host in
    "$NET".*) i=$(( ${host##*.} - 10 )) ;;
    *) echo "nsexec.sh: $host is not a simulated host on $NET.0/24" >&2; exit 255 ;;
esac
[ "$i" -ge 1 ] || { echo "nsexec.sh: $host is not a simulated host" >&2; exit 255; }
# hydra hands the remote command as words meant for a remote shell: run them
# through sh -c, as ssh would
exec ip netns exec "${NAME}h$i" unshare --uts sh -c "hostname ${NAME}host$i; $*"
