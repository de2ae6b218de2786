"""Find the MPI C compiler wrapper pybcl is built with, and what it links.

Order: `$MPICC` (clusters: the system or module MPI), then `mpicc` /
`mpicc.mpich` on PATH, then the `mpicc` of the `mpich` wheel (PyPI) installed
in this Python environment or in pip's isolated build environment.  A build
against the wheel also has to find the wheel's `libmpi.so.12` at run time,
and must keep the `mpich` wheel installed: `wheel_mpich()` tells setup.py so.
Shared by setup.py and the in-tree build backend (which asks pip for the
`mpich` wheel when no wrapper is found at all).
"""
import os
import shutil
import sys

NAMES = ("mpicc", "mpicc.mpich")


def _in_prefix(prefix):
    path = os.path.join(prefix, "bin", "mpicc")
    return path if os.access(path, os.X_OK) else None


def find():
    """Path of the wrapper to build with, or None when there is none yet."""
    wanted = os.environ.get("MPICC")
    if wanted:
        return shutil.which(wanted)
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return _in_prefix(sys.prefix)


def wheel_mpich(mpicc):
    """(version, prefix) if `mpicc` belongs to an installed `mpich` wheel."""
    try:
        from importlib import metadata
        dist = metadata.distribution("mpich")
    except Exception:          # no wheel, or no importlib.metadata
        return None
    for f in dist.files or ():
        if f.name == "mpicc" and f.parent.name == "bin":
            here = os.path.realpath(str(f.locate()))
            if here == os.path.realpath(mpicc):
                return dist.version, os.path.dirname(os.path.dirname(here))
    return None
