"""One way for tests to launch their own MPI jobs.

Tests marked `serial_only` start `mpiexec` themselves (abort behaviour, init
variants, the apps' command lines).  They all go through `mpiexec_argv` so a
pass of the suite can point every such job at the same launcher and hosts as
the pass itself: `PYBCL_TEST_MPIEXEC` names the mpiexec (default
`mpiexec.mpich`, else `mpiexec`), and `PYBCL_TEST_MPIEXEC_ARGS` adds launcher
arguments, e.g. for the network-namespace hosts of the multi-host pass
(`-launcher ssh -launcher-exec .../nsexec.sh -hosts ...`).
"""
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mpiexec():
    """Path of the mpiexec the suite launches its own jobs with."""
    wanted = os.environ.get("PYBCL_TEST_MPIEXEC")
    if wanted:
        return shutil.which(wanted) or wanted
    return shutil.which("mpiexec.mpich") or shutil.which("mpiexec")


def mpiexec_argv(nprocs, extra=()):
    """argv prefix that starts `nprocs` ranks with this pass's launcher."""
    args = shlex.split(os.environ.get("PYBCL_TEST_MPIEXEC_ARGS", ""))
    return [mpiexec(), *args, *extra, "-n", str(nprocs)]


def job_env(**overrides):
    """The environment for a launched job: the pybcl this process imported
    (a checkout built in place, or an installed package) comes first."""
    import pybcl
    where = os.path.dirname(os.path.dirname(os.path.abspath(pybcl.__file__)))
    env = dict(os.environ, PYTHONPATH=where + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update({k: str(v) for k, v in overrides.items()})
    return env


def run_python(args, nprocs, timeout=120, env=None, extra=()):
    """Run `python ARGS...` on `nprocs` ranks; CompletedProcess with text output."""
    cmd = mpiexec_argv(nprocs, extra) + [sys.executable, *args]
    return subprocess.run(cmd, env=env or job_env(), capture_output=True, text=True,
                          timeout=timeout)


def run_script(tmp_path, body, nprocs=2, timeout=60, env=None):
    """Write `body` (dedented) to a script, run it; (CompletedProcess, seconds)."""
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(body))
    start = time.monotonic()
    proc = run_python([str(script)], nprocs, timeout=timeout, env=env)
    return proc, time.monotonic() - start


def assert_job_code(proc, code):
    """The job ended with `code` from MPI_Abort.  Hydra (MPICH's mpiexec) then
    kills the other ranks and, racing with that, now and then reports a
    killed rank's status instead -- 9 / 137 (SIGKILL, ~1 run in 6 at 4 ranks
    here) or 1 with "Hangup (signal 1)" -- while the aborting rank's code is
    still in its MPI_Abort banner."""
    out = proc.stdout + proc.stderr
    if proc.returncode in (9, 137) or (proc.returncode == 1 and "Hangup" in out):
        assert "MPI_Abort(" in out and f", {code})" in out, out
    else:
        assert proc.returncode == code, out
