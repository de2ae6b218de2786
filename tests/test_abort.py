"""An uncaught exception on one rank ends the whole job, with its traceback.

These tests launch their own `mpiexec`, so they run in the one-rank pass of
the suite only (a nested mpiexec inside an MPI job is not allowed)."""
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

MPIEXEC = shutil.which("mpiexec.mpich") or shutil.which("mpiexec")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_job(tmp_path, body, nprocs=2, timeout=60):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.monotonic()
    proc = subprocess.run([MPIEXEC, "-n", str(nprocs), sys.executable, str(script)],
                          capture_output=True, text=True, timeout=timeout, env=env)
    return proc, time.monotonic() - start


@pytest.mark.serial_only
def test_exception_on_one_rank_aborts_the_job(tmp_path):
    proc, seconds = run_job(tmp_path, """
        import pybcl
        pybcl.init()
        if pybcl.rank() == 1:
            raise RuntimeError("boom on rank one")
        pybcl.barrier()          # rank 0 would wait here forever without the abort
        print("rank 0 passed the barrier")
    """)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "RuntimeError: boom on rank one" in out
    assert "Traceback" in out
    assert "passed the barrier" not in out
    assert seconds < 30


@pytest.mark.serial_only
def test_clean_job_exits_zero_and_finalizes(tmp_path):
    proc, _ = run_job(tmp_path, """
        import pybcl
        p = pybcl.alloc(4)
        pybcl.barrier()
        print(f"<done {pybcl.rank()}>")
    """)
    assert proc.returncode == 0, proc.stderr
    # mpiexec may interleave the ranks' lines, never their characters within a write
    assert "<done 0>" in proc.stdout and "<done 1>" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.serial_only
def test_init_after_mpi4py_and_explicit_comm(tmp_path):
    """pybcl.init(comm=...) on a split communicator, after mpi4py set MPI up."""
    proc, _ = run_job(tmp_path, """
        from mpi4py import MPI
        import pybcl
        world = MPI.COMM_WORLD
        sub = world.Split(color=0, key=world.Get_size() - world.Get_rank())
        pybcl.init(segment_size="4M", comm=sub)
        assert pybcl.nprocs() == world.Get_size()
        assert pybcl.rank() == world.Get_size() - 1 - world.Get_rank()
        assert pybcl.comm() is sub
        pybcl.finalize()
        pybcl.finalize()            # idempotent
        print("<ok>")
    """, nprocs=2)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("<ok>") == 2, proc.stdout + proc.stderr
