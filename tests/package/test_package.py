"""The package as a user or packager meets it: the repository carries what
its tests and benchmarks read, an unbuilt checkout says what to do in one
line, `python -m pybcl --version`, one MPI library per process, the
distribution metadata."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import pybcl
from pybcl import _mpimatch
from launch import ROOT, job_env, mpiexec_argv, quiet_args, run_python

# folders whose files a test, a benchmark or CI reads or runs
CARRIED = ("tests", "scripts", "benchmarks", "pybcl", ".ci", "examples", "notebooks", "fuzz",
           "_build")
# recorded measurements name the machine they were taken on; not read by anything
RECORDS = ("results",)
TEXT = (".py", ".sh", ".md", ".c", ".h", ".toml", ".cfg", ".ipynb", ".txt", ".in", "")
# a folder beside the checkout, or an absolute path of this workplace
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "shared/" + "(data|tools)", "/" + "work/",
                               "netns-" + "hosts", "sim" + "reads"]))


def _carried_files():
    for top in CARRIED:
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in RECORDS and not d.startswith(".")
                       and d != "__pycache__"]
            for name in files:
                if os.path.splitext(name)[1] in TEXT:
                    yield os.path.join(folder, name)


def _lines(path):
    """A file's lines; of a notebook, its cells' sources only (outputs record
    where it last ran, and are not read by anything)."""
    if path.endswith(".ipynb"):
        with open(path) as fh:
            cells = json.load(fh)["cells"]
        return [line for c in cells for line in "".join(c["source"]).splitlines()]
    with open(path, errors="replace") as fh:
        return fh.read().splitlines()


def test_repository_refers_to_nothing_outside_itself():
    bad = []
    for path in _carried_files():
        for no, line in enumerate(_lines(path), 1):
            if OUTSIDE.search(line):
                bad.append(f"{os.path.relpath(path, ROOT)}:{no}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)


def test_test_and_benchmark_data_are_carried_with_provenance():
    for rel in ("tests/data/reads_1.fq.gz", "tests/data/NC_008253.fna.gz",
                "pybcl/data/lambda_virus.fa.gz"):
        path = os.path.join(ROOT, rel)
        assert os.path.getsize(path) > 10_000, rel
        with open(os.path.join(os.path.dirname(path), "README.md")) as fh:
            readme = fh.read()
        assert os.path.basename(rel) in readme and "SHA-256" in readme and "License" in readme


@pytest.mark.serial_only
def test_unbuilt_checkout_stops_with_one_line(tmp_path):
    """A copy of the source tree without the built extension: `import pybcl`
    there fails at once with one line saying what to do."""
    tree = tmp_path / "checkout"
    shutil.copytree(os.path.join(ROOT, "pybcl"), tree / "pybcl",
                    ignore=shutil.ignore_patterns("_core*.so", "__pycache__"))
    (tree / "csrc").mkdir()
    shutil.copy(os.path.join(ROOT, "setup.py"), tree / "setup.py")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    # -S: no site-packages, where an editable install elsewhere could supply _core
    proc = subprocess.run([sys.executable, "-S", "-c", "import pybcl"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=60)
    last = proc.stderr.strip().splitlines()[-1]
    assert proc.returncode == 1, proc.stderr
    assert last.startswith("ImportError: pybcl is being imported from its source tree"), last
    assert str(tree) in last and "run from another folder" in last
    assert "build_ext --inplace" in last and "partially initialized" not in proc.stderr
    # Run as a program there, at one rank and under mpiexec: that line once, alone.
    want = (f"python -m pybcl.apps.kmer: error: pybcl is being imported from its source "
            f"tree {tree}, where the C extension is not built")
    for launch in ([], mpiexec_argv(2, quiet_args())):
        proc = subprocess.run([*launch, sys.executable, "-S", "-m", "pybcl.apps.kmer", "--demo"],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and not proc.stdout, proc.stdout + proc.stderr
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(want), proc.stderr


@pytest.mark.serial_only
def test_python_m_pybcl_version_prints_the_version():
    proc = subprocess.run([sys.executable, "-m", "pybcl", "--version"], env=job_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"pybcl {pybcl.__version__}"


def test_mpi_mismatch_message_names_both_libraries_and_the_fix():
    maps = ("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2\n"
            "7f02-7f03 r-xp 0 08:01 2 /opt/wheel/lib/libmpi.so.12\n"
            "7f04-7f05 r-xp 0 08:01 3 /usr/lib/x86_64-linux-gnu/libmpi_cxx.so.40\n"
            "7f06-7f07 rw-p 0 00:00 0 [heap]\n")
    libs = _mpimatch.mpi_libraries(maps)
    assert libs == ["/opt/wheel/lib/libmpi.so.12", "/usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2"]
    assert _mpimatch.mismatch_message(libs[1:], libs[1:]) is None
    msg = _mpimatch.mismatch_message(libs[1:], libs)
    assert "\n" not in msg
    assert msg.startswith(f"pybcl's C core uses {libs[1]} but mpi4py uses {libs[0]}")
    assert "--no-binary=mpi4py" in msg and "MPICC" in msg


# Debian's Open MPI and MPICH C libraries (the image has both)
OTHER_MPIS = ("/usr/lib/x86_64-linux-gnu/libmpi.so.40", "/usr/lib/x86_64-linux-gnu/libmpich.so.12")


def _is_elf(path):
    """A real shared library (not, say, the empty file that
    scripts/without_system_mpi.sh lays over a system MPI)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def _another_mpi():
    """An MPI C library on this machine other than the one pybcl uses, or None."""
    with open(_mpimatch.MAPS) as fh:
        ours = _mpimatch.mpi_libraries(fh.read())
    for path in OTHER_MPIS:
        if _is_elf(path) and os.path.realpath(path) not in ours:
            return path
    return None


@pytest.mark.serial_only
@pytest.mark.skipif(_another_mpi() is None, reason="needs a second MPI library installed")
def test_second_mpi_library_in_the_process_stops_init_with_the_fix(tmp_path):
    """pybcl loaded, then another MPI library mapped into the process (as a
    binary mpi4py wheel built for another MPI would): init refuses with one
    line naming both, before any MPI call could mix them up."""
    other = _another_mpi()
    script = tmp_path / "mixed.py"
    script.write_text(f"import ctypes, pybcl\nctypes.CDLL({other!r})\npybcl.init()\n")
    proc = subprocess.run([sys.executable, str(script)], env=job_env(),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "ImportError: pybcl's C core uses " in proc.stderr, proc.stderr
    assert os.path.realpath(other) in proc.stderr and "--no-binary=mpi4py" in proc.stderr


def test_mpi4py_and_pybcl_share_one_mpi_library():
    with open(_mpimatch.MAPS) as fh:
        libs = _mpimatch.mpi_libraries(fh.read())
    assert len(libs) == 1, libs


def test_distribution_metadata_states_license_and_supported_pythons():
    """pyproject.toml: an SPDX license with its file, a distribution name that
    is not the other project's `pybcl`, and supported Pythons that match
    the classifiers and the oldest/newest that CI installs into."""
    tomllib = pytest.importorskip("tomllib")          # Python >= 3.11
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    with open(os.path.join(ROOT, "LICENSE")) as fh:
        assert fh.read().startswith("BSD 3-Clause License")
    assert project["name"] == "pybcl-mpi"
    oldest = project["requires-python"].removeprefix(">=")
    listed = sorted((c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
                     if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)),
                    key=lambda v: int(v.split(".")[1]))
    assert listed[0] == oldest == "3.10"
    with open(os.path.join(ROOT, "scripts", "check_dist.sh")) as fh:
        assert f'PYBCL_DIST_PYTHONS:-"{listed[0]} {listed[-1]}"' in fh.read()
    assert os.path.exists(os.path.join(ROOT, "CHANGELOG.md"))
