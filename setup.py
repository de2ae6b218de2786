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
import sysconfig

import numpy
from setuptools import Extension, setup
from setuptools.command.build_clib import build_clib
from setuptools.command.build_ext import build_ext
from setuptools.modified import newer_group

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
# the CPython binding on top: pybcl._core, the library.  The app kernels and
# their glue are a second extension, pybcl.apps._kernels, which calls _core
# only through its C API (csrc/binding/capi.h).  Headers are included as
# "layer/name.h" (or "layer/folder/name.h" for a container kept in a folder
# of its own).
CORE_LAYERS = ("runtime", "comm", "serial", "containers", "io", "binding")
APP_LAYERS = ("kernels", "apps")
# What both extensions link, compiled once into a static library: the
# binding's argument, conversion and error helpers and the plain-C pieces
# they and the kernels use (none of them calls into the rest of _core).
SHARED_LIB = "bclpy_shared"
SHARED = ["csrc/runtime/bcl_error.c", "csrc/serial/bcl_hash.c", "csrc/serial/bcl_hll.c",
          "csrc/binding/args.c", "csrc/binding/cast.c", "csrc/binding/convert.c",
          "csrc/binding/errors.c", "csrc/binding/modinit.c"]


def layer_files(layers, ext):
    return [f for layer in layers
            for f in sorted(glob.glob(f"csrc/{layer}/**/*.{ext}", recursive=True))]


HEADERS = layer_files(CORE_LAYERS + APP_LAYERS, "h")
include_dirs = inc + [numpy.get_include(), "csrc"]
python_includes = sorted({sysconfig.get_paths()[k] for k in ("include", "platinclude")})


def extension(name, layers, extra_libs=()):
    return Extension(
        name,
        sources=[f for f in layer_files(layers, "c") if f not in SHARED],
        depends=HEADERS + SHARED,            # the shared library's sources relink it
        include_dirs=include_dirs,
        library_dirs=libdirs,
        runtime_library_dirs=rpaths,
        libraries=libs + list(extra_libs),
        extra_compile_args=mpi_cflags + cflags,
        extra_link_args=mpi_ldflags + ldflags,
    )


core = extension("pybcl._core", CORE_LAYERS)
# zlib: gzipped FASTA/FASTQ (kernels/bcl_seqsrc.c)
kernels = extension("pybcl.apps._kernels", APP_LAYERS, ["z"])


class BuildSharedLib(build_clib):
    """build_clib that leaves an up-to-date library alone (setuptools' always
    recompiles it, which would relink both extensions on every build)."""

    def build_libraries(self, libraries):
        for name, info in libraries:
            target = self.compiler.library_filename(name, output_dir=self.build_clib)
            if self.force or newer_group(info["sources"] + HEADERS, target):
                super().build_libraries([(name, info)])


class BuildExt(build_ext):
    """build_ext that builds the shared library first (`setup.py build_ext
    --inplace` alone, as setup_env.sh and the docs run it, skips build_clib)."""

    def run(self):
        self.run_command("build_clib")
        super().run()


# One build directory per MPI wrapper and flags: pip builds in the source
# tree, and setuptools would otherwise relink objects compiled against
# another MPI's headers (nothing in `depends` changes when MPI does).
mpi_tag = hashlib.sha1(" ".join([mpicc] + inc + libdirs + libs).encode()).hexdigest()[:10]
setup(ext_modules=[core, kernels], install_requires=dependencies,
      libraries=[(SHARED_LIB, {"sources": SHARED, "cflags": mpi_cflags + cflags,
                               # build_ext adds Python's headers itself; build_clib not
                               "include_dirs": include_dirs + python_includes})],
      cmdclass={"build_clib": BuildSharedLib, "build_ext": BuildExt},
      options={"build": {"build_base": os.path.join("build", f"mpi-{mpi_tag}")}})
