"""Plain-C unit tests of core pieces: those that need no MPI built with
ASan+UBSan, and the core with MPI where a test must reach inside the runtime
(built with the launcher's MPI compiler, run under its mpiexec)."""
import glob
import os
import shutil
import subprocess

import pytest

from launch import ROOT, mpicc, mpiexec_argv

CC = shutil.which("gcc") or shutil.which("cc")


def build_and_run(tmp_path, test_source, core_sources):
    exe = tmp_path / "unit"
    cmd = [CC, "-std=gnu11", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
           "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           "-fno-omit-frame-pointer", "-I", os.path.join(ROOT, "csrc"), "-o", str(exe),
           os.path.join(ROOT, "tests", "c", test_source)]
    cmd += [os.path.join(ROOT, "csrc", s) for s in core_sources] + ["-lm"]
    subprocess.run(cmd, check=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1")
    return subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.serial_only
def test_allocator_model_check(tmp_path):
    proc = build_and_run(tmp_path, "test_alloc.c", ["runtime/bcl_alloc.c", "runtime/bcl_error.c"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout


@pytest.mark.serial_only
def test_kmer_text_kernels_stay_within_their_bounds(tmp_path):
    proc = build_and_run(tmp_path, "test_kmer_text.c",
                         ["kernels/bcl_kmer_text.c", "kernels/bcl_kmer.c",
                          "kernels/bcl_readsim.c", "kernels/bcl_pcg.c",
                          "serial/bcl_hll.c", "runtime/bcl_error.c"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout


def core_sources(*layers):
    """Every .c file of the core's layers (csrc/<layer>/, folders included)."""
    return [f for layer in layers
            for f in sorted(glob.glob(os.path.join(ROOT, "csrc", layer, "**", "*.c"),
                                      recursive=True))]


@pytest.mark.serial_only
@pytest.mark.skipif(mpicc() is None, reason="no MPI C compiler")
def test_containers_of_an_earlier_runtime_stay_stale_at_a_reused_address(tmp_path):
    exe = tmp_path / "epoch"
    sources = core_sources("runtime", "comm", "serial") + [
        os.path.join(ROOT, "csrc", "containers", f)
        for f in ("bcl_array.c", "bcl_array_update.c", "bcl_bloom.c")]
    subprocess.run([mpicc(), "-std=gnu11", "-O1", "-g", "-Wall", "-Werror", "-pthread",
                    "-I", os.path.join(ROOT, "csrc"), "-o", str(exe),
                    os.path.join(ROOT, "tests", "c", "test_epoch.c"), *sources, "-lm"],
                   check=True, timeout=600)
    proc = subprocess.run(mpiexec_argv(2) + [str(exe)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.serial_only
def test_saved_file_reader_reads_every_range_and_refuses_damage(tmp_path):
    proc = build_and_run(tmp_path, "test_savefile.c",
                         ["io/bcl_sv_read.c", "io/bcl_sv_format.c", "serial/bcl_msgpack.c",
                          "serial/bcl_hash.c", "runtime/bcl_error.c"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout
