"""The tutorial's code (examples/tutorial.py, shown in docs/tutorial.md) runs
as written: in this pass's ranks, and as its own mpiexec job."""
import os
import runpy

import pytest

from conftest import all_ok
from launch import ROOT, job_env, run_python

TUTORIAL = os.path.join(ROOT, "examples", "tutorial.py")


def test_tutorial_runs_in_this_job(capsys):
    import traceback
    error = None
    try:
        runpy.run_path(TUTORIAL, run_name="__main__")    # asserts its own results
    except Exception:
        error = traceback.format_exc()
    assert all_ok(error is None), error


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs,transport", [(2, "auto"), (3, "rma")])
def test_tutorial_under_mpiexec(nprocs, transport):
    proc = run_python([TUTORIAL], nprocs, timeout=180, env=job_env(PYBCL_TRANSPORT=transport))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"tutorial ok on {nprocs} rank(s)" in proc.stdout
