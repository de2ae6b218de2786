"""Shared test set-up.

The suite runs as `python -m pytest --with-mpi` (one rank) and as
`mpiexec -n N python -m pytest --with-mpi`: every test runs on every rank;
`@pytest.mark.mpi(min_size=k)` needs k ranks; `@pytest.mark.serial_only`
tests launch their own mpiexec and run in the one-rank pass only.
Tests that can fail on one rank only should agree on the outcome before
asserting (see `all_ok`), so a failure never leaves peers in a barrier.

Every test runs under a time limit (`PYBCL_TEST_TIME_LIMIT` seconds, 0 for
none; see `_time_limit`).  A test that overruns never hangs the job: each
rank prints the test's name and every thread's Python stack, then the job
ends through MPI_Abort.
"""
import faulthandler
import os
import signal

import numpy as np
import pytest

import pybcl
from pybcl import _core


def all_ok(flag):
    """True on every rank iff `flag` is true on every rank (collective)."""
    return bool(pybcl.allreduce(np.array([1 if flag else 0], dtype=np.int64), "min")[0])


def flush_stats_around_puts(targets):
    """Collective.  Every rank puts one word into a slot of each rank in its
    `targets`, then flushes.  Returns (slots, bases, stats): this rank's
    P-word block (slot o written by origin o; the caller frees it), every
    rank's block, and the core's flush counters before the puts, after them
    and after the flush -- what tests of the flush cost read."""
    P, me = pybcl.nprocs(), pybcl.rank()
    slots = pybcl.alloc(P, "int64")           # slot o: written by origin o
    pybcl.rput(slots, np.full(P, -1, np.int64))
    pybcl.barrier()
    bases = [pybcl.broadcast(slots, root=r) for r in range(P)]
    pybcl.barrier()
    before = pybcl._core._flush_stats()
    for t in targets:
        pybcl.rput(bases[t] + me, np.array([1000 * me + t], np.int64))
    mid = pybcl._core._flush_stats()
    pybcl.flush()
    after = pybcl._core._flush_stats()
    return slots, bases, (before, mid, after)


# ---- the per-test time limit ------------------------------------------------------

# Generous for 16 ranks oversubscribed on 2 cores, where the slowest test took
# ~60 s (docs/testing.md); tight enough that a hang ends well within CI's limit.
DEFAULT_TIME_LIMIT = 300.0
STACK_SIGNAL = signal.SIGUSR2    # `kill -USR2 PID` also prints a rank's stacks
REPORT_STAGGER = 0.25            # s between ranks' reports: one after another
ABORT_GRACE = 10.0               # s after the last report before MPI_Abort
_watch = {"limit": 0.0, "fd": -1}


def _time_limit():
    text = os.environ.get("PYBCL_TEST_TIME_LIMIT", "")
    try:
        return float(text) if text.strip() else DEFAULT_TIME_LIMIT
    except ValueError:
        raise pytest.UsageError(f"PYBCL_TEST_TIME_LIMIT must be seconds, got {text!r}")


def _start_watchdog():
    """Capture is suspended while pytest_configure runs, so fd 2 here is the
    real stderr; reports go to a duplicate of it, never into a test's capture."""
    _watch["limit"] = _time_limit()
    if _watch["limit"] <= 0:
        return
    _watch["fd"] = os.dup(2)
    faulthandler.register(STACK_SIGNAL, file=_watch["fd"], all_threads=True, chain=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Arm the watchdog around setup, call and teardown of one test.

    Rank r reports (its stacks) at limit + r * REPORT_STAGGER, so the ranks'
    reports follow one another instead of interleaving; every rank aborts
    after the last report plus a grace, which also covers a rank that
    started this test a little later than the one that hangs."""
    limit = _watch["limit"]
    if limit <= 0:
        yield
        return
    r, p = pybcl.rank(), pybcl.nprocs()
    report_after = limit + r * REPORT_STAGGER
    abort_after = limit + p * REPORT_STAGGER + ABORT_GRACE
    report = (f"\n=== pybcl test time limit: {item.nodeid} still running after "
              f"{limit:g} s on rank {r} of {p}; its Python stacks follow ===\n")
    abort = (f"=== pybcl test time limit: rank {r} of {p} ends the job "
             f"(MPI_Abort) in {item.nodeid} ===\n")
    _core.watchdog_arm(report_after, int(STACK_SIGNAL), report, abort_after, abort,
                       _watch["fd"], 1)
    try:
        yield
    finally:
        _core.watchdog_disarm()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Every test of this suite is an MPI test (a plain `python -m pytest` is a
    # one-rank job), so --with-mpi is always on: without it pytest-mpi would
    # silently skip most of the suite.  --only-mpi still works as documented.
    if not config.getoption("--only-mpi", default=False):
        config.option.with_mpi = True
    config.addinivalue_line(
        "markers", "serial_only: launches its own mpiexec; runs only in a one-rank pass")
    _start_watchdog()


def pytest_unconfigure(config):
    if _watch["fd"] >= 0:
        _core.watchdog_disarm()
        faulthandler.unregister(STACK_SIGNAL)
        os.close(_watch["fd"])
        _watch["fd"] = -1


def pytest_runtest_setup(item):
    if item.get_closest_marker("serial_only") and pybcl.nprocs() > 1:
        pytest.skip("launches its own mpiexec: runs in the one-rank pass")


@pytest.fixture(autouse=True)
def _separate_tests():
    """A barrier around each test keeps one test's traffic out of the next."""
    pybcl.barrier()
    yield
    pybcl.barrier()
