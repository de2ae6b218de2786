"""The job-wide exit policy: when one rank dies, the whole job ends.

Installed at `import pybcl` (not at init), so a failure before `pybcl.init()`
also ends the job.  Without it, one rank leaving early leaves its peers
blocked forever in the next collective (barrier, init, a constructor).

- An uncaught exception: the traceback is printed, then MPI_Abort(1).
- KeyboardInterrupt (Ctrl-C): one line instead of a traceback, MPI_Abort(130)
  (128 + SIGINT, what a shell reports for a Ctrl-C'd Python).
- `sys.exit(n)` with n != 0 (or a message): MPI_Abort(n).  `sys.exit(0)` /
  `sys.exit()` is a normal exit: every rank must still reach finalize.

Python calls no hook when SystemExit ends the interpreter, so `sys.exit`
(and the `exit`/`quit` builtins) are wrapped: it raises a SystemExit whose death we watch (weakref).  It dies
either in an `except SystemExit` handler (Python code is running: it was
caught, nothing to do) or in the interpreter's exit path, where no Python
frame runs any more: then the process is leaving with that code, MPI is
still up (atexit has not run) and we abort the job with it.

A bare `raise SystemExit(n)`, or a rank that simply reaches the end of its
program while the others still call collectives, is caught one level lower:
finalize announces the departure, and a peer waiting for it in a collective
fails with an error naming the rank (csrc/comm/bcl_depart.h), which ends the
job (exit code 1: the departed rank's own code is not known there).
"""
import builtins
import functools
import os
import sys
import threading
import time
import weakref
from types import ModuleType, TracebackType
from typing import Any, NoReturn, Optional

from . import _core

KEYBOARD_INTERRUPT_CODE = 130
# Before pybcl.init(), a rank that fails may need to initialise MPI only to
# abort (its peers wait in MPI_Init for it); if nobody answers, give up.
_ABORT_INIT_TIMEOUT_S = 10.0

# hydra forwards a rank's stdout/stderr asynchronously, and MPI_Abort tears
# the proxies down: under load a CI run lost the aborting rank's traceback
# entirely (the job ended with code 1 and no output).  A short pause after
# flushing lets the launcher forward what the rank wrote before the abort.
_ABORT_STDIO_GRACE_S = 0.5

_state: dict[str, Any] = {"installed": False, "watched": set()}


def _launched_size() -> int:
    """Ranks in this job according to the launcher's environment (1 if none)."""
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE"):
        value = os.environ.get(var, "")
        if value.isdigit():
            return int(value)
    return 1


def _world_for_abort() -> Optional[ModuleType]:
    """mpi4py's MPI module if MPI is up and the job has other ranks, else None.

    Before pybcl.init() MPI may not be initialised yet; when the launcher says
    there are other ranks, initialise it (they are waiting for us in
    MPI_Init), with a watchdog in case they never come."""
    mpi: Any = sys.modules.get("mpi4py.MPI")
    if mpi is None:
        if _launched_size() <= 1:
            return None
        watchdog = threading.Timer(_ABORT_INIT_TIMEOUT_S, os._exit, args=(1,))
        watchdog.daemon = True
        watchdog.start()
        try:
            from mpi4py import MPI as mpi
        except Exception:
            return None
        finally:
            watchdog.cancel()
    try:
        if not mpi.Is_initialized() or mpi.Is_finalized():
            return None
        return mpi if mpi.COMM_WORLD.Get_size() > 1 else None
    except Exception:
        return None


def abort_job(code: int, why: str) -> None:
    """End every rank of the job with exit status `code` (no-op on one rank)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    if _core.initialized():
        if _core.nprocs() == 1:
            return
        rank = _core.rank()
        sys.stderr.write(f"pybcl: {why} on rank {rank}; ending the job (exit code {code})\n")
        sys.stderr.flush()
        time.sleep(_ABORT_STDIO_GRACE_S)
        _core.abort(code)
    mpi = _world_for_abort()
    if mpi is None:
        return
    rank = mpi.COMM_WORLD.Get_rank()
    sys.stderr.write(f"pybcl: {why} on rank {rank}; ending the job (exit code {code})\n")
    sys.stderr.flush()
    time.sleep(_ABORT_STDIO_GRACE_S)
    mpi.COMM_WORLD.Abort(code)


def _excepthook(exc_type: type[BaseException], exc: BaseException,
                tb: Optional[TracebackType]) -> None:
    if issubclass(exc_type, KeyboardInterrupt):
        abort_job(KEYBOARD_INTERRUPT_CODE, "KeyboardInterrupt")
        sys.stderr.write("KeyboardInterrupt\n")
        return
    sys.__excepthook__(exc_type, exc, tb)
    abort_job(1, f"uncaught {exc_type.__name__}")


def _exit_code(arg: object) -> int:
    """The status Python exits with for SystemExit(arg)."""
    if arg is None:
        return 0
    if isinstance(arg, int):
        return arg & 0xFF          # what the OS keeps of exit(arg)
    return 1                       # Python prints the message and exits 1


class _WatchedExit(SystemExit):
    """A SystemExit from pybcl's sys.exit; weak-referenceable (see above)."""


def _exit_died(ref: "weakref.ref[_WatchedExit]", *, code: int) -> None:
    _state["watched"].discard(ref)
    try:
        sys._getframe(1)
        return          # Python code is running: the exit was caught
    except ValueError:
        pass
    abort_job(code, f"sys.exit({code})")


def _watched_exit(arg: object) -> _WatchedExit:
    exc = _WatchedExit(arg) if arg is not None else _WatchedExit()
    code = _exit_code(arg)
    if code != 0:
        # partial, not a lambda: no Python frame between weakref and _exit_died
        ref = weakref.ref(exc, functools.partial(_exit_died, code=code))
        _state["watched"].add(ref)
    return exc


def _sys_exit(status: object = None, /) -> NoReturn:
    """sys.exit, wrapped by pybcl: a non-zero status on one rank ends the job."""
    raise _watched_exit(status)    # no local name: no frame <-> exception cycle


class _Quitter:
    """The `exit`/`quit` builtins (site.Quitter), raising a watched SystemExit."""

    def __init__(self, original: Any) -> None:
        self._original = original

    def __repr__(self) -> str:
        return repr(self._original)

    def __call__(self, code: object = None) -> NoReturn:
        try:
            sys.stdin.close()          # what site.Quitter does before it raises
        except Exception:              # noqa: BLE001 -- as site.Quitter
            pass
        raise _watched_exit(code)


def install() -> None:
    """Install the hooks once (called by `import pybcl`)."""
    if _state["installed"]:
        return
    _state["installed"] = True
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _excepthook
    sys.exit = _sys_exit
    for name in ("exit", "quit"):
        original = getattr(builtins, name, None)
        if type(original).__name__ == "Quitter":       # site's, not a user's
            setattr(builtins, name, _Quitter(original))
