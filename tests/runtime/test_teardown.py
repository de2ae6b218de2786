"""Teardown that returns: the exit guard bounds what happens after pybcl's
last barrier at interpreter exit (docs/multinode.md, bcl_exit_guard.h).

MPI_Finalize hanging over UCX's TCP transport cannot be produced on demand, so
the tests stand in a teardown step that never returns (an atexit handler
that runs after pybcl's) and check that the job still ends, with status 0 and
the notice, within the bound; and that a normal job never sees the guard."""

import pytest

import pybcl
from pybcl import _env
from launch import ABNORMAL_EXIT_REPORTS, job_env, run_script

NEVER_RETURNS = """
    import atexit, time
    atexit.register(time.sleep, 3600)   # registered first, so it runs after pybcl's handler
    import pybcl
    pybcl.init()
    w = pybcl.alloc(1)
    pybcl.barrier()
    print(f"<rank {pybcl.rank()} done>", flush=True)
"""


@pytest.mark.serial_only
def test_exit_guard_ends_a_teardown_that_never_returns(tmp_path):
    proc, seconds = run_script(tmp_path, NEVER_RETURNS, nprocs=2, timeout=120,
                               env=job_env(PYBCL_FINALIZE_TIMEOUT="3"))
    # The guard ends each rank with status 0.  A rank that leaves without
    # MPI_Finalize is abnormal to the launcher, though: MPICH's hydra, when
    # the two guards fire moments apart, may hang up the later rank and report
    # that ("BAD TERMINATION", docs/multinode.md); Open MPI's mpirun always
    # reports it ("exiting improperly") and exits non-zero.  What the guard
    # promises is that the job returns after both ranks finished their work.
    out = proc.stdout + proc.stderr
    clean = proc.returncode == 0
    assert clean or any(words in out for words in ABNORMAL_EXIT_REPORTS), out
    assert "<rank 0 done>" in proc.stdout and "<rank 1 done>" in proc.stdout
    # Both ranks' guards fire within moments of each other; once the first
    # rank is gone hydra may end the other before its notice is forwarded.
    assert "MPI_Finalize did not return within 3 s" in proc.stderr, proc.stderr
    assert seconds < 60


PYBCL_STARTED_MPI_NEVER_RETURNS = """
    import mpi4py
    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    from mpi4py import MPI
    import time
    import pybcl
    pybcl.init(segment_size=1 << 20)     # pybcl starts MPI, so it finalizes it
    # MPI_Finalize first deletes COMM_SELF's attributes (MPI-4 11.2.4): this
    # callback stands in for a hang inside pybcl's own MPI_Finalize
    key = MPI.Comm.Create_keyval(delete_fn=lambda *args: time.sleep(3600))
    MPI.COMM_SELF.Set_attr(key, 1)
    pybcl.barrier()
    print(f"<rank {pybcl.rank()} done>", flush=True)
"""


@pytest.mark.serial_only
def test_exit_guard_bounds_the_mpi_finalize_pybcl_calls_itself(tmp_path):
    """When pybcl initialised MPI, its own MPI_Finalize (inside finalize at
    exit) is where the TCP hang happens; the guard must already be armed
    there (a 3-host CI job once waited 60 s in it, unguarded)."""
    proc, seconds = run_script(tmp_path, PYBCL_STARTED_MPI_NEVER_RETURNS, nprocs=2,
                               timeout=120, env=job_env(PYBCL_FINALIZE_TIMEOUT="3"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 or any(words in out for words in ABNORMAL_EXIT_REPORTS), out
    assert "<rank 0 done>" in proc.stdout and "<rank 1 done>" in proc.stdout
    assert "MPI_Finalize did not return within 3 s" in proc.stderr, proc.stderr
    assert seconds < 60


@pytest.mark.serial_only
def test_without_the_guard_the_teardown_really_hangs(tmp_path):
    """The stand-in hang is real: with PYBCL_FINALIZE_TIMEOUT=0 the job outlives its bound."""
    import subprocess
    with pytest.raises(subprocess.TimeoutExpired):
        run_script(tmp_path, NEVER_RETURNS, nprocs=1, timeout=15,
                   env=job_env(PYBCL_FINALIZE_TIMEOUT="0"))


@pytest.mark.serial_only
def test_clean_job_never_sees_the_guard(tmp_path):
    proc, _ = run_script(tmp_path, """
        import pybcl
        pybcl.init()
        pybcl.barrier()
    """, nprocs=2, env=job_env(PYBCL_FINALIZE_TIMEOUT="30"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "did not return" not in proc.stderr


@pytest.mark.parametrize("raw", ["soon", "-1", "nan", "1e12"])
def test_finalize_timeout_rejects_bad_values(monkeypatch, raw):
    monkeypatch.setenv("PYBCL_FINALIZE_TIMEOUT", raw)
    with pytest.raises(ValueError, match="PYBCL_FINALIZE_TIMEOUT"):
        _env.finalize_timeout()


def test_finalize_timeout_default_and_off(monkeypatch):
    monkeypatch.delenv("PYBCL_FINALIZE_TIMEOUT", raising=False)
    assert _env.finalize_timeout() == _env.DEFAULT_FINALIZE_TIMEOUT > 0
    monkeypatch.setenv("PYBCL_FINALIZE_TIMEOUT", "0")
    assert _env.finalize_timeout() == 0
    assert pybcl.nprocs() >= 1
