"""Shared test set-up.

Serial runs (`pytest`) skip the tests marked `mpi`; MPI runs
(`mpiexec -n N python -m pytest --with-mpi`) run everything on every rank.
Tests that can fail on one rank only should agree on the outcome before
asserting (see `all_ok`), so a failure never leaves peers in a barrier.
"""
import numpy as np
import pytest

import pybcl


def all_ok(flag):
    """True on every rank iff `flag` is true on every rank (collective)."""
    return bool(pybcl.allreduce(np.array([1 if flag else 0], dtype=np.int64), "min")[0])


@pytest.fixture(autouse=True)
def _separate_tests():
    """A barrier around each test keeps one test's traffic out of the next."""
    pybcl.barrier()
    yield
    pybcl.barrier()
