# Which tests a pass needs, and run() for each step of a pass; sourced by
# scripts/run_tests.sh and scripts/run_multihost.sh.  A pass that runs a subset says so in its name
# there; every test still runs in some pass of the full tier.
#
# LOCAL_TESTS check what happens inside one process: the msgpack codec and
# XXH64 against their references (the ranks only share the examples), the
# stubs and docstrings, the docs' sources, the plain-C unit tests, the
# contig tests' serial reference against BCALM 2, PageRank's C sums.  More
# ranks, another transport or other hosts add nothing to them, so they run
# in the one-rank pass (pass 1), and in the MPI-variant and package passes,
# which test other builds; the other passes leave them out (pytest --ignore).
LOCAL_TESTS=(tests/c tests/docs/test_api_docs.py tests/docs/test_docs.py
             tests/serial/test_msgpack.py tests/serial/test_hash.py
             tests/apps/test_contigs_reference.py tests/apps/test_pagerank_sums.py)
LOCAL_IGNORE=()
for t in "${LOCAL_TESTS[@]}"; do LOCAL_IGNORE+=("--ignore=$t"); done
unset t

# CROSS_HOST_TESTS are the folders whose tests move data between ranks
# through the transport (remote get/put, atomics, batches, collectives and
# their argument agreement; saving and loading, whose MPI-IO and re-owned
# keys cross hosts too): at 3 ranks on 2 hosts, where rma-node mixes
# node peers (memcpy) and TCP peers, these are the paths that differ from
# one host.  The apps run across hosts in the multi-host pass's own app
# comparison; the rest is local.
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

# The passes a build other than the main one gets (Open MPI, the package
# installed from its sdist): the in-job tests at 1 rank; the jobs that test
# what the launcher and the MPI library do when a job fails, tears down,
# writes files or runs the plain-C core (the serial_only tests of
# LAUNCHER_TESTS), without the rma-node ones (the same MPI calls as rma,
# mixed with memcpy on one host); then the suite at each of $VARIANT_NPROCS
# ranks on shm and on rma.  Run from /tmp, so the installed pybcl is the one
# imported, not the checkout's sources.  VARIANT_LAUNCHER_JOBS=0 leaves the
# launcher's jobs out (a build whose launcher the main passes test already).
#   variant_passes ROOT MPIEXEC [launcher args...]
LAUNCHER_TESTS=(tests/faults tests/runtime tests/io tests/c tests/package)
variant_passes() {
    local root=$1 mpiexec=$2 n t
    shift 2
    local launcher_tests=()
    for t in "${LAUNCHER_TESTS[@]}"; do launcher_tests+=("$root/$t"); done
    export PYBCL_TEST_MPIEXEC=$mpiexec PYBCL_TEST_MPIEXEC_ARGS="$*"
    (
        cd /tmp
        run python -m pytest -q -p no:cacheprovider --with-mpi "$root/tests" -m "not serial_only"
        if [ "${VARIANT_LAUNCHER_JOBS:-1}" != 0 ]; then
            run python -m pytest -q -p no:cacheprovider --with-mpi "${launcher_tests[@]}" \
                -m serial_only -k "not rma-node"
        fi
        for n in ${VARIANT_NPROCS:-2}; do
            run "$mpiexec" "$@" -n "$n" python -m pytest -q -p no:cacheprovider --with-mpi \
                "$root/tests"
            PYBCL_TRANSPORT=rma run "$mpiexec" "$@" -n "$n" python -m pytest -q \
                -p no:cacheprovider --with-mpi "$root/tests"
        done
    )
}
