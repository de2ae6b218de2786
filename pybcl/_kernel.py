"""pybcl in an interactive kernel: one IPython kernel per rank, as
ipyparallel's MPI engines run (`ipcluster start -n 4 --engines=mpi`).

A script's uncaught exception ends the job (_abort); a kernel never calls
sys.excepthook, so there an exception ends only the cell, on the rank that
raised, and its peers may wait for it in a collective call of the same cell.
So each failed cell (an `execute` -- `%%px`, `view.execute` -- or an
`apply`) is announced to the peers: their wait in a collective call this
rank will not join fails with an error naming it, and the ranks get back in
step at their next collective call (csrc/comm/bcl_resync.h).  KeyboardInterrupt
(`%%px` interrupted, `client.send_signal(signal.SIGINT)`) is one such failure:
it ends the cell on the interrupted ranks, and the engines live on.

Engines also sit idle between cells, outside MPI: on the rma transports a
peer's operation on an idle engine's memory would wait for its next cell,
so init starts pybcl's progress thread there by default
(PYBCL_ASYNC_PROGRESS=0 turns it off).
"""
import inspect
import sys
from typing import Any, Optional

from . import _core

_state: dict[str, Any] = {"kernel": None}


def _shell() -> Optional[Any]:
    """The IPython shell of the kernel this process runs, or None (a script,
    a terminal IPython: no kernel to live on after an exception)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    shell = ipython.get_ipython()
    return shell if getattr(shell, "kernel", None) is not None else None


def in_kernel() -> bool:
    """Whether this process is an interactive kernel (an ipyparallel engine,
    a Jupyter kernel)."""
    return _shell() is not None


def _announce_if_failed(reply: Any) -> None:
    if isinstance(reply, dict) and reply.get("status") == "error":
        _core._cell_failed(f"{reply.get('ename') or 'an exception'} on that rank")


def _wrap(kernel: Any) -> None:
    """The kernel's two ways of running code, each wrapped: `execute` (a
    cell, `%%px`, `view.execute`: ipykernel's do_execute, a coroutine) and
    ipyparallel's `apply` (do_apply).  Their replies say whether the code
    raised, whatever IPython's cell events (which silent executions skip)."""
    execute = kernel.do_execute

    async def do_execute(*args: Any, **kwargs: Any) -> Any:
        _core._cell_started()
        reply = execute(*args, **kwargs)
        if inspect.isawaitable(reply):
            reply = await reply
        _announce_if_failed(reply)
        return reply

    kernel.do_execute = do_execute
    apply = getattr(kernel, "do_apply", None)
    if apply is None:
        return

    def do_apply(*args: Any, **kwargs: Any) -> Any:
        _core._cell_started()
        reply, result = apply(*args, **kwargs)
        _announce_if_failed(reply)
        return reply, result

    kernel.do_apply = do_apply


def install() -> None:
    """Wrap the kernel's cells, once (called by `import pybcl`; no-op
    outside a kernel)."""
    shell = _shell()
    if shell is None or _state["kernel"] is shell.kernel:
        return
    _state["kernel"] = shell.kernel
    _wrap(shell.kernel)
