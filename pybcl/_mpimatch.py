"""Do pybcl's C core and mpi4py use one MPI library?

pybcl's `_core` is linked against the MPI it was built with; mpi4py against
whatever MPI *it* was built with (or, for a binary wheel, the one it finds
at run time).  Two different MPI libraries in one process (say Debian's
MPICH under pybcl and Open MPI, or the `mpich` wheel, under mpi4py) each keep
their own state: the job then fails late and obscurely (version warnings,
"Fatal error in internal_Finalize").  So before pybcl hands mpi4py's
communicator to the core, it checks which MPI shared libraries the process
has mapped (Linux: /proc/self/maps) and stops with one line naming both
libraries and the command that rebuilds mpi4py against pybcl's MPI.
Elsewhere (no /proc) nothing is checked.
"""
import os
import re
from typing import Iterable, Optional

# the C libraries of MPICH (libmpich, or libmpi.so.12 in its wheel and many
# derivatives) and Open MPI (libmpi.so.40); not their Fortran/C++ bindings
_MPI_LIB = re.compile(r"^lib(mpi|mpich)\.so(\.\d+)*$")
MAPS = "/proc/self/maps"

REBUILD = ("python -m pip install --force-reinstall --no-cache-dir --no-binary=mpi4py mpi4py"
           " (with MPICC set to the mpicc of pybcl's MPI)")


def mpi_libraries(maps_text: str) -> list[str]:
    """The distinct MPI C libraries (real paths, sorted) in a /proc/PID/maps text."""
    found = set()
    for line in maps_text.splitlines():
        if "libmpi" not in line:         # nearly every line: skip the split
            continue
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/"):
            path = parts[5].strip()
            if _MPI_LIB.match(os.path.basename(path)):
                found.add(os.path.realpath(path))
    return sorted(found)


def _read_maps() -> Optional[str]:
    try:
        with open(MAPS) as fh:
            return fh.read()
    except OSError:
        return None


def mismatch_message(before: Iterable[str], after: Iterable[str]) -> Optional[str]:
    """None when one MPI library is loaded; else the one-line complaint.

    before: the MPI libraries mapped once pybcl's core was loaded (pybcl's,
    unless mpi4py was imported first); after: those mapped once mpi4py.MPI
    was imported too."""
    after = sorted(set(after))
    if len(after) < 2:
        return None
    ours = sorted(set(before))
    theirs = [p for p in after if p not in ours]
    if len(ours) == 1 and theirs:
        which = f"pybcl's C core uses {ours[0]} but mpi4py uses {', '.join(theirs)}"
    else:
        which = f"pybcl and mpi4py load different MPI libraries ({', '.join(after)})"
    return f"{which}: one process cannot use two MPIs; rebuild mpi4py: {REBUILD}"


_AT_IMPORT: dict[str, Optional[list[str]]] = {"libs": None}


def remember_core_libraries() -> None:
    """Called once `_core` is imported: note the MPI libraries mapped now."""
    text = _read_maps()
    _AT_IMPORT["libs"] = mpi_libraries(text) if text is not None else None


def check() -> None:
    """Raise ImportError (one line, with the fix) if two MPI libraries are mapped."""
    text = _read_maps()
    if text is None:
        return
    before = _AT_IMPORT["libs"]
    msg = mismatch_message(before or [], mpi_libraries(text))
    if msg:
        raise ImportError(msg)
