"""One way for tests to launch their own MPI jobs.

Tests marked `serial_only` start `mpiexec` themselves (abort behaviour, init
variants, the apps' command lines).  They all go through `mpiexec_argv` so a
pass of the suite can point every such job at the same launcher and hosts as
the pass itself: `PYBCL_TEST_MPIEXEC` names the mpiexec (default
`mpiexec.mpich`, else `mpiexec`), and `PYBCL_TEST_MPIEXEC_ARGS` adds launcher
arguments, e.g. for the network-namespace hosts of the multi-host pass
(`-launcher ssh -launcher-exec .../nsexec.sh -hosts ...`).
"""
import functools
import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(name):
    """scripts/NAME.py as a module, for the tests that call into it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "scripts",
                                                                      name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def mpiexec():
    """Path of the mpiexec the suite launches its own jobs with."""
    wanted = os.environ.get("PYBCL_TEST_MPIEXEC")
    if wanted:
        return shutil.which(wanted) or wanted
    return shutil.which("mpiexec.mpich") or shutil.which("mpiexec")


@functools.lru_cache(maxsize=None)
def launcher_family():
    """'hydra' (MPICH's mpiexec), 'openmpi' (Open MPI's mpirun/mpiexec) or
    'unknown': tests whose checks depend on how the launcher reports a
    job (signals, exit codes, its own messages) ask this."""
    try:
        # os.environ: not what MPI's start-up in this process added (see job_env)
        out = subprocess.run([mpiexec(), "--version"], capture_output=True, text=True,
                             timeout=30, env=dict(os.environ))
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    text = out.stdout + out.stderr
    if "HYDRA" in text:
        return "hydra"
    if "Open MPI" in text or "OpenRTE" in text:
        return "openmpi"
    return "unknown"


def quiet_args():
    """Launcher arguments that leave a job's stderr to the job: Open MPI's
    mpirun otherwise adds a multi-line report of its own whenever a rank
    exits non-zero (hydra adds nothing)."""
    return ["--quiet"] if launcher_family() == "openmpi" else []


def forwards_sigint():
    """Does Ctrl-C at the launcher reach the ranks as SIGINT (KeyboardInterrupt
    in Python)?  Hydra forwards it.  Open MPI's mpirun cannot (it refuses
    SIGINT in ess_base_forward_signals): it ends the job itself, sending the
    ranks SIGTERM and then SIGKILL."""
    return launcher_family() != "openmpi"


# How each launcher reports a rank that left without MPI_Finalize (exit status
# 0 or not): hydra's "BAD TERMINATION" banner (when it sees it in time) and
# Open MPI's "... exiting improperly" (always).
ABNORMAL_EXIT_REPORTS = ("BAD TERMINATION", "exiting improperly")


def mpicc():
    """The MPI C compiler of the library the launcher runs: PYBCL_TEST_MPICC,
    else the `mpicc` beside the launcher with its suffix (mpiexec.openmpi ->
    mpicc.openmpi, a venv's mpiexec -> that venv's mpicc), else `mpicc`.
    A program built for another MPI than the launcher's does not start."""
    wanted = os.environ.get("PYBCL_TEST_MPICC")
    if wanted:
        return shutil.which(wanted) or wanted
    launcher = mpiexec()
    if launcher:
        folder, name = os.path.split(launcher)
        for stem in ("mpiexec", "mpirun"):
            if name.startswith(stem):
                beside = os.path.join(folder, "mpicc" + name[len(stem):])
                if os.access(beside, os.X_OK):
                    return beside
    return shutil.which("mpicc")


def mpiexec_argv(nprocs, extra=()):
    """argv prefix that starts `nprocs` ranks with this pass's launcher."""
    args = shlex.split(os.environ.get("PYBCL_TEST_MPIEXEC_ARGS", ""))
    return [mpiexec(), *args, *extra, "-n", str(nprocs)]


def job_env(**overrides):
    """The environment for a launched job: the pybcl this process imported
    (a checkout built in place, or an installed package) comes first.
    Always pass one: a child that inherits this process's C environment also
    gets what MPI's own start-up here added (Open MPI's singleton init sets
    PMIX_* and OMPI_MCA_ess=singleton, and a child mpirun then fails with no
    message); os.environ holds only what Python started with and set."""
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


def run_app(args, nprocs=1, timeout=180):
    """run_python for an app's command line, quiet: the app's stderr alone,
    whatever the launcher (the CLI tests count its lines)."""
    return run_python(args, nprocs, timeout=timeout, extra=quiet_args())


def run_app_json(tmp_path, args, nprocs, passed):
    """run_app with `--json FILE` added, checked: it exited 0 and printed
    `passed`; (its stdout, the JSON it wrote)."""
    out = tmp_path / "app.json"
    r = run_app(args + ["--json", str(out)], nprocs)
    assert r.returncode == 0 and passed in r.stdout, r.stdout + r.stderr
    return r.stdout, json.loads(out.read_text())


def run_script(tmp_path, body, nprocs=2, timeout=60, env=None):
    """Write `body` (dedented) to a script, run it; (CompletedProcess, seconds)."""
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(body))
    start = time.monotonic()
    proc = run_python([str(script)], nprocs, timeout=timeout, env=env)
    return proc, time.monotonic() - start


def each_transport(transports=("shm", "rma", "rma-node"), sizes=(2, 4)):
    """Mark a test that launches its own job (serial_only) to run once per
    transport and job size; it takes `transport` and `nprocs`."""
    def mark(test):
        test = pytest.mark.parametrize("nprocs", list(sizes))(test)
        test = pytest.mark.parametrize("transport", list(transports))(test)
        return pytest.mark.serial_only(test)
    return mark


def run_ok(tmp_path, body, nprocs, timeout=60, env=None):
    """run_script for a job whose every rank ends by printing "<ok RANK>":
    check it exited 0 with all of them; (output, seconds)."""
    proc, seconds = run_script(tmp_path, body, nprocs=nprocs, timeout=timeout, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert proc.stdout.count("<ok ") == nprocs, out
    return out, seconds


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


def wait_for(predicate, seconds, what):
    """Poll predicate() every millisecond until it is true; AssertionError
    naming `what` after `seconds` (a job's file appearing, say)."""
    end = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"no {what} within {seconds} s")
        time.sleep(0.001)


def run_killed(argv, kill, env=None, timeout=120):
    """Start the job `argv`, call kill(job) (it waits for its moment and kills
    a rank), wait for the job to end: (exit status, output).  Should anything
    fail on the way, the launcher is killed and waited for."""
    job = subprocess.Popen(argv, env=env or job_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    try:
        kill(job)
        out, _ = job.communicate(timeout=timeout)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    return job.returncode, out
