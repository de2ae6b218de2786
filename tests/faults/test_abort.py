"""An uncaught exception on one rank ends the whole job, with its traceback.

These tests launch their own `mpiexec`, so they run in the one-rank pass of
the suite only (a nested mpiexec inside an MPI job is not allowed)."""

import pytest

from launch import run_script as run_job


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


@pytest.mark.serial_only
def test_async_progress_thread_serves_a_computing_target(tmp_path, monkeypatch):
    """With PYBCL_ASYNC_PROGRESS=1 on rma, atomics aimed at a rank that computes
    outside MPI for seconds still complete quickly (without it each one waits
    for the target to re-enter MPI)."""
    body = """
        import time
        import pybcl
        word = pybcl.alloc(1, "int64")
        word.local()[0] = 0
        target = pybcl.broadcast(word, root=1)
        pybcl.barrier()
        if pybcl.rank() == 1:
            end = time.monotonic() + 3.0
            while time.monotonic() < end:      # pure compute, never enters MPI
                pass
            print(f"<served {word.local()[0]}>")   # before this rank calls MPI again
        else:
            t0 = time.monotonic()
            for _ in range(200):
                pybcl.fetch_and_add(target, 1)
            print(f"<elapsed {time.monotonic() - t0:.3f}>")
        pybcl.barrier()
        if pybcl.rank() == 1:
            print(f"<total {word.local()[0]}>")
    """
    monkeypatch.setenv("PYBCL_TRANSPORT", "rma")
    monkeypatch.setenv("PYBCL_ASYNC_PROGRESS", "1")
    proc, _ = run_job(tmp_path, body)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "<total 200>" in proc.stdout, proc.stdout
    # Every atomic completed while the target was still computing: without the
    # thread none can (each needs the target's MPI progress).  Timed against the
    # 3 s window, not a fixed latency: across hosts over TCP on a loaded machine
    # one atomic takes ~10 ms.
    served = int(proc.stdout.split("<served ")[1].split(">")[0])
    elapsed = float(proc.stdout.split("<elapsed ")[1].split(">")[0])
    assert served == 200, f"only {served} of 200 atomics completed while the target computed"
    assert elapsed < 3.0, f"200 atomics took {elapsed} s while the target computed"


@pytest.mark.serial_only
def test_init_when_mpi4py_did_not_initialise_mpi(tmp_path):
    """mpi4py.rc.initialize = False: pybcl's core initialises MPI itself and
    finalises it at exit."""
    proc, _ = run_job(tmp_path, """
        import mpi4py
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = False
        from mpi4py import MPI
        assert not MPI.Is_initialized()
        import pybcl
        pybcl.init(segment_size=1 << 20)
        assert MPI.Is_initialized()
        total = pybcl.allreduce(1)
        print(f"<total {total}>")
    """)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("<total 2>") == 2, proc.stdout + proc.stderr
