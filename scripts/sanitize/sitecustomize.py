"""Sanitizer runtimes for pybcl's own Python processes only.

scripts/run_sanitizers.sh puts this folder on PYTHONPATH and names the
ASan/UBSan runtimes in PYBCL_SANITIZER_PRELOAD, not in LD_PRELOAD: the
runtimes must be loaded first in a process that imports the sanitized C
extension, but a preload in the environment would also reach every program
the tests start (bcalm, bgzip, gcc, mpiexec), which would then run under
ASan too, slowly or not at all.

So each Python process re-executes itself once, at start-up (before MPI or
pybcl is loaded), with the runtimes in LD_PRELOAD, then puts LD_PRELOAD back
as it was: the Python processes it starts do the same, and other programs
start without the sanitizers.
"""
import os
import sys

PRELOAD = "PYBCL_SANITIZER_PRELOAD"      # the runtimes, ':'-separated
DONE = "PYBCL_SANITIZER_PID"             # the process (exec keeps its id) that has them
WAS = "PYBCL_SANITIZER_LD_PRELOAD_WAS"   # LD_PRELOAD before the re-exec


def _sanitize_this_process() -> None:
    wanted = os.environ.get(PRELOAD)
    if not wanted:
        return
    if os.environ.get(DONE) != str(os.getpid()):
        before = os.environ.get("LD_PRELOAD", "")
        env = dict(os.environ, LD_PRELOAD=":".join(filter(None, (wanted, before))))
        env.update({DONE: str(os.getpid()), WAS: before})
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    before = os.environ.pop(WAS, "")
    del os.environ[DONE]
    if before:
        os.environ["LD_PRELOAD"] = before
    else:
        os.environ.pop("LD_PRELOAD", None)


_sanitize_this_process()
