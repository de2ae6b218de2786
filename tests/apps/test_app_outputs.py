"""Every app's output files: a path that cannot be written ends the run with
one `prog: error: ...` line from rank 0 and exit status 1 on every rank, no
traceback and no job abort.  Found before the work where it can be (a full
device, a missing folder); otherwise (a disk that fills, a folder that
vanishes) after it, agreed by the ranks (pybcl/apps/_cli.py, Outputs).
"""
import importlib
import json

import pytest

from conftest import all_ok
from launch import quiet_args, run_python, run_script

# app -> (a small run's arguments, its output options)
APPS = {
    "kmer": (["--quiet", "--demo"], ["--histo", "--counts", "--json"]),
    "contigs": (["--quiet", "--demo"], ["-o", "--json"]),
    "gups": (["--log2-size", "12", "--updates-per-rank", "1000"], ["--json"]),
    "isx": (["--keys-per-rank", "5000", "--iterations", "1", "--burn-in", "0"], ["--json"]),
    "bfs": (["--scale", "6", "--roots", "1"], ["--parents-out", "--json"]),
    "pagerank": (["--scale", "6", "--iterations", "2"], ["--out", "--json"]),
}
CASES = [(app, option) for app, (_, options) in APPS.items() for option in options]


# In the job: these stop in the apps' checks, before any work.
@pytest.mark.parametrize("path,words", [("/dev/full", "No space left on device"),
                                        ("/nonexistent-dir/out",
                                         "directory /nonexistent-dir does not exist")])
@pytest.mark.parametrize("app,option", CASES)
def test_an_output_that_cannot_be_written_stops_before_the_work(capsys, app, option, path,
                                                                 words):
    import pybcl
    base, _ = APPS[app]
    main = importlib.import_module(f"pybcl.apps.{app}").main
    code = main([*base, option, path])
    out, err = capsys.readouterr()
    want = f"python -m pybcl.apps.{app}: error: {option} {path}: {words}"
    lines = err.splitlines()
    ok = code == 1 and not out
    ok &= lines == [want] if pybcl.rank() == 0 else lines == []
    assert all_ok(ok), (code, out, err)


# Outputs that fail only when written, after the work: every write to a file
# past 0 bytes fails (RLIMIT_FSIZE 0, set after init; Python ignores SIGXFSZ,
# so the write raises EFBIG).  Each app's main runs in one job, its status
# and rank 0's stderr collected; the job goes on after each (nothing aborted).
@pytest.mark.serial_only
def test_an_output_failing_after_the_work_is_one_line_and_status_1(tmp_path):
    proc, _ = run_script(tmp_path, f"""
        import contextlib, importlib, io, json, resource
        import pybcl
        pybcl.init()
        apps, cases = {APPS!r}, {CASES!r}
        results = []
        for app, option in cases:
            path = {str(tmp_path)!r} + f"/{{app}}{{option}}.out"
            hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = importlib.import_module("pybcl.apps." + app).main(
                    [*apps[app][0], option, path])
            resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
            results.append([app, option, path, code, err.getvalue()])
        with open({str(tmp_path)!r} + f"/results{{pybcl.rank()}}.json", "w") as fh:
            json.dump(results, fh)
    """, nprocs=2, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by_rank = [json.loads((tmp_path / f"results{r}.json").read_text()) for r in (0, 1)]
    for app, option, path, code, err in by_rank[0]:
        assert code == 1, (app, option, err)
        assert err == f"python -m pybcl.apps.{app}: error: {option} {path}: File too large\n"
    assert all(code == 1 and err == "" for *_, code, err in by_rank[1]), by_rank[1]


# The same as the user meets it: the whole job's exit status and output.
@pytest.mark.serial_only
def test_python_m_app_full_output_is_one_line_and_exit_status_1():
    r = run_python(["-m", "pybcl.apps.kmer", "--quiet", "--demo", "--histo", "/dev/full"], 2,
                   extra=quiet_args())
    assert r.returncode == 1 and not r.stdout, r.stdout + r.stderr
    assert r.stderr == ("python -m pybcl.apps.kmer: error: --histo /dev/full: "
                        "No space left on device\n"), r.stderr
