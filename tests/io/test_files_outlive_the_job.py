"""Saved files seen from outside the job that wrote them: a rank killed
while saving leaves the earlier file whole under the name; a plain Python
process (no mpiexec) reads a file without MPI ever being initialised; a
file or folder the user may not read or write is a PermissionError on
every rank."""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import pybcl
from launch import job_env, launcher_family, mpiexec_argv, run_killed, wait_for

KILL_JOB = """
import os, sys
import numpy as np
import pybcl
folder = sys.argv[1]
me = pybcl.rank()
with open(os.path.join(folder, f"pid.{me}"), "w") as f:
    f.write(str(os.getpid()))
a = pybcl.DArray(4_000_000 * pybcl.nprocs(), dtype="int64")     # 32 MB a rank
for gen in range(1_000_000):
    a.local()[:] = gen
    pybcl.barrier()
    a.save(os.path.join(folder, "a.pybcl"), meta={"gen": gen})
"""


@pytest.mark.serial_only
def test_a_rank_killed_while_saving_leaves_the_earlier_file_whole(tmp_path):
    (tmp_path / "job.py").write_text(KILL_JOB)
    path = tmp_path / "a.pybcl"

    def kill_while_saving(job):
        wait_for(lambda: path.exists(), 120, "first save")
        # the next save is under way once its temporary file exists: kill a
        # rank while the ranks write it
        wait_for(lambda: glob.glob(str(tmp_path / ".a.pybcl.*.pybcl-tmp")), 60,
                 "temporary file")
        os.kill(int((tmp_path / "pid.1").read_text()), signal.SIGKILL)
    code, out = run_killed(mpiexec_argv(2) + [sys.executable, str(tmp_path / "job.py"),
                                              str(tmp_path)], kill_while_saving)
    assert code != 0, out
    gen = pybcl.io.info(str(path))["meta"]["gen"]
    data = pybcl.io.read(str(path))            # every part whole (checksums)
    assert len(data) == 8_000_000 and (data == gen).all(), (gen, data[:3], data[-3:])


NO_MPI = """
import ctypes, sys
import pybcl.io
keys, values = pybcl.io.read(sys.argv[1])
info = pybcl.io.info(sys.argv[1])
lib = [line.split()[-1] for line in open("/proc/self/maps") if "libmpi" in line][0]
flag = ctypes.c_int(-1)
ctypes.CDLL(lib).MPI_Initialized(ctypes.byref(flag))
print(sorted(zip(keys.tolist(), values.tolist())), info["meta"], info["ranks"],
      "MPI_Initialized", flag.value, "mpi4py" in sys.modules, pybcl._core.initialized())
"""


def _plain_env():
    """A plain process's environment: nothing a launcher would have set."""
    return {k: v for k, v in job_env().items()
            if not k.startswith(("PMI_", "PMIX_", "OMPI_", "HYDRA_", "MPIR_"))}


@pytest.mark.serial_only
def test_read_and_info_work_in_a_plain_process_without_initialising_mpi(tmp_path):
    m = pybcl.HashMap(64, key_type="uint64", value_type="int64")
    m.insert_many(np.arange(5, dtype=np.uint64), np.arange(5) * 10)
    m.save(str(tmp_path / "m.pybcl"), meta={"k": 21})
    r = subprocess.run([sys.executable, "-c", NO_MPI, str(tmp_path / "m.pybcl")],
                       env=_plain_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    want = f"{[(i, 10 * i) for i in range(5)]} {{'k': 21}} 1 MPI_Initialized 0 False False"
    assert r.stdout.strip() == want, r.stdout + r.stderr


PERMISSION_JOB = """
import sys
import pybcl
folder = sys.argv[1]
for what, call in (("load", lambda: pybcl.load(folder + "/secret")),
                   ("save", lambda: pybcl.DArray(10).save(folder + "/locked/a")),
                   ("read", lambda: pybcl.io.read(folder + "/secret"))):
    try:
        call()
        print("no error", what)
    except PermissionError as e:
        print(f"<PermissionError {what} {'secret' in str(e) or 'locked' in str(e)}>")
print(f"<ok {pybcl.rank()}>")
"""


def _unprivileged():
    """The argv prefix that runs a program without root's rights over files
    (setpriv to nobody when we are root), or None if there is none."""
    if os.geteuid() != 0:
        return []
    if launcher_family() == "openmpi":
        # Open MPI's ranks reach the launcher's PMIx server through files
        # its user owns: a rank started as another user fails in MPI_Init
        # and mpirun never returns.
        return None
    setpriv = shutil.which("setpriv")
    return None if not setpriv else [setpriv, "--reuid=65534", "--regid=65534",
                                     "--clear-groups"]


@pytest.mark.serial_only
def test_files_one_may_not_read_or_write_are_permission_errors_on_every_rank():
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("root, and no way here to run the job as another user "
                    "(no setpriv, or an Open MPI launcher)")
    folder = tempfile.mkdtemp()
    try:
        os.chmod(folder, 0o755)
        with open(os.path.join(folder, "job.py"), "w") as f:
            f.write(textwrap.dedent(PERMISSION_JOB))
        pybcl.DArray(10).save(os.path.join(folder, "secret"))
        os.chmod(os.path.join(folder, "secret"), 0)
        os.mkdir(os.path.join(folder, "locked"), 0o555)
        r = subprocess.run(mpiexec_argv(2) + prefix + [sys.executable,
                                                       os.path.join(folder, "job.py"), folder],
                           env=job_env(), capture_output=True, text=True, timeout=120)
        if "Permission denied" in r.stderr and "<ok" not in r.stdout:
            pytest.skip(f"the job cannot start as another user here: {r.stderr[-300:]}")
        assert r.returncode == 0 and r.stdout.count("<ok ") == 2, r.stdout + r.stderr
        for what in ("load", "save", "read"):
            assert r.stdout.count(f"<PermissionError {what} True>") == 2, r.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)
