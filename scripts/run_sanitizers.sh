#!/usr/bin/env bash
# The sanitizer pass: pybcl built with AddressSanitizer + UBSan in a scratch
# copy of this tree, a self-check, then the MPI suite under it at 2 ranks on
# shm and on rma (every test folder; the local tests, which exercise no MPI,
# run in the one-rank pass as in every multi-rank pass, scripts/test_sets.sh;
# five slow tests are left out, SLOW_UNDER_ASAN below).
#   bash scripts/run_sanitizers.sh            (after scripts/setup_env.sh;
#                                              scripts/run_tests.sh pass `asan`)
#   PYBCL_SANITIZE_TRANSPORTS="rma"           the transports (default "shm rma")
#   PYBCL_SANITIZE_TESTS="tests/queues ..."   what pytest runs (default: the
#                                             suite without the local tests)
#
# The runtimes are preloaded into pybcl's own Python processes only
# (scripts/sanitize/sitecustomize.py): the programs the tests start (bcalm,
# bgzip, gcc, mpiexec) run without them.  Leak checking is off: CPython
# itself does not free everything at exit.  Any sanitizer report ends its
# rank (halt_on_error), the launcher ends the job, and the pass fails.
#
# Self-check first: the scratch build also holds two planted bugs
# (scripts/sanitize/planted.c, called by nothing in the core); a 2-rank
# pytest job (scripts/sanitize/test_planted_bugs.py) calls each on one rank
# while the other waits in a collective, and the pass stops unless ASan and
# UBSan each report theirs and the job fails in time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -n "${VIRTUAL_ENV:-}" ] || . .venv/bin/activate
. scripts/test_sets.sh
MPIEXEC=${PYBCL_TEST_MPIEXEC:-mpiexec.mpich}
TRANSPORTS=${PYBCL_SANITIZE_TRANSPORTS:-shm rma}
PASS_LIMIT=${PYBCL_SANITIZE_PASS_TIMEOUT:-1200}    # seconds per transport
CHECK_LIMIT=120                                    # seconds per self-check job
START=$SECONDS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# tracked files and new ones not ignored, as they are in the working tree
git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work"
cp scripts/sanitize/planted.c "$work/csrc/runtime/bcl_planted.c"
cd "$work"
echo "== building with ASan+UBSan in $work"
PYBCL_SANITIZE=address,undefined python setup.py -q build_ext --inplace -j "$(nproc)" >/dev/null
echo "== built in $((SECONDS - START)) s"

export PYBCL_SANITIZER_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH="$work/scripts/sanitize:$work"
unset LD_PRELOAD

# The jobs must import this build, not the tree's own (an editable install
# would otherwise supply a missing _core from there).
python - "$work" <<'PY'
import sys, pybcl._core as core
assert core.__file__.startswith(sys.argv[1] + "/"), f"imported {core.__file__}, not the scratch build"
PY

# pytest as the suite runs it; --capture=sys: a sanitizer writes its report
# to file descriptor 2 from C, which pytest's default capture would hold
# back and lose with the rank it ends.
PYTEST=(python -m pytest -q --with-mpi -p no:cacheprovider --capture=sys)

selfcheck() {    # FUNCTION REPORT: the planted bug must be reported and fail the job
    local out status=0
    out=$(PYBCL_PLANTED=$1 timeout --kill-after=10 "$CHECK_LIMIT" "$MPIEXEC" -n 2 \
          "${PYTEST[@]}" tests/test_planted_bugs.py 2>&1) || status=$?
    if [ "$status" -eq 0 ] || [ "$status" -ge 124 ] || [[ $out != *"$2"* ]]; then
        printf '%s\n' "$out" | tail -n 40
        echo "run_sanitizers: self-check failed: $1 (exit $status) was not reported as '$2'" >&2
        exit 1
    fi
    echo "   $1: '$2' reported, job failed with exit status $status"
}
echo "== self-check: planted bugs, 2 ranks"
cp scripts/sanitize/test_planted_bugs.py tests/
selfcheck bcl_planted_out_of_bounds_write "ERROR: AddressSanitizer: heap-buffer-overflow"
selfcheck bcl_planted_oversized_shift "runtime error: shift exponent 40 is too large"
rm tests/test_planted_bugs.py
# and the preload stays in Python: another program started by a rank runs without it
python -c 'import subprocess, sys; maps = open("/proc/self/maps").read(); \
child = subprocess.run(["cat", "/proc/self/maps"], capture_output=True, text=True).stdout; \
sys.exit(None if "libasan" in maps and "libasan" not in child else "preload: python %s, child %s" \
         % ("libasan" in maps, "libasan" in child))'
echo "   the runtimes are in Python processes, not in the programs they start"

# Left out by default: tests whose time under ASan is not the C core's
# breadth (measured at 2 ranks on shm, load 9: 777 s of test time, of which
# these 677 s; the rest of the suite 100 s).  The BGZF tilings simulate up
# to 1678 ranks, one reader per tiny range, and under ASan each reader's
# 4 MiB piece buffer costs ~30 ms (one tiling: 53 s, or 1.3 s with 64 KiB
# pieces); the same reader paths run in the other BGZF tests, on the tiny
# and empty-block files too.  The BCALM comparison spends its time in bcalm
# and a Python reference.
SLOW_UNDER_ASAN=(
    "tests/apps/test_kmer_bgzf.py::test_bgzf_ranges_tile_the_records[tiny-fastq]"
    "tests/apps/test_kmer_bgzf.py::test_bgzf_ranges_tile_the_records[tiny-fasta]"
    "tests/apps/test_kmer_bgzf.py::test_bgzf_ranges_tile_the_records[empty_between-fastq]"
    "tests/apps/test_kmer_bgzf.py::test_bgzf_ranges_tile_the_records[empty_between-fasta]"
    "tests/apps/test_contigs.py::test_serial_reference_agrees_with_bcalm"
)
if [ -n "${PYBCL_SANITIZE_TESTS:-}" ]; then
    read -r -a TESTS <<< "$PYBCL_SANITIZE_TESTS"
else
    TESTS=(tests "${LOCAL_IGNORE[@]}")
    for t in "${SLOW_UNDER_ASAN[@]}"; do TESTS+=("--deselect=$t"); done
fi
failed=()
for transport in $TRANSPORTS; do
    echo "== ASan+UBSan, 2 ranks, $transport"
    start=$SECONDS
    if PYBCL_TRANSPORT=$transport timeout --kill-after=30 "$PASS_LIMIT" "$MPIEXEC" -n 2 \
            "${PYTEST[@]}" "${TESTS[@]}"; then
        echo "== $transport passed in $((SECONDS - start)) s"
    else
        echo "== $transport FAILED after $((SECONDS - start)) s"
        failed+=("$transport")
    fi
done
echo "== sanitizer pass: $((SECONDS - START)) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
if [ ${#failed[@]} -gt 0 ]; then
    echo "run_sanitizers: failed on ${failed[*]}" >&2
    exit 1
fi
