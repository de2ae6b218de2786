# Which tests a pass needs, and run() for each step of a pass; sourced by
# scripts/run_tests.sh and scripts/run_multihost.sh.  A pass that runs a subset says so in its name
# there; every test still runs in some pass of the full tier.
#
# LOCAL_TESTS check what happens inside one process: the msgpack codec and
# XXH64 against their references (the ranks only share the examples), the
# stubs and docstrings, the docs' sources, the plain-C unit tests.  More
# ranks, another transport or other hosts add nothing to them, so they run
# in the one-rank pass (pass 1), and in the MPI-variant and package passes,
# which test other builds; the other passes leave them out (pytest --ignore).
LOCAL_TESTS=(tests/c tests/docs/test_api_docs.py tests/docs/test_docs.py
             tests/serial/test_msgpack.py tests/serial/test_hash.py)
LOCAL_IGNORE=()
for t in "${LOCAL_TESTS[@]}"; do LOCAL_IGNORE+=("--ignore=$t"); done
unset t

# CROSS_HOST_TESTS are the folders whose tests move data between ranks
# through the transport (remote get/put, atomics, batches, collectives and
# their argument agreement; saving and loading, whose MPI-IO and re-owned
# keys cross hosts too): at 2 hosts x 2 ranks, where rma-node mixes
# node peers (memcpy) and TCP peers, these are the paths that differ from
# one host.  The apps run across hosts in the 3-host suite and in the
# multi-host pass's own app comparison; the rest is local.
CROSS_HOST_TESTS=(tests/runtime tests/hashmap tests/queues tests/arrays tests/bloom
                  tests/faults tests/io)

# One step of a pass, bounded by $LIMIT seconds (set by the runner); the
# load average beside its time says how much the machine was shared.
run() {
    echo
    echo "== $*"
    local start=$SECONDS
    timeout --kill-after=30 "$LIMIT" "$@"
    echo "== passed in $((SECONDS - start)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
}
