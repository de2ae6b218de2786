"""import pybcl starts NumPy with one BLAS thread: OPENBLAS_NUM_THREADS is
set (unless the user set it) before NumPy loads its BLAS, which pybcl's C
core does as it loads.  A fresh interpreter per case, no MPI job."""
import os
import subprocess
import sys

import pytest

from launch import job_env

# Records OPENBLAS_NUM_THREADS as it is when NumPy starts to import, and the
# process's threads once pybcl is imported.
PROBE = r"""
import os, sys
seen = {}
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and "numpy" not in seen:
            seen["numpy"] = os.environ.get("OPENBLAS_NUM_THREADS")
        return None
sys.meta_path.insert(0, Watch())
import pybcl
print(seen.get("numpy"), len(os.listdir("/proc/self/task")))
"""


def run_probe(**env):
    e = {k: v for k, v in job_env().items() if k != "OPENBLAS_NUM_THREADS"}
    e.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE], env=e, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    value, threads = out.stdout.split()
    return value, int(threads)


@pytest.mark.serial_only
def test_numpy_starts_with_one_blas_thread():
    value, threads = run_probe()
    assert value == "1"
    assert threads == 1          # no BLAS pool (nor any other thread) at import


@pytest.mark.serial_only
def test_the_users_blas_setting_wins():
    value, _ = run_probe(OPENBLAS_NUM_THREADS="2")
    assert value == "2"
