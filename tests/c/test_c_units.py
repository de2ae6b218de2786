"""Plain-C unit tests of core pieces that need no MPI, built with ASan+UBSan."""
import os
import shutil
import subprocess

import pytest

from launch import ROOT

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
                          "runtime/bcl_error.c"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout


@pytest.mark.serial_only
def test_saved_file_reader_reads_every_range_and_refuses_damage(tmp_path):
    proc = build_and_run(tmp_path, "test_savefile.c",
                         ["io/bcl_sv_read.c", "io/bcl_sv_format.c", "serial/bcl_msgpack.c",
                          "serial/bcl_hash.c", "runtime/bcl_error.c"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout
