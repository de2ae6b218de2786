"""setuptools' build backend, plus the `mpich` wheel when no MPI is installed.

`pip install .` on a machine with no MPI compiler wrapper (no `$MPICC`, no
`mpicc`) asks pip for the `mpich` wheel from PyPI as a build requirement and
builds against its `mpicc`; everything else is setuptools.build_meta.
"""
from setuptools.build_meta import *  # noqa: F401,F403  (the PEP 517 hooks)

import mpi_wrapper


def _mpi_requires():
    return [] if mpi_wrapper.find() else ["mpich"]


# setuptools' own versions of these hooks run setup.py, which stops when it
# finds no MPI; pybcl declares no setup_requires, so [build-system] requires
# (installed by pip already) plus the wheel is the whole answer.
def get_requires_for_build_wheel(config_settings=None):
    return _mpi_requires()


def get_requires_for_build_editable(config_settings=None):
    return _mpi_requires()
