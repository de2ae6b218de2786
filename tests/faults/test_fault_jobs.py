"""Faults that end a whole job: each runs its own
mpiexec with a time bound, so these run in the one-rank pass only.

Expected: a failure on one rank ends every rank within seconds with that
rank's exit code; a segment the node cannot hold raises SegmentFull on every
rank before any window exists; Ctrl-C ends a job whose ranks wait in C."""
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from launch import (assert_job_code, each_transport, forwards_sigint, job_env, mpiexec_argv,
                    run_ok, run_script)

BOUND_S = 30          # generous: the machine may be loaded; hangs took forever
TRANSPORTS = ("shm", "rma")


def env_for(transport):
    return job_env(PYBCL_TRANSPORT=transport, PYBCL_SEGMENT_SIZE="4M")


@each_transport(TRANSPORTS, sizes=(1, 2, 4))
def test_segment_larger_than_the_node_raises_segment_full_everywhere(tmp_path, nprocs,
                                                                     transport):
    proc, seconds = run_script(tmp_path, """
        import pybcl
        try:
            pybcl.init(segment_size=2**44)
        except pybcl.SegmentFull as e:
            assert isinstance(e, MemoryError)
            print(f"<full {e}>", flush=True)
        pybcl.init(segment_size="4M")          # a size that fits still works
        pybcl.barrier()
        print(f"<ok {pybcl.rank()}>", flush=True)
    """, nprocs=nprocs, timeout=BOUND_S * 2, env=env_for(transport))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert proc.stdout.count("<full ") == nprocs, out
    assert "17592186044416" in out and "GiB is available" in out, out
    assert proc.stdout.count("<ok ") == nprocs, out
    assert seconds < BOUND_S


@pytest.mark.serial_only
def test_segment_size_from_the_environment_too_large(tmp_path):
    env = job_env(PYBCL_SEGMENT_SIZE="200000G")
    proc, seconds = run_script(tmp_path, """
        import pybcl
        pybcl.init()
    """, nprocs=2, timeout=BOUND_S * 2, env=env)
    out = proc.stdout + proc.stderr
    assert_job_code(proc, 1)
    assert "SegmentFull" in out and "available" in out, out
    assert seconds < BOUND_S


@pytest.mark.serial_only
def test_isx_with_keys_the_node_cannot_hold_fails_cleanly():
    from launch import run_python
    start = time.monotonic()
    proc = run_python(["-m", "pybcl.apps.isx", "--keys-per-rank", str(1 << 40)], 2,
                      timeout=BOUND_S * 2)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "error: --keys-per-rank" in proc.stderr and "Traceback" not in out, out
    assert time.monotonic() - start < BOUND_S


ONE_RANK_FAILS = {
    "sys.exit(3)": ("sys.exit(3)", 3),
    "exit(4)": ("exit(4)", 4),                     # the site builtin, wrapped too
    "KeyboardInterrupt": ("raise KeyboardInterrupt", 130),
    "uncaught exception": ("raise RuntimeError('boom')", 1),
}


@each_transport(TRANSPORTS)
@pytest.mark.parametrize("case", sorted(ONE_RANK_FAILS))
def test_one_rank_failing_ends_the_job_with_its_code(tmp_path, case, nprocs, transport):
    stmt, code = ONE_RANK_FAILS[case]
    proc, seconds = run_script(tmp_path, f"""
        import sys
        import pybcl
        pybcl.init()
        if pybcl.rank() == pybcl.nprocs() - 1:
            {stmt}
        pybcl.barrier()          # the others would wait here forever
        print("<passed>", flush=True)
    """, nprocs=nprocs, timeout=BOUND_S * 2, env=env_for(transport))
    out = proc.stdout + proc.stderr
    assert_job_code(proc, code)
    assert "<passed>" not in out, out
    assert seconds < BOUND_S


# A rank that leaves without an exit hook seeing it: the peers waiting for
# it in a collective learn of its departure (finalize announces it) and fail
# with an error naming it and the call they wait in, after a grace period
# (csrc/comm/bcl_depart.h).  The call as the user wrote it -> its name there.
LEAVING_EARLY_CALLS = {"pybcl.barrier()": "barrier()",
                       "pybcl.allreduce(np.ones(3), 'sum')": "allreduce()",
                       "pybcl.HashMap(64)": "HashMap()",
                       "np.asarray(d)": "np.asarray(DArray)",
                       "b.flush()": "DArrayBuffer.flush()",
                       "len(m)": "len(HashMap)"}


@pytest.mark.serial_only
@pytest.mark.parametrize("call,transport", [("pybcl.barrier()", "shm"),
                                            ("pybcl.allreduce(np.ones(3), 'sum')", "rma"),
                                            ("pybcl.HashMap(64)", "shm"),
                                            ("pybcl.HashMap(64)", "rma"),
                                            ("pybcl.barrier()", "rma-node"),
                                            ("np.asarray(d)", "shm"),
                                            ("b.flush()", "rma"),
                                            ("len(m)", "rma-node")])
def test_a_rank_leaving_early_ends_peers_waiting_in_a_collective(tmp_path, call, transport):
    proc, seconds = run_script(tmp_path, f"""
        import numpy as np
        import pybcl
        pybcl.init()
        d, m = pybcl.DArray(8), pybcl.HashMap(64)
        b = pybcl.DArrayBuffer(d, 4)
        pybcl.barrier()
        if pybcl.rank() == 1:
            raise SystemExit(3)  # no hook sees it: finalize announces it
        {call}                   # the others would wait here forever
        print("<passed>", flush=True)
    """, nprocs=3, timeout=BOUND_S * 2, env=env_for(transport))
    out = proc.stdout + proc.stderr
    assert_job_code(proc, 1)
    assert "<passed>" not in out, out
    assert f"{LEAVING_EARLY_CALLS[call]}: rank 1 has finalized pybcl" in out, out
    assert seconds < BOUND_S + 5        # the grace period is 5 s


@pytest.mark.serial_only
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_ranks_that_finish_apart_still_exit_normally(tmp_path, transport):
    # Departing waits for every rank: one finishing seconds after the others
    # (outside any collective) is waited for, not treated as a fault; and the
    # usual ending -- a last barrier, then exit -- never trips the grace check.
    proc, _ = run_script(tmp_path, """
        import time
        import pybcl
        pybcl.init()
        pybcl.barrier()
        if pybcl.rank() == 0:
            time.sleep(3)
        print(f"<done {pybcl.rank()}>", flush=True)
    """, nprocs=3, timeout=BOUND_S * 2, env=env_for(transport))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert proc.stdout.count("<done ") == 3, out


@pytest.mark.serial_only
@pytest.mark.parametrize("where", ["after import", "bad init argument"])
def test_failure_before_init_on_one_rank_ends_the_job(tmp_path, where):
    bad = ("raise RuntimeError('early')" if where == "after import"
           else "pybcl.init(segment_size='bogus')")
    proc, seconds = run_script(tmp_path, f"""
        import os
        import pybcl
        if os.environ["PMI_RANK"] == "1":
            {bad}
        pybcl.init()
        pybcl.barrier()
        print("<passed>", flush=True)
    """, nprocs=2, timeout=BOUND_S * 2, env=env_for("shm"))
    out = proc.stdout + proc.stderr
    assert_job_code(proc, 1)
    assert "<passed>" not in out and "Traceback" in out, out
    assert seconds < BOUND_S


@pytest.mark.serial_only
def test_caught_sys_exit_and_exit_zero_are_normal(tmp_path):
    proc, _ = run_script(tmp_path, """
        import sys
        import pybcl
        pybcl.init()
        try:
            sys.exit(5)                  # caught: the job goes on
        except SystemExit:
            pass
        pybcl.barrier()
        print(f"<done {pybcl.rank()}>", flush=True)
        sys.exit(0)
    """, nprocs=2, timeout=BOUND_S * 2)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert proc.stdout.count("<done ") == 2, out


CTRL_C_JOB = """
    import time
    import pybcl
    m = pybcl.HashMap(64)
    m.insert(1, 1)
    pybcl.barrier()
    if pybcl.rank() == 0:
        def fn(v):
            print("<waiting>", flush=True)
            while True:          # holds the bucket (a collective here would raise)
                time.sleep(0.05)
        m.modify(1, fn)
    else:
        time.sleep(0.3)
        m.find(1)                # spins on the bucket rank 0 holds (shm)
        pybcl.barrier()          # rank 0 never comes: a wait in C
    pybcl.barrier()
"""


@each_transport(TRANSPORTS)
@pytest.mark.parametrize("wait", ["spin", "patient"])
def test_ctrl_c_ends_a_job_waiting_in_c_quickly(tmp_path, nprocs, transport, wait):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(CTRL_C_JOB))
    env = job_env(PYBCL_TRANSPORT=transport, PYBCL_SEGMENT_SIZE="4M", PYBCL_WAIT=wait)
    proc = subprocess.Popen(mpiexec_argv(nprocs) + [sys.executable, str(script)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        assert "<waiting>" in line, line
        time.sleep(1.0)                  # every rank is inside a C wait by now
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)  # what Ctrl-C does to mpiexec
        out, _ = proc.communicate(timeout=BOUND_S)
        seconds = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert seconds < 10, f"the job took {seconds:.1f} s to end after Ctrl-C:\n{out}"
    assert "Traceback" not in out and "signal 11" not in out, out
    # Where the launcher forwards the signal, every rank's C wait must notice
    # it; Open MPI's mpirun terminates the ranks instead (launch.forwards_sigint).
    if forwards_sigint():
        assert "KeyboardInterrupt" in out, out


@each_transport(TRANSPORTS, sizes=(1, 2, 4))
def test_containers_from_before_finalize_raise_after_reinit(tmp_path, nprocs, transport):
    proc, _ = run_script(tmp_path, """
        import numpy as np
        import pybcl
        pybcl.init(segment_size="4M")
        old = {"HashMap": pybcl.HashMap(64), "CircularQueue": pybcl.CircularQueue(0, 8),
               "FastQueue": pybcl.FastQueue(0, 8), "BloomFilter": pybcl.BloomFilter(100),
               "DArray": pybcl.DArray(8), "Array": pybcl.Array(0, 8)}
        old["HashMapBuffer"] = pybcl.HashMapBuffer(old["HashMap"], 8, 4)
        pybcl.finalize()
        pybcl.init(segment_size="4M")
        new = pybcl.DArray(8)
        new[pybcl.rank()] = 7
        m = pybcl.HashMap(64)
        m.insert(pybcl.rank(), 5)
        pybcl.barrier()
        uses = {
            "HashMap": [lambda c: c.find(1), lambda c: c.insert(1, 2),
                        lambda c: c.find_many(np.array([1])), lambda c: 1 in c,
                        lambda c: c.erase(1), lambda c: c.erase_many(np.array([1])),
                        lambda c: c.__delitem__(1), lambda c: len(c)],
            "CircularQueue": [lambda c: c.push(1), lambda c: c.pop()],
            "FastQueue": [lambda c: c.push(1)],
            "BloomFilter": [lambda c: c.insert(1), lambda c: c.find(1)],
            "DArray": [lambda c: c.__setitem__(0, 1), lambda c: c[0]],
            "Array": [lambda c: c[0]],
            "HashMapBuffer": [lambda c: c.insert(1, 2)],
        }
        for name, fns in uses.items():
            for fn in fns:
                try:
                    fn(old[name])
                except pybcl.Error as e:
                    assert "finalize" in str(e), e
                else:
                    raise AssertionError(f"stale {name} was usable")
        del old                          # their deallocs must not free new blocks
        pybcl.barrier()
        assert new[pybcl.rank()] == 7 and m.find(pybcl.rank()) == 5
        print("<stale ok>", flush=True)
    """, nprocs=nprocs, timeout=BOUND_S * 2, env=env_for(transport))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert proc.stdout.count("<stale ok>") == nprocs, out


# What the peers are doing when one rank fails.  On shm a peer polling a
# queue or inserting into a map makes no MPI call at all, and a peer in pure
# Python makes none either: the job must end anyway, within seconds of the
# failure (MPI_Abort on a communicator other than COMM_WORLD waited for the
# peers' next MPI call, which never came).  On rma-node the queue's host
# polling it makes only MPI calls aimed at itself, which complete without
# running MPI's progress engine: where peers' atomics need the target's
# engine (Open MPI 4.1, MPICH 5), they stalled -- the failing rank's own pop
# among them, so it never got to fail.
PEER_LOOPS = {
    "polling a queue": """
        q = pybcl.CircularQueue(0, 64)
        def step():
            try:
                q.pop()
            except pybcl.Empty:
                pass
    """,
    "inserting into a map": """
        m = pybcl.HashMap(1 << 12)
        i = [0]
        def step():
            i[0] = (i[0] + 1) % 1024
            m.insert(i[0], i[0])
    """,
    "computing in Python": """
        def step():
            sum(range(1000))
    """,
}


PEER_FAILURES = {
    "uncaught exception": ("raise RuntimeError('boom')", 1),
    "SIGINT": ("os.kill(os.getpid(), signal.SIGINT); time.sleep(60)", 130),
}
END_BOUND_S = 5.0     # from the failure to mpiexec's return


@each_transport()
@pytest.mark.parametrize("peers", sorted(PEER_LOOPS))
@pytest.mark.parametrize("failure", sorted(PEER_FAILURES))
def test_a_failure_ends_the_job_quickly_whatever_the_peers_do(tmp_path, failure, peers,
                                                              nprocs, transport):
    stmt, code = PEER_FAILURES[failure]
    stamp = tmp_path / "failed_at"
    loop = textwrap.indent(textwrap.dedent(PEER_LOOPS[peers]), "        ")
    body = f"""
        import os, signal, time
        import pybcl
        pybcl.init()
{loop}
        pybcl.barrier()
        last = pybcl.rank() == pybcl.nprocs() - 1
        start = time.monotonic()
        while not last or time.monotonic() - start < 0.3:
            step()               # the peers never leave this loop
        with open({str(stamp)!r}, "w") as f:
            f.write(repr(time.time()))
        {stmt}
    """
    proc, _ = run_script(tmp_path, body, nprocs=nprocs, timeout=BOUND_S * 2,
                         env=env_for(transport))
    ended = time.time()
    out = proc.stdout + proc.stderr
    assert proc.returncode == code, out      # the documented code, 4 ranks too
    seconds = ended - float(stamp.read_text())
    assert seconds < END_BOUND_S, f"the job ended {seconds:.1f} s after the failure:\n{out}"


# Collectives called on some ranks only, or different collectives on
# different ranks: every collective of pybcl starts with the same agreement
# step on pybcl's own communicator, so the mismatch is seen on every rank at
# any number of ranks (an Ibarrier against an Iallreduce exchanged garbage at
# 2 ranks and hung at 4), and a user's collective never matches pybcl's.
MISMATCH_JOB = """
    import time
    import numpy as np
    import pybcl
    pybcl.init()
    me, P = pybcl.rank(), pybcl.nprocs()
    m = pybcl.HashMap(256)
    m.insert(me, me)

    def refused(call, needle="not all in the same collective call", error=pybcl.Error):
        try:
            call()
        except error as e:
            assert needle in str(e), e
        else:
            raise AssertionError(f"{call} completed against a mismatched collective")

    def expect_mismatch(call, others, **how):
        refused(call if me == 0 else others, **how)

    expect_mismatch(lambda: pybcl.HashMap(64), pybcl.barrier)
    expect_mismatch(m.size, pybcl.barrier)
    expect_mismatch(lambda: len(m), lambda: pybcl.HashMap(64))
    expect_mismatch(lambda: pybcl.FastQueue(0, 8), lambda: pybcl.CircularQueue(0, 8))
    expect_mismatch(m.items, lambda: pybcl.allreduce(1))
    other = pybcl.HashMap(64)
    expect_mismatch(m.size, other.size, needle="different map", error=ValueError)
    buf = pybcl.HashMapBuffer(m, 16, 4)
    expect_mismatch(buf.flush, pybcl.barrier)
    strings = pybcl.HashMap(64, key_type=str, value_type=object)
    sbuf = pybcl.HashMapBuffer(strings, 16, 4)
    sbuf.insert(f"k{me}", me)
    expect_mismatch(lambda: len(m), sbuf.flush)
    sbuf.flush()
    assert strings.size() == P

    # A user's collective on the user's communicator never meets items().
    comm = pybcl.comm()
    mine, got = np.array([100 + me], dtype=np.int64), np.zeros(P, dtype=np.int64)
    if me == 0:
        refused(m.items)
        comm.Iallgather(mine, got).Wait()   # nonblocking, as its peers' (MPI)
    else:
        req = comm.Iallgather(mine, got)
        start = time.monotonic()
        while time.monotonic() - start < 1.0:
            assert not req.Test(), "a user's allgather matched pybcl's items()"
            time.sleep(0.01)
        refused(pybcl.barrier)
        req.Wait()
    assert got.tolist() == [100 + r for r in range(P)], got

    # Afterwards the ranks are in step again.
    assert sorted(m.items()) == [(r, r) for r in range(P)]
    assert m.size() == P and len(m) == P
    pybcl.barrier()
    print(f"<ok {me}>", flush=True)
"""


@each_transport()
def test_mismatched_collectives_raise_on_every_rank(tmp_path, nprocs, transport):
    out, seconds = run_ok(tmp_path, MISMATCH_JOB, nprocs, timeout=BOUND_S * 2,
                          env=env_for(transport))
    assert seconds < BOUND_S, out
