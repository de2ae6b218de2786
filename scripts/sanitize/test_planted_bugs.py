"""The sanitizer pass's self-check (scripts/run_sanitizers.sh).

The script copies this file into its scratch copy's tests/ and runs it the way
it runs the suite, once per bug planted in the scratch build (planted.c),
named by PYBCL_PLANTED.  The last rank calls the bug while the others wait for
it in a collective; under ASan/UBSan that rank must die with a report and the
job must fail.  Should the bug go unreported, the test passes, and the script
counts that as the sanitizers not working.
"""
import ctypes
import os

import pytest

import pybcl
from conftest import all_ok

ARGS = {"bcl_planted_out_of_bounds_write": (), "bcl_planted_oversized_shift": (40,)}


@pytest.mark.skipif(not os.environ.get("PYBCL_PLANTED"), reason="run by run_sanitizers.sh")
def test_planted_bug_ends_the_job():
    name = os.environ["PYBCL_PLANTED"]
    if pybcl.rank() == pybcl.nprocs() - 1:
        getattr(ctypes.CDLL(pybcl._core.__file__), name)(*ARGS[name])
    assert all_ok(True)
