"""Shared test set-up.

The suite runs as `python -m pytest --with-mpi` (one rank) and as
`mpiexec -n N python -m pytest --with-mpi`: every test runs on every rank;
`@pytest.mark.mpi(min_size=k)` needs k ranks; `@pytest.mark.serial_only`
tests launch their own mpiexec and run in the one-rank pass only.
Tests that can fail on one rank only should agree on the outcome before
asserting (see `all_ok`), so a failure never leaves peers in a barrier.
"""
import numpy as np
import pytest

import pybcl


def all_ok(flag):
    """True on every rank iff `flag` is true on every rank (collective)."""
    return bool(pybcl.allreduce(np.array([1 if flag else 0], dtype=np.int64), "min")[0])


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "serial_only: launches its own mpiexec; runs only in a one-rank pass")


def pytest_runtest_setup(item):
    if item.get_closest_marker("serial_only") and pybcl.nprocs() > 1:
        pytest.skip("launches its own mpiexec: runs in the one-rank pass")


@pytest.fixture(autouse=True)
def _separate_tests():
    """A barrier around each test keeps one test's traffic out of the next."""
    pybcl.barrier()
    yield
    pybcl.barrier()
