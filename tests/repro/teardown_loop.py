"""Reproducer for the teardown hang over UCX's TCP transport (docs/multinode.md).

    mpiexec.mpich ... -n 4 python tests/repro/teardown_loop.py [plain|pybcl] [ROUNDS]

Every rank puts 256 KiB into every rank's window ROUNDS times, flushes, and
tears down the way pybcl does (barrier, unlock_all, barrier, free).  Then it
prints one line "done RANK MODE SECONDS" and returns from the script: the
interpreter's exit calls MPI_Finalize (mpi4py) after pybcl's atexit finalize.

`plain` uses mpi4py only (no pybcl at all), so a hang there is not pybcl's.
With MPICH 4.0.2 (ch4:ucx, UCX 1.13) and UCX_TLS=tcp,self on 2 hosts x 2
ranks, some runs never return: every rank printed "done", one rank spins in
MPI_Finalize -> ucp_worker_progress -> uct_tcp_iface_progress (closing an
endpoint whose flush needs the peer), the others block in read() in the PMI
barrier that MPICH 4.0.2 runs after its disconnects, so nobody progresses the
peer's TCP endpoint.  Remote atomics and accumulates alone did not trigger it
(0 of 8 each); puts (TCP PUT zcopy, acknowledged by the target) did.  Figures
in docs/multinode.md; scripts/run_multihost.sh runs 20 pybcl-mode jobs and
counts how many needed pybcl's exit guard (PYBCL_FINALIZE_TIMEOUT).
"""
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
if mode not in ("plain", "pybcl"):
    sys.exit(f"mode must be plain or pybcl, not {mode!r}")

import numpy as np                  # noqa: E402
from mpi4py import MPI              # noqa: E402

CHUNK = 1 << 18


def plain():
    comm = MPI.COMM_WORLD.Dup()
    r, p = comm.rank, comm.size
    win = MPI.Win.Allocate(CHUNK * p, 1, comm=comm)
    win.Lock_all(MPI.MODE_NOCHECK)
    data = np.full(CHUNK, r, np.uint8)
    for _ in range(rounds):
        for t in range(p):
            win.Put(data, t, target=(r * CHUNK, CHUNK, MPI.BYTE))
        win.Flush_all()
    comm.Barrier()
    win.Unlock_all()
    comm.Barrier()
    win.Free()
    comm.Free()
    return r


def with_pybcl():
    import pybcl
    pybcl.init(segment_size=CHUNK * pybcl.nprocs() + (1 << 20))
    r, p = pybcl.rank(), pybcl.nprocs()
    mine = pybcl.alloc(CHUNK * p, dtype="uint8")
    slots = [pybcl.broadcast(mine, root=t) for t in range(p)]
    data = np.full(CHUNK, r, np.uint8)
    for _ in range(rounds):
        for t in range(p):
            pybcl.rput(slots[t] + r * CHUNK, data)
        pybcl.flush()
    pybcl.barrier()
    assert (mine.local().reshape(p, CHUNK) == np.arange(p, dtype=np.uint8)[:, None]).all()
    return r


start = time.monotonic()
rank = plain() if mode == "plain" else with_pybcl()
# one write per line: hydra interleaves the ranks' output at write() granularity
sys.stdout.write(f"done {rank} {mode} {time.monotonic() - start:.2f}\n")
sys.stdout.flush()
