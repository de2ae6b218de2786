"""Which MPI launcher and compiler the benchmarks use.

pybcl is built against MPICH here, and Debian's Open MPI packages (installed
by the openmpi test pass, or by python3-mpi4py) re-point the plain `mpiexec`
and `mpicc` at Open MPI.  So: $MPIEXEC / $MPICC if set, else the suffixed
MPICH names, else the plain ones (e.g. the `mpich` wheel's bin/)."""
import os
import shutil


def _pick(env_var, suffixed, plain):
    return os.environ.get(env_var) or shutil.which(suffixed) or shutil.which(plain) or plain


def mpiexec():
    return _pick("MPIEXEC", "mpiexec.mpich", "mpiexec")


def mpicc():
    return _pick("MPICC", "mpicc.mpich", "mpicc")
