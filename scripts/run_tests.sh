#!/usr/bin/env bash
# The test suite in two tiers.
#   bash scripts/run_tests.sh          the quick tier (a few minutes): the
#                                      tests that run in the job at one rank
#                                      (plain python, no mpiexec), then the
#                                      suite at 2 ranks on the default
#                                      transport (shm on one machine) and on
#                                      rma; the serial_only tests, which
#                                      launch jobs of their own, are the full
#                                      tier's (its pass 1)
#   bash scripts/run_tests.sh --full   every pass CI runs (.ci/run): one rank,
#                                      3 and 8 ranks on the default transport,
#                                      3 and 8 on rma and 3 on rma-node
#                                      (forced), the multi-host pass,
#                                      Open MPI, the package (sdist and wheel
#                                      built, the sdist installed by the
#                                      pip-only route into the oldest and
#                                      newest supported Python and tested
#                                      there), the suite under ASan+UBSan,
#                                      then the docs.
# Pass 1 runs every test; the other passes leave out the local tests and the
# multi-host 2+1 runs the cross-host tests (scripts/test_sets.sh).
# 8 ranks on a 2-core machine are oversubscribed: pybcl then waits patiently
# on its own (docs/progress.md).  Measured pass times: docs/testing.md.
#
# Every test runs under a time limit (PYBCL_TEST_TIME_LIMIT, seconds; see
# tests/conftest.py): a hung test ends its pass with the test's name and
# every rank's Python stack.  The pass limit below is only a last resort.
#   PYBCL_TEST_PASSES="1 2 rma2" bash scripts/run_tests.sh   runs these passes
#     only (either tier);
#   PYBCL_TEST_NO_SETUP=1 skips scripts/setup_env.sh (an environment is active).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
QUICK="injob1 2 rma2"
FULL="1 3 8 rma3 rma8 rmanode3 multihost openmpi dist asan docs"
# Passes by name only (PYBCL_TEST_PASSES), left out of CI's time: rma1 and
# rmanode1 (the in-job tests at one rank on rma / rma-node: the same calls
# as at 3 ranks, all to oneself), 2, rma2, rmanode2, 4 ...; the 3-host suite
# is PYBCL_MULTIHOST_PARTS=suite3h bash scripts/run_multihost.sh.
TIER=quick
case ${1:-} in
    "") ;;
    --full) TIER=full ;;
    --quick) ;;
    *) echo "usage: bash scripts/run_tests.sh [--quick|--full]" >&2; exit 2 ;;
esac
[ -n "${PYBCL_TEST_NO_SETUP:-}" ] || . scripts/setup_env.sh
. scripts/test_sets.sh
MPIEXEC=mpiexec.mpich
LIMIT=${PYBCL_TEST_TIMEOUT:-1200}    # seconds per pass
export PYBCL_TEST_TIME_LIMIT=${PYBCL_TEST_TIME_LIMIT:-300}
# openmpi: the suite against Open MPI, in a venv of its own
# (scripts/run_mpi_variants.sh).
# multihost: the suite across network-namespace hosts (scripts/run_multihost.sh).
# dist: the sdist and wheel; the sdist installed by the pip-only route (the
# mpich wheel) into other Pythons and tested there (scripts/check_dist.sh).
# asan: a scratch build under ASan+UBSan, its self-check, the suite at 2
# ranks on shm and rma (scripts/run_sanitizers.sh).
# docs: the Sphinx site, warnings as errors (scripts/build_docs.sh).
if [ $TIER = full ]; then PASSES=$FULL; else PASSES=$QUICK; fi
PASSES=${PYBCL_TEST_PASSES:-$PASSES}
TOTAL_START=$SECONDS

# The local tests (scripts/test_sets.sh) run in pass 1 only: another rank
# count or transport repeats the same work.
NOLOCAL=("${LOCAL_IGNORE[@]}")

# Each pass's time, printed last whatever happens: CI shows the end of the
# log, and the times say where the tier's budget goes.
TIMES=""
CURRENT=""
summary() {
    local rc=$?
    [ -z "$CURRENT" ] || TIMES="$TIMES $CURRENT:$((SECONDS - PASS_START))s(exit $rc)"
    echo "== pass times ($TIER tier, $((SECONDS - TOTAL_START)) s in all):$TIMES"
}
trap summary EXIT

for pass in $PASSES; do
    CURRENT=$pass PASS_START=$SECONDS
    case $pass in
        1)      run python -m pytest -q --with-mpi tests ;;
        injob1) run python -m pytest -q --with-mpi tests -m "not serial_only" ;;
        # rma at one rank: the in-job tests; the serial_only tests, which
        # launch their own jobs and set their transports, ran in pass 1
        rma1)   PYBCL_TRANSPORT=rma run python -m pytest -q --with-mpi tests "${NOLOCAL[@]}" \
                    -m "not serial_only" ;;
        # rma-node forced on one host (auto picks it only across nodes with
        # several ranks on one: the multihost pass's 2+1)
        rmanode1) PYBCL_TRANSPORT=rma-node run python -m pytest -q --with-mpi tests "${NOLOCAL[@]}" \
                      -m "not serial_only" ;;
        rmanode*) PYBCL_TRANSPORT=rma-node run $MPIEXEC -n "${pass#rmanode}" python -m pytest -q --with-mpi \
                      tests "${NOLOCAL[@]}" ;;
        rma*)   PYBCL_TRANSPORT=rma run $MPIEXEC -n "${pass#rma}" python -m pytest -q --with-mpi \
                      tests "${NOLOCAL[@]}" ;;
        # a build and four suite runs: its own bound
        openmpi) LIMIT=${PYBCL_OPENMPI_TIMEOUT:-2400} run bash scripts/run_mpi_variants.sh "$pass" ;;
        # Several suite passes over TCP in one: its own, longer bound.
        multihost) LIMIT=${PYBCL_MULTIHOST_TIMEOUT:-4800} run bash scripts/run_multihost.sh ;;
        # builds pybcl twice (two Pythons) and runs the variant passes: its own bound
        dist)   LIMIT=${PYBCL_DIST_TIMEOUT:-2400} run bash scripts/check_dist.sh ;;
        # a build and two suite passes: its own bound
        asan)   LIMIT=${PYBCL_ASAN_TIMEOUT:-2400} run bash scripts/run_sanitizers.sh ;;
        docs)   run bash scripts/build_docs.sh ;;
        # 8 ranks on shm: not the apps (at 8 ranks they run on rma, and on
        # shm at 1, 2 and 4; the containers' own tests run here)
        8)      run $MPIEXEC -n 8 python -m pytest -q --with-mpi tests "${NOLOCAL[@]}" \
                    --ignore=tests/apps ;;
        *)      run $MPIEXEC -n "$pass" python -m pytest -q --with-mpi tests "${NOLOCAL[@]}" ;;
    esac
    TIMES="$TIMES $pass:$((SECONDS - PASS_START))s" CURRENT=""
done
echo
echo "== all test passes ($TIER tier: $PASSES) succeeded in $((SECONDS - TOTAL_START)) s"
