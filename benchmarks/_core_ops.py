"""Worker for bench_core.py: pybcl's scalar ops from Python, rank 0 -> rank 1.

Rank 1 owns the target words and waits in pybcl.barrier() (so an MPI
progress engine runs there, as in the C floor).  Prints one JSON line."""
import json
import sys

import numpy as np

import pybcl
from _timing import per_op_us

OPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000

me = pybcl.rank()
target = pybcl.alloc(2048, "int64") if me == 1 else None
if target is not None:
    target.local()[:] = 0
p = pybcl.broadcast(target, root=1)
pybcl.barrier()
res = {}
if me == 0:
    one = np.zeros(1, dtype=np.int64)
    res["get8"] = per_op_us(lambda: p[0], OPS)
    res["put8"] = per_op_us(lambda: p.__setitem__(0, 7), OPS)
    res["fetch_and_add"] = per_op_us(lambda: pybcl.fetch_and_add(p, 1), OPS)
    res["compare_and_swap"] = per_op_us(lambda: pybcl.compare_and_swap(p, 0, 1), OPS)
    res["atomic_load"] = per_op_us(lambda: pybcl.atomic_load(p), OPS)
    res["atomic_store"] = per_op_us(lambda: pybcl.atomic_store(p, 3), OPS)

    def pipelined_puts():
        for i in range(1024):
            pybcl.rput(p + i, one)
        pybcl.flush()
    res["pipelined_put8"] = round(per_op_us(pipelined_puts, max(OPS // 1024, 3)) / 1024, 3)
pybcl.barrier()
if me == 0:
    print(json.dumps({"transport": pybcl.transport(), "nprocs": pybcl.nprocs(),
                      "us_per_op": res}))
