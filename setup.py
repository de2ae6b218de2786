"""Build pybcl's C extension with the MPI compiler wrapper's flags.

The wrapper is $MPICC if set, else `mpicc` (or `mpicc.mpich`) on PATH, else
the `mpich` wheel's (_build/mpi_wrapper.py).  We ask it for its compile and
link flags (`-show`, MPICH; `--showme`, Open MPI) and hand them to
setuptools, so the extension links the same libmpi that mpi4py uses.
"""
import glob
import hashlib
import os
import shlex
import shutil
import subprocess
import sys

import numpy
from setuptools import Extension, setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build"))
import mpi_wrapper  # noqa: E402

HOW_TO_GET_MPI = """
pybcl needs an MPI-3 library with its C compiler wrapper (MPICH recommended).
  No system MPI:  pip install .   (pulls the `mpich` wheel from PyPI)
  Debian/Ubuntu:  sudo apt-get install mpich libmpich-dev
  then:           MPICC=mpicc.mpich pip install .
or point MPICC at your cluster's wrapper:  MPICC=/path/to/mpicc pip install .
"""


def find_mpicc():
    path = mpi_wrapper.find()
    if path:
        return path
    tried = os.environ.get("MPICC") or ", ".join(mpi_wrapper.NAMES + ("the mpich wheel",))
    sys.exit(f"error: no MPI compiler wrapper found (tried {tried})." + HOW_TO_GET_MPI)


def wrapper_flags(mpicc):
    for flag in ("-show", "--showme"):
        try:
            out = subprocess.run([mpicc, flag], check=True, capture_output=True,
                                 text=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        return shlex.split(out)[1:]          # drop the underlying compiler
    sys.exit(f"error: {mpicc} does not report its flags (-show/--showme)."
             + HOW_TO_GET_MPI)


def split_flags(flags):
    inc, libdirs, libs, compile_extra, link_extra = [], [], [], [], []
    for f in flags:
        if f.startswith("-I"):
            inc.append(f[2:])
        elif f.startswith("-L"):
            libdirs.append(f[2:])
        elif f.startswith("-l"):
            libs.append(f[2:])
        elif f.startswith("-Wl,"):
            link_extra.append(f)
        elif f in ("-c", "-o") or f.endswith((".c", ".o")):
            continue
        else:
            compile_extra.append(f)
    return inc, libdirs, libs, compile_extra, link_extra


mpicc = find_mpicc()
inc, libdirs, libs, mpi_cflags, mpi_ldflags = split_flags(wrapper_flags(mpicc))
print(f"pybcl: building with {mpicc}")
dependencies = ["numpy>=1.25", "mpi4py>=3.1"]
rpaths = [d for d in libdirs if os.path.isdir(d)]
wheel = mpi_wrapper.wheel_mpich(mpicc)
if wheel:
    # Built against the mpich wheel (maybe in pip's throw-away build
    # environment): at run time libmpi.so.12 is the one the same wheel puts
    # in <prefix>/lib of the environment pybcl is installed into, three levels
    # above <prefix>/lib/pythonX.Y/site-packages/pybcl/.
    version, _ = wheel
    dependencies.append(f"mpich>={version.split('.')[0]}")
    rpaths = ["$ORIGIN/../../..", os.path.join(sys.prefix, "lib")]
debug = os.environ.get("PYBCL_DEBUG_BUILD") == "1"
sanitize = os.environ.get("PYBCL_SANITIZE")          # e.g. "address,undefined"
cflags = ["-std=gnu11", "-pthread", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
          "-Wno-cast-function-type", "-Wno-unused-parameter", "-O0" if debug else "-O2", "-g"]
ldflags = ["-pthread"]
if sanitize:
    cflags += [f"-fsanitize={sanitize}", "-fno-omit-frame-pointer"]
    ldflags += [f"-fsanitize={sanitize}"]

# The C core's layers, bottom up (each may include only those before it), then
# the CPython binding on top.  Headers are included as "layer/name.h".
LAYERS = ("runtime", "comm", "serial", "containers", "io", "kernels", "binding")

core = Extension(
    "pybcl._core",
    sources=[src for layer in LAYERS for src in sorted(glob.glob(f"csrc/{layer}/*.c"))],
    depends=[h for layer in LAYERS for h in glob.glob(f"csrc/{layer}/*.h")]
    + glob.glob("csrc/binding/docstrings/*.h"),
    include_dirs=inc + [numpy.get_include(), "csrc"],
    library_dirs=libdirs,
    runtime_library_dirs=rpaths,
    libraries=libs + ["z"],          # zlib: gzipped FASTA/FASTQ (kernels/bcl_seqsrc.c)
    extra_compile_args=mpi_cflags + cflags,
    extra_link_args=mpi_ldflags + ldflags,
)

# One build directory per MPI wrapper and flags: pip builds in the source
# tree, and setuptools would otherwise relink objects compiled against
# another MPI's headers (nothing in `depends` changes when MPI does).
mpi_tag = hashlib.sha1(" ".join([mpicc] + inc + libdirs + libs).encode()).hexdigest()[:10]
setup(ext_modules=[core], install_requires=dependencies,
      options={"build": {"build_base": os.path.join("build", f"mpi-{mpi_tag}")}})
