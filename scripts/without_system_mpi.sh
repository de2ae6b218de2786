#!/usr/bin/env bash
# without_system_mpi.sh CMD...: run CMD as on a machine with no MPI installed.
# In a private mount namespace (root, util-linux `unshare`), every system MPI
# compiler wrapper, launcher and library is covered with an empty file, so
# neither `which mpicc` nor the dynamic loader can find one; the rest of the
# machine is untouched and everything is undone when CMD exits.
set -euo pipefail
if [ "${PYBCL_IN_MPI_LESS_NS:-}" != 1 ]; then
    exec unshare --mount --propagation private env PYBCL_IN_MPI_LESS_NS=1 bash "$0" "$@"
fi
empty=$(mktemp)
shopt -s nullglob
for f in /usr/bin/mpi* /usr/bin/orte* /usr/bin/ompi* /usr/bin/hydra* \
         /usr/lib/*-linux-gnu/libmpi* /usr/lib/*-linux-gnu/libmpich* \
         /usr/lib/*-linux-gnu/libopen-rte* /usr/lib/*-linux-gnu/libopen-pal*; do
    [ -e "$f" ] && mount --bind "$empty" "$(readlink -f "$f")" 2>/dev/null || true
done
chmod 0644 "$empty"
exec "$@"
