"""pybcl in ipyparallel's MPI engines (one IPython kernel per rank), started
here with the suite's mpiexec: a cell that fails on one engine, an
interrupt, and remote operations aimed at an engine that sits idle between
cells.  Each wait on the engines is bounded, so a hang fails the test
instead of the pass; every process the cluster started is stopped after.
Needs the `notebooks` extra (ipyparallel).
"""
import os
import signal
import time

import pytest

from launch import load_script

NENGINES = 4
WAIT = 90          # seconds any one request to the engines may take


@pytest.fixture(scope="module", params=["shm", "rma"])
def engines(request):
    """A DirectView on 4 MPI engines of one job on `transport`, pybcl
    imported and initialised on each."""
    ipp = pytest.importorskip("ipyparallel")
    cluster_env = load_script("engine_cluster")
    saved = dict(os.environ)
    with cluster_env.ipython_dir() as env:
        os.environ.update(env, PYBCL_TRANSPORT=request.param)
        try:
            cluster = ipp.Cluster(engines="mpi", n=NENGINES, log_level=40)
            client = cluster.start_and_connect_sync(activate=False)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        try:
            client.wait_for_engines(NENGINES, timeout=WAIT)
            view = client[:]
            view.block = False
            view.execute("import pybcl\npybcl.init()").get(timeout=WAIT)
            view.client = client
            yield view
        finally:
            client.close()
            cluster.stop_cluster_sync()
            where = env["IPYTHONDIR"]
            cluster_env.stop_all(where)
            assert not cluster_env._ours(where), "engines left running"


def _errors(exc):
    """{engine id: (exception name, message)} of a CompositeError."""
    return {e[3]["engine_id"]: (e[0], e[1]) for e in exc.elist}


def _in_step(view):
    """The next collective cells work on every engine."""
    view.execute("pybcl.barrier()\n_n = pybcl.allreduce(1)").get(timeout=WAIT)
    assert view.pull("_n").get(timeout=WAIT) == [NENGINES] * NENGINES


@pytest.mark.serial_only
def test_an_exception_on_one_engine_fails_the_others_collective_instead_of_hanging(engines):
    ipp = pytest.importorskip("ipyparallel")
    cell = engines.execute("if pybcl.rank() == 1:\n"
                           "    raise ValueError('only on rank 1')\n"
                           "pybcl.barrier()")
    with pytest.raises(ipp.error.CompositeError) as info:
        cell.get(timeout=WAIT)
    errors = _errors(info.value)
    assert errors[1] == ("ValueError", "only on rank 1")
    for rank in (0, 2, 3):
        name, message = errors[rank]
        assert name == "Error"
        assert "barrier(): rank 1 stopped its part of this cell (ValueError" in message
    _in_step(engines)


def _apply(view, expr):
    """`expr` evaluated on the engines by an `apply` request (eval, a
    builtin, travels by name; the engines' namespace is the cells')."""
    return view.apply(eval, expr)


@pytest.mark.serial_only
def test_an_apply_that_raises_on_one_engine_fails_the_others_constructor(engines):
    ipp = pytest.importorskip("ipyparallel")
    engines.execute("def _build():\n"
                    "    if pybcl.rank() == 2:\n"
                    "        raise KeyError('only on rank 2')\n"
                    "    return pybcl.HashMap(100, 'int64', 'int64').capacity > 0").get(timeout=WAIT)
    with pytest.raises(ipp.error.CompositeError) as info:
        _apply(engines, "_build()").get(timeout=WAIT)
    errors = _errors(info.value)
    assert errors[2][0] == "KeyError"
    for rank in (0, 1, 3):
        assert errors[rank][0] == "Error"
        assert "rank 2 stopped its part of this cell (KeyError" in errors[rank][1]
    _in_step(engines)
    # and a constructor works again, with every rank in it
    engines.execute("_h = pybcl.HashMap(100, 'int64', 'int64')\n"
                    "_h[pybcl.rank()] = 10 * pybcl.rank()\npybcl.barrier()").get(timeout=WAIT)
    found = _apply(engines, "int(_h[(pybcl.rank() + 1) % pybcl.nprocs()])").get(timeout=WAIT)
    assert found == [10 * ((r + 1) % NENGINES) for r in range(NENGINES)]


@pytest.mark.serial_only
def test_an_interrupt_ends_the_cell_and_the_engines_live_on(engines):
    ipp = pytest.importorskip("ipyparallel")
    pids = engines.apply(os.getpid).get(timeout=WAIT)
    # rank 0 computes while the others wait for it in a barrier
    cell = engines.execute("import time\n"
                           "if pybcl.rank() == 0:\n"
                           "    time.sleep(3600)\n"
                           "pybcl.barrier()")
    time.sleep(2)
    engines.client.send_signal(signal.SIGINT, targets=engines.targets, block=True)
    with pytest.raises(ipp.error.CompositeError) as info:
        cell.get(timeout=WAIT)
    errors = _errors(info.value)
    assert errors[0][0] == "KeyboardInterrupt", errors
    # a peer whose own SIGINT comes after rank 0's failure reached it ends
    # the cell with that failure instead: either way it stops
    for rank in range(1, NENGINES):
        name, message = errors[rank]
        assert name == "KeyboardInterrupt" or (
            name == "Error" and "stopped its part of this cell (KeyboardInterrupt" in message), errors
    assert engines.apply(os.getpid).get(timeout=WAIT) == pids     # the same engines
    _in_step(engines)


@pytest.mark.serial_only
def test_remote_atomics_complete_while_the_target_engine_sits_idle(engines):
    """Rank 0 adds to a counter rank 3 hosts while rank 3 runs no cell: on
    rma, MPI completes them only while the target is in MPI, which an idle
    engine is not without pybcl's progress thread."""
    engines.execute("_c = pybcl.broadcast(pybcl.alloc(1, 'int64') if pybcl.rank() == 3 "
                    "else None, root=3)\n"
                    "if pybcl.rank() == 3:\n    _c.local()[0] = 0\n"
                    "pybcl.barrier()").get(timeout=WAIT)
    assert all(_apply(engines, "pybcl._core.progress_thread()").get(timeout=WAIT))
    rank0 = engines.client[engines.targets[0]]
    last = _apply(rank0, "[pybcl.fetch_and_add(_c, 1) for _ in range(200)][-1]")
    assert last.get(timeout=WAIT) == 199
    assert _apply(rank0, "pybcl.atomic_load(_c)").get(timeout=WAIT) == 200
