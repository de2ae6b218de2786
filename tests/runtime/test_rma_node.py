"""The node-aware rma transport ("rma-node", docs/transports.md).

Node peers' data words move by memcpy while every atomic goes through MPI:
these tests mix both mechanisms on the same buckets / queue slots under
contention and check exact invariants.  They run on every transport (the
invariants hold everywhere); the memcpy checks only where rma-node is in use
(CI forces it on one host with PYBCL_TRANSPORT=rma-node; across hosts `auto`
picks it when some host runs two or more ranks).
"""
import json

import numpy as np
import pytest
from mpi4py import MPI

import pybcl
from pybcl import _core
from conftest import all_ok, flush_stats_around_puts
from launch import each_transport, job_env, run_ok, run_python

P, R = pybcl.nprocs(), pybcl.rank()
NODE = pybcl.transport() == "rma-node"


def _node_peers():
    """Ranks of pybcl's communicator on this rank's node (collective)."""
    node = pybcl.comm().Split_type(MPI.COMM_TYPE_SHARED)
    peers = node.allgather(R)
    node.Free()
    return sorted(peers)


@pytest.mark.serial_only
def test_forced_transport_is_reported():
    script = ("import json, pybcl; d = pybcl.info(); "
              "print(json.dumps([pybcl.transport(), d['transport_reason']])) "
              "if pybcl.rank() == 0 else None")
    proc = run_python(["-c", script], 2, env=job_env(PYBCL_TRANSPORT="rma-node"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["rma-node", "requested: rma-node"]
    # Under auto: shm on one host, as before; plain rma when the launcher
    # (PYBCL_TEST_MPIEXEC_ARGS) puts each of the two ranks on its own host.
    script = ("import json, pybcl; from mpi4py import MPI; "
              "t = pybcl.comm().allgather((pybcl.transport(), MPI.Get_processor_name())); "
              "print(json.dumps(t)) if pybcl.rank() == 0 else None")
    proc = run_python(["-c", script], 2, env=job_env(PYBCL_TRANSPORT="auto"))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    hosts = {host for _, host in got}
    want = "shm" if len(hosts) == 1 else "rma"       # 2 ranks: one node or one each
    assert [t for t, _ in got] == [want, want], got
    # A misspelt name is refused with the variable's name.
    proc = run_python(["-c", "import pybcl; pybcl.init()"], 1,
                      env=job_env(PYBCL_TRANSPORT="rma_node"))
    assert proc.returncode != 0 and "PYBCL_TRANSPORT" in proc.stderr


def test_node_peer_get_put_leave_nothing_to_flush():
    """On rma-node a put/get to a node peer is a memcpy: it is complete on
    return, so it dirties no target and no flush has anything to do."""
    peers = _node_peers()
    slots, bases, (before, mid, after) = flush_stats_around_puts(peers)
    ok = True
    if NODE:
        ok = (mid["dirty"] == 0 and after["dirty"] == 0
              and after["targets_flushed"] == before["targets_flushed"])
    pybcl.barrier()
    reads = _core._flush_stats()
    mine = pybcl.rget(slots, P)
    want = np.array([1000 * o + R if o in peers else -1 for o in range(P)], np.int64)
    ok = ok and np.array_equal(mine, want)
    # Node peers' slot R: what this rank wrote there.
    got = [int(bases[t][R]) for t in peers]
    ok = ok and got == [1000 * R + t for t in peers]
    if NODE:   # the reads were memcpys too: no flush had anything to complete
        ok = ok and _core._flush_stats()["targets_flushed"] == reads["targets_flushed"]
    assert all_ok(ok), (before, mid, after, mine, got)
    pybcl.barrier()
    pybcl.free(slots)


def _keys(n):
    # Spread over every rank's block (hashing decides), the same on all ranks.
    return np.arange(1, n + 1, dtype=np.int64) * 7919


def test_hashmap_same_keys_all_ranks_exactly_one_entry_each():
    """Every rank inserts every key (half scalar: memcpy data + MPI CAS and
    publish; half batched: MPI accumulates only), in rotated orders so ranks
    collide; each key ends with exactly one entry whose value some rank wrote."""
    n = 24 * P
    keys = _keys(n)
    m = pybcl.HashMap(4 * n, "int64", "int64")
    order = np.roll(np.arange(n), R * n // max(P, 1))
    scalar = order[order % 2 == 0]
    batch = order[order % 2 == 1]
    for i in scalar:
        m.insert(int(keys[i]), int(keys[i]) * 1000 + R)
    m.insert_many(keys[batch], keys[batch] * 1000 + R)
    pybcl.barrier()
    size = m.size()
    vals, found = m.find_many(keys)
    one = [m.find(int(k)) for k in keys[order]]
    ok = (size == n and bool(found.all())
          and np.array_equal(vals // 1000, keys) and bool(((vals % 1000) < P).all())
          and all(v is not None and v // 1000 == k and v % 1000 < P
                  for v, k in zip(one, keys[order])))
    assert all_ok(ok), (size, n, found.sum())
    pybcl.barrier()


def test_hashmap_accumulate_same_keys_loses_no_update():
    """All ranks add to the same keys, scalar and batched, and read them back
    mid-run with find (memcpy of a READY bucket + MPI reader counts): the
    final sums are exact and no read ever sees a sum larger than possible."""
    n, reps = 8 * P, 3
    keys = _keys(n)
    m = pybcl.HashMap(4 * n, "int64", "int64")
    full = reps * P * (P + 1) // 2
    ok = True
    for rep in range(reps):
        for k in keys[R % 2::2]:
            m.accumulate(int(k), R + 1)
        m.accumulate_many(keys[1 - R % 2::2], R + 1)
        seen = [m.find(int(k), 0) for k in keys[:8]]
        ok = ok and all(0 <= v <= full for v in seen)
    pybcl.barrier()
    vals, found = m.find_many(keys)
    scal = [m.find(int(k)) for k in keys]
    ok = ok and bool(found.all()) and bool((vals == full).all()) and scal == [full] * n
    assert all_ok(ok), (vals, full)
    pybcl.barrier()


def test_circular_queue_concurrent_push_pop_exactly_once():
    """Pushes and pops at once on a queue smaller than what passes through it
    (the ring wraps): every value comes out exactly once."""
    per = 40
    q = pybcl.CircularQueue(0, 8 + 2 * P, "int64")
    mine = list(range(R * per, (R + 1) * per))
    popped = []
    for v in mine:
        while not q.push(v):
            try:
                popped.append(int(q.pop()))
            except pybcl.Empty:
                pass
        if v % 3 == 0:
            try:
                popped.append(int(q.pop()))
            except pybcl.Empty:
                pass
    pybcl.barrier()
    while True:
        try:
            popped.append(int(q.pop()))
        except pybcl.Empty:
            break
    pybcl.barrier()
    everything = sorted(sum(pybcl.comm().allgather(popped), []))
    assert all_ok(everything == list(range(P * per))), len(everything)
    pybcl.barrier()


def test_fast_queue_phases_exactly_once():
    per = 32
    q = pybcl.FastQueue(P - 1, per * P, "int64")
    ok = q.push_many(np.arange(R * per, (R + 1) * per, dtype=np.int64))
    pybcl.barrier()
    got = []
    while True:
        part = q.pop_many(5)
        if len(part) == 0:
            break
        got.extend(int(x) for x in part)
    pybcl.barrier()
    everything = sorted(sum(pybcl.comm().allgather(got), []))
    assert all_ok(ok and everything == list(range(P * per))), len(everything)
    pybcl.barrier()


# The host of a queue polling it makes only MPI calls aimed at its own
# memory (and node memcpys), which complete without running MPI's progress
# engine.  Where a peer's atomic needs the target's engine (rma-node's
# MPI_Win_create window under Open MPI 4.1 and MPICH 5), the peers pushing
# to it waited inside their atomics for ever.  The job runs on its own
# launcher, so every MPI's pass of the suite runs it on rma-node.
HOST_POLLS_JOB = """
    import time
    import pybcl
    pybcl.init(segment_size="4M")
    me, P = pybcl.rank(), pybcl.nprocs()
    per = 200
    q = pybcl.CircularQueue(0, per * P)
    pybcl.barrier()
    if me == 0:
        got, deadline = [], time.monotonic() + 20
        while len(got) < per * (P - 1) and time.monotonic() < deadline:
            try:
                got.append(q.pop())
            except pybcl.Empty:
                pass
        want = [r * per + i for r in range(1, P) for i in range(per)]
        assert sorted(got) == want, f"popped {len(got)} of {len(want)} pushes in 20 s"
    else:
        for i in range(per):
            q.push(me * per + i)
    pybcl.barrier()
    print(f"<ok {me}>", flush=True)
"""


@each_transport()
def test_a_host_polling_its_own_queue_lets_peers_push_to_it(tmp_path, nprocs, transport):
    run_ok(tmp_path, HOST_POLLS_JOB, nprocs, env=job_env(PYBCL_TRANSPORT=transport))
