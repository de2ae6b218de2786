"""ipyparallel MPI engines for the notebooks and the engine tests.

    with engine_cluster.ipython_dir() as env:   # IPYTHONDIR, mpiexec chosen
        ...start engines (ipp.Cluster(engines="mpi", n=4)) under env...

Inside, `ipp.Cluster(engines="mpi")` launches its engines with the same
mpiexec as the suite's own jobs (PYBCL_TEST_MPIEXEC, default
`mpiexec.mpich`: first on PATH as `mpiexec`), with a fresh IPYTHONDIR, and
the engines import the pybcl of this tree.  On the way out every process that
started under that IPYTHONDIR -- controller, mpiexec, engines, their nannies
-- is stopped, whatever the notebook or test did, so no engine outlives it.
"""
import contextlib
import os
import shlex
import shutil
import signal
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "PYBCL_ENGINE_CLUSTER"        # in the environment of everything started


def mpiexec():
    wanted = os.environ.get("PYBCL_TEST_MPIEXEC")
    if wanted:
        return shutil.which(wanted) or wanted
    return shutil.which("mpiexec.mpich") or shutil.which("mpiexec") or "mpiexec"


def _ours(where):
    """Pids of the live processes started under IPYTHONDIR `where`."""
    needle = f"{MARK}={where}".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    pids.append(int(name))
        except OSError:
            pass
    return pids


def stop_all(where, grace=10.0):
    """SIGTERM every process started under `where`, SIGKILL what is left
    after `grace` seconds; the pids that had to be killed."""
    killed = []
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        pids = _ours(where)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        if sig == signal.SIGKILL:
            killed = pids
        deadline = time.monotonic() + wait
        while _ours(where) and time.monotonic() < deadline:
            time.sleep(0.2)
    return killed


@contextlib.contextmanager
def ipython_dir(pythonpath=ROOT):
    """An environment (dict) in which ipyparallel starts MPI engines with
    this suite's mpiexec, importing pybcl from `pythonpath`; everything
    started under it is stopped on the way out."""
    where = tempfile.mkdtemp(prefix="pybcl_ipp_")
    # ipyparallel's MPI launcher runs `mpiexec` from PATH (a kernel does not
    # read ipcluster_config.py): this one is the suite's
    shims = os.path.join(where, "bin")
    os.makedirs(shims)
    shim = os.path.join(shims, "mpiexec")
    with open(shim, "w") as fh:        # not a symlink: hydra finds its proxy beside argv[0]
        fh.write(f'#!/bin/sh\nexec {shlex.quote(mpiexec())} "$@"\n')
    os.chmod(shim, 0o755)
    env = dict(os.environ, IPYTHONDIR=where, **{MARK: where})
    env["PATH"] = shims + os.pathsep + os.environ.get("PATH", "")
    env["PYTHONPATH"] = pythonpath + os.pathsep + os.environ.get("PYTHONPATH", "")
    try:
        yield env
    finally:
        stop_all(where)
        shutil.rmtree(where, ignore_errors=True)
