"""The sanitizer pass's self-check job (scripts/run_sanitizers.sh).

    mpiexec -n 2 python selfcheck.py FUNCTION

The last rank calls FUNCTION, one of the bugs planted in the scratch build
(planted.c), while the others wait for it in a barrier.  Under ASan/UBSan the
rank must die with a report, and the job must end, with a failure.  If the
bug goes unreported, every rank prints UNREPORTED and the job exits 0, which
the script counts as the sanitizers not working.
"""
import ctypes
import sys

import pybcl

ARGS = {"bcl_planted_out_of_bounds_write": (), "bcl_planted_oversized_shift": (40,)}
pybcl.init()
core = ctypes.CDLL(pybcl._core.__file__)
if pybcl.rank() == pybcl.nprocs() - 1:
    getattr(core, sys.argv[1])(*ARGS[sys.argv[1]])
pybcl.barrier()
print(f"UNREPORTED: {sys.argv[1]} on rank {pybcl.rank()}", flush=True)
