"""Time from a failure on one rank to the end of the whole job.

For every (failure, what the peers do, transport, ranks) it launches a job
in which the last rank works alongside its peers for a moment, records the
wall-clock time, then fails; the seconds from that record to mpiexec's
return are the time-to-end.  Prints one JSON object (rows + the load).

    python benchmarks/fault_endings.py [--nprocs 2 4] [--transports shm rma rma-node]
        [--repeats 3] [--bound 30] [--out results/fault_endings.json]
        [--mpiexec "mpiexec.openmpi --oversubscribe"]

--mpiexec is the launcher command (default mpiexec.mpich); the jobs run this
interpreter with this checkout first on PYTHONPATH, so run the script with a
Python whose mpi4py and build of pybcl match that launcher's MPI.

A row's "rc" is mpiexec's exit status; "expected" the documented one
(docs/api.md: 1 for an exception, 130 for KeyboardInterrupt, n for
sys.exit(n); for SIGTERM, which kills the rank, hydra's 15).  A job that
does not end within --bound seconds is killed and reported as seconds = null.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time

from _report import emit  # noqa: E402  (benchmarks/, the script's own folder)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FAILURES = {
    "exception": ("raise RuntimeError('boom')", 1),
    "sys.exit(3)": ("sys.exit(3)", 3),
    "SIGINT": ("os.kill(os.getpid(), signal.SIGINT); time.sleep(60)", 130),
    # Python's default action: the rank dies of the signal; hydra reports 15
    "SIGTERM": ("os.kill(os.getpid(), signal.SIGTERM); time.sleep(60)", 15),
}

# What every rank does; the failing rank stops after ~0.5 s and fails.
ACTIVITIES = {
    "queue-poll": """
        q = pybcl.CircularQueue(0, 64)
        pybcl.barrier()
        def step():
            try:
                q.pop()
            except pybcl.Empty:
                pass
    """,
    "hashmap-insert": """
        m = pybcl.HashMap(1 << 14)
        pybcl.barrier()
        i = [0]
        def step():
            i[0] = (i[0] + 1) % 4096
            m.insert(i[0], i[0])
    """,
    "buffer-flush": """
        m = pybcl.HashMap(1 << 14)
        b = pybcl.HashMapBuffer(m, 256, 64)
        pybcl.barrier()
        i = [0]
        def step():
            i[0] = (i[0] + 1) % 4096
            b.insert(i[0], i[0])
            if i[0] % 64 == 0:
                b.flush()
    """,
    "python-compute": """
        pybcl.barrier()
        def step():
            sum(range(1000))
    """,
    "barrier": """
        pybcl.barrier()
        def step():
            if pybcl.rank() != pybcl.nprocs() - 1:
                pybcl.barrier()           # the failing rank never comes
    """,
}

JOB = """
import os, signal, sys, time
import pybcl
pybcl.init(segment_size="16M")
{activity}
last = pybcl.rank() == pybcl.nprocs() - 1
start = time.monotonic()
while not last or time.monotonic() - start < 0.5:
    step()
with open({stamp!r}, "w") as f:
    f.write(repr(time.time()))
{failure}
"""


def one(failure, activity, transport, nprocs, bound, mpiexec):
    stmt, expected = FAILURES[failure]
    with tempfile.TemporaryDirectory() as tmp:
        stamp = os.path.join(tmp, "failed_at")
        script = os.path.join(tmp, "job.py")
        body = JOB.format(activity=textwrap.dedent(ACTIVITIES[activity]), stamp=stamp,
                          failure=stmt)
        with open(script, "w") as f:
            f.write(body)
        env = dict(os.environ, PYBCL_TRANSPORT=transport,
                   PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        argv = shlex.split(mpiexec) + ["-n", str(nprocs), sys.executable, script]
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=bound)
            ended = time.time()
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            out, _ = proc.communicate()
            ended, rc = None, None
        failed_at = None
        if os.path.exists(stamp):
            with open(stamp) as f:
                failed_at = float(f.read())
    seconds = (round(ended - failed_at, 2) if ended is not None and failed_at is not None
               else None)
    return {"failure": failure, "peers": activity, "transport": transport,
            "nprocs": nprocs, "seconds": seconds, "rc": rc, "expected": expected,
            "tail": out[-200:] if rc != expected else ""}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nprocs", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--transports", nargs="+", default=["shm", "rma", "rma-node"])
    ap.add_argument("--failures", nargs="+", default=sorted(FAILURES))
    ap.add_argument("--peers", nargs="+", default=sorted(ACTIVITIES))
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--bound", type=float, default=30.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--mpiexec", default="mpiexec.mpich",
                    help="launcher command, split like a shell line")
    args = ap.parse_args()
    rows = []
    for nprocs in args.nprocs:
        for transport in args.transports:
            for failure in args.failures:
                for activity in args.peers:
                    for _ in range(args.repeats):
                        row = one(failure, activity, transport, nprocs, args.bound,
                                  args.mpiexec)
                        print(json.dumps(row), file=sys.stderr, flush=True)
                        rows.append(row)
    import mpi4py
    mpi4py.rc.initialize = mpi4py.rc.finalize = False   # the version needs no MPI_Init
    from mpi4py import MPI
    result = {"benchmark": "fault_endings", "mpiexec": args.mpiexec,
              "mpi": MPI.Get_library_version().splitlines()[0].strip(),
              "loadavg": os.getloadavg(),
              "cpus": os.cpu_count(), "rows": rows}
    emit(result, args.out)


if __name__ == "__main__":
    main()
