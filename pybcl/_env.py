"""Settings read from the environment before MPI starts.

MPICH reads its MPIR_CVAR_* variables when MPI is initialised, so anything
pybcl wants from MPICH must be in os.environ before `mpi4py.MPI` is imported.
We only ever *default* a variable: a value the user exported wins.
"""
import os

_SUFFIXES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
DEFAULT_SEGMENT_SIZE = 256 << 20


def parse_size(text: object, name: str) -> int:
    """'268435456', '256M', '1g', '512KiB' -> bytes; ValueError naming `name`."""
    s = str(text).strip().lower().removesuffix("ib").removesuffix("b")
    unit = s[-1:] if s[-1:] in _SUFFIXES and not s[-1:].isdigit() else ""
    number = s[: len(s) - len(unit)]
    try:
        value = int(float(number) * _SUFFIXES[unit])
    except (ValueError, OverflowError):       # 'abc', 'nan', 'inf'
        raise ValueError(f"{name}: cannot read {text!r} as a size in bytes") from None
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {text!r}")
    return value


def segment_size() -> int:
    raw = os.environ.get("PYBCL_SEGMENT_SIZE")
    return parse_size(raw, "PYBCL_SEGMENT_SIZE") if raw else DEFAULT_SEGMENT_SIZE


def transport() -> str:
    from . import _core       # the core's one list of names
    value = os.environ.get("PYBCL_TRANSPORT", "auto").strip().lower() or "auto"
    if value not in _core.TRANSPORTS:
        raise ValueError(f"PYBCL_TRANSPORT must be {', '.join(_core.TRANSPORTS[:-1])} or "
                         f"{_core.TRANSPORTS[-1]}, not {value!r}")
    return value


def async_progress(in_kernel: bool = False) -> int:
    """The progress thread's mode (csrc/runtime/bcl_runtime.h): 0 off, 1 on
    the rma transports (PYBCL_ASYNC_PROGRESS=1), 2 on every transport -- the
    default in an interactive kernel, whose ranks sit idle between cells
    (pybcl/_kernel.py); PYBCL_ASYNC_PROGRESS=0 turns it off there too."""
    raw = os.environ.get("PYBCL_ASYNC_PROGRESS", "").strip().lower()
    if raw and raw not in ("1", "yes", "true", "on"):
        return 0
    if in_kernel:
        return 2
    return 1 if raw else 0


DEFAULT_FINALIZE_TIMEOUT = 30.0


def finalize_timeout() -> float:
    """PYBCL_FINALIZE_TIMEOUT: seconds MPI's teardown may take at exit (0: no bound)."""
    raw = os.environ.get("PYBCL_FINALIZE_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_FINALIZE_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"PYBCL_FINALIZE_TIMEOUT must be a number of seconds, not {raw!r}") from None
    if not value >= 0 or value > 1e9:
        raise ValueError(f"PYBCL_FINALIZE_TIMEOUT must be between 0 and 1e9 seconds, got {raw!r}")
    return value


def set_mpi_defaults() -> None:
    """Defaults applied before MPI_Init and before NumPy loads its BLAS.

    One BLAS thread per rank: OpenBLAS otherwise starts a thread per core in
    every rank, and its idle threads spin, taking CPU from the MPI ranks that
    already fill the node (profiled: 11% of a 2-rank run's samples).  The
    user's own setting wins, and it only takes effect when pybcl is imported
    before NumPy.

    MPICH itself gets no defaults: docs/progress.md measured every MPICH/UCX knob
    we could find (async progress thread, polls-before-yield, UCX transports,
    binding) and none made oversubscribed runs faster; the C core's own
    yielding waits do.  PYBCL_ASYNC_PROGRESS starts pybcl's progress thread
    (bcl_runtime.c), not MPICH's, which was slower in every case.

    An MPI library with a known defect in what pybcl uses gets the setting
    that avoids it, from the C core, which asks the loaded library (today:
    OMPI_MCA_osc=^rdma on Open MPI 4.0.0-4.0.4 and 4.1.0-4.1.4, whose osc/rdma
    crashes in 64-bit compare-and-swap; csrc/runtime/bcl_ompi_osc.h).  If MPI
    is already up this is too late, and init refuses such a job instead."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from . import _core
    needed = _core.mpi_env_default()
    if needed:
        os.environ.setdefault(*needed)
