"""The suite's per-test time limit (conftest.py): a test that hangs ends the
whole job, naming the test and printing every rank's Python stack, instead
of waiting for CI's limit.  Launches its own mpiexec (serial_only)."""
import re
import shutil
import textwrap
import time

import pytest

from launch import ROOT, job_env, run_python

HANGING_TEST = """
    import time
    import pybcl

    def test_quick():
        pybcl.barrier()

    def test_stuck_on_last_rank():
        if pybcl.rank() == pybcl.nprocs() - 1:
            while True:              # a hang in Python, the others wait in C
                time.sleep(0.05)
        pybcl.barrier()

    def test_never_reached():
        print("<after the stuck test>")
"""


@pytest.mark.serial_only
def test_hanging_test_ends_the_job_with_every_ranks_stack(tmp_path):
    nprocs, limit = 3, 4
    shutil.copy(f"{ROOT}/tests/conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_stuck.py").write_text(textwrap.dedent(HANGING_TEST))
    start = time.monotonic()
    proc = run_python(["-m", "pytest", "-q", "-s", "--with-mpi", "-p", "no:cacheprovider",
                       "--rootdir", str(tmp_path), str(tmp_path / "test_stuck.py")],
                      nprocs, timeout=180, env=job_env(PYBCL_TEST_TIME_LIMIT=limit))
    seconds = time.monotonic() - start
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    reports = re.findall(r"test_stuck\.py::test_stuck_on_last_rank still running after "
                         r"4 s on rank (\d+) of 3; its Python stacks follow ===\n"
                         r"(Thread 0x[0-9a-f]+ \(most recent call first\):\n(?:  File .*\n)+)",
                         out)
    assert sorted(int(r) for r, _ in reports) == list(range(nprocs)), out
    for rank, stack in reports:      # each rank's own stack, down to the test
        assert "in test_stuck_on_last_rank" in stack, (rank, out)
    # the stuck rank is in its loop, the others in the barrier after it
    lines = textwrap.dedent(HANGING_TEST).splitlines()
    loop = {i + 1 for i, text in enumerate(lines) if "while True" in text or "sleep" in text}
    barrier = max(i + 1 for i, text in enumerate(lines) if "pybcl.barrier()" in text)
    for rank, stack in reports:
        at = int(re.search(r'test_stuck\.py", line (\d+) in test_stuck_on_last_rank',
                           stack).group(1))
        assert at in (loop if int(rank) == nprocs - 1 else {barrier}), (rank, at, out)
    assert "ends the job (MPI_Abort) in test_stuck.py::test_stuck_on_last_rank" in out
    assert "<after the stuck test>" not in out
    # limit + staggered reports + grace, plus start-up; far below the job's timeout
    assert seconds < limit + nprocs * 0.25 + 10 + 60, seconds
