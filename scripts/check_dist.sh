#!/usr/bin/env bash
# The package as users get it.  Builds the sdist and, from it, the wheel
# (`python -m build`, isolated), checks both (`twine check --strict`), then,
# for the oldest and the newest supported Python, installs from the sdist
# into a fresh venv by the pip-only route: on a machine where no system MPI
# is visible (scripts/without_system_mpi.sh), `pip install` pulls the `mpich`
# wheel (MPICH 5.x) and mpi4py's binary wheel, and compiles pybcl against
# that MPICH; the Pythons install side by side.  Then, from outside the
# checkout, still with no system MPI visible: the newest Python's install gets
# the variant passes without the launcher's jobs (scripts/test_sets.sh: the
# in-job tests at 1 rank, 2 ranks on shm and rma), the oldest's the suite at
# 2 ranks.
# (The main passes build mpi4py from source against Debian's MPICH:
# scripts/setup_env.sh.)
#   bash scripts/check_dist.sh                    build, check, both Pythons
#   bash scripts/check_dist.sh build              build and check only
#   bash scripts/check_dist.sh pythons            install the built sdist and test
#   PYBCL_DIST_PYTHONS="3.11" bash scripts/check_dist.sh
# The interpreters are found in pyenv's versions (the CI image carries pyenv's
# 3.6-3.13), else as python3.X on PATH.  Artifacts: dist/; venvs: .variants/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
OUT=${PYBCL_DIST_DIR:-$ROOT/dist}
VENVS=${PYBCL_VARIANT_VENVS:-$ROOT/.variants}
LIMIT=${PYBCL_TEST_TIMEOUT:-900}          # seconds per step
# installing downloads the wheels and compiles pybcl: its own bound
INSTALL_LIMIT=${PYBCL_DIST_INSTALL_TIMEOUT:-1200}
PY=${PYTHON:-python3}
# oldest and newest supported (pyproject.toml: requires-python, classifiers)
PYTHONS=${PYBCL_DIST_PYTHONS:-"3.10 3.13"}
# the pip-only route finds the mpich wheel's compiler itself
unset MPICC PYBCL_TEST_MPIEXEC PYBCL_TEST_MPIEXEC_ARGS
. scripts/test_sets.sh      # variant_passes

step() {
    echo "== $*"
    local start=$SECONDS
    timeout --kill-after=30 "$LIMIT" "$@"
    echo "== done in $((SECONDS - start)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}

find_python() {      # find_python 3.10 -> path of an interpreter of that version
    local v=$1 cand
    # pyenv's own first: its shim on PATH answers only for the active version
    for cand in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v" \
                "$(command -v "python$v" || true)"; do
        if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c '' 2>/dev/null; then
            echo "$cand"; return
        fi
    done
    echo "check_dist: no Python $v found (python$v on PATH or pyenv's versions/$v.*)" >&2
    return 1
}

build() {
    local tools=$VENVS/dist-tools
    [ -x "$tools/bin/twine" ] || { "$PY" -m venv "$tools"; "$tools/bin/pip" install -q build twine; }
    rm -rf "$OUT"
    step "$tools/bin/python" -m build --outdir "$OUT" .
    step "$tools/bin/twine" check --strict "$OUT"/*
    # the sdist must carry the in-tree build backend and every C header
    local files
    files=$(tar tzf "$OUT"/*.tar.gz)
    grep -q '/_build/backend.py$' <<<"$files"
    [ "$(grep -c '/csrc/.*\.h$' <<<"$files")" -eq "$(find csrc -name '*.h' | wc -l)" ]
    echo "== built: $(cd "$OUT" && ls)"
}

install_python() {     # install_python 3.10: a fresh venv of that Python with the built sdist
    local v=$1 interp venv sdist
    interp=$(find_python "$v")
    venv=$VENVS/py$v
    sdist=$(ls "$OUT"/*.tar.gz)
    echo "== Python $v ($interp): install $(basename "$sdist") into a fresh venv, no system MPI"
    rm -rf "$venv"
    "$interp" -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    # --no-cache-dir: never reuse a pybcl wheel built against another MPI
    LIMIT=$INSTALL_LIMIT step bash scripts/without_system_mpi.sh \
        "$venv/bin/pip" install -q --no-cache-dir "pybcl-mpi[test] @ file://$sdist"
}

test_installed() {     # test_installed 3.10 passes|np2: tests against that install
    local v=$1 what=$2 venv=$VENVS/py$v
    bash scripts/without_system_mpi.sh bash "$0" inside "$v" "$what"
}

inside() {             # run by test_installed, where no system MPI is visible
    local v=$1 what=$2 venv=$VENVS/py$1
    export PATH=$venv/bin:$PATH
    unset PYTHONPATH
    (cd /tmp && python -c 'import pybcl, sys; print("==", sys.version.split()[0], pybcl.__file__)' \
        && python -m pybcl --version)
    if [ "$what" = passes ]; then
        # not the launcher's jobs: MPICH's hydra launches the main passes
        VARIANT_LAUNCHER_JOBS=0 variant_passes "$ROOT" "$venv/bin/mpiexec"
    else
        export PYBCL_TEST_MPIEXEC=$venv/bin/mpiexec
        (cd /tmp && step "$venv/bin/mpiexec" -n 2 python -m pytest -q -p no:cacheprovider \
            --with-mpi "$ROOT/tests")
    fi
}

# Installing is mostly downloading wheels and compiling pybcl's sources:
# the Pythons install side by side, each into its own log, shown when it
# ends; then the tests run one after the other (the newest Python gets the
# variant passes, the others the suite at 2 ranks).
pythons() {
    local v pids=() failed=0 i=0
    mkdir -p "$VENVS"
    for v in $PYTHONS; do
        install_python "$v" >"$VENVS/install-py$v.log" 2>&1 &
        pids+=($!)
    done
    for v in $PYTHONS; do
        local rc=0
        wait "${pids[$i]}" || rc=$?
        i=$((i + 1))
        echo; cat "$VENVS/install-py$v.log"
        [ "$rc" -eq 0 ] || { echo "== Python $v: install failed (exit $rc)"; failed=1; }
    done
    [ "$failed" -eq 0 ] || return 1
    local newest=${PYTHONS##* }
    for v in $PYTHONS; do
        echo
        if [ "$v" = "$newest" ]; then test_installed "$v" passes; else test_installed "$v" np2; fi
    done
}

case ${1:-all} in
    inside) inside "$2" "$3"; exit ;;
    build) build ;;
    pythons) pythons ;;
    all)   build; pythons ;;
    *)     echo "usage: check_dist.sh [build|pythons|all]" >&2; exit 2 ;;
esac
echo; echo "== package checks passed"
