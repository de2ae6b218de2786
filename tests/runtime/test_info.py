"""pybcl.info() and `python -m pybcl --info`: the facts a bug report needs,
checked against what MPI and the environment say independently."""
import json
import os

import pytest
from mpi4py import MPI

import pybcl
from conftest import all_ok
from launch import job_env, run_python

KEYS = {"version", "python", "platform", "mpi_library", "mpi_version", "mpi4py", "numpy",
        "rank", "nprocs", "ranks_per_node", "transport", "transport_requested",
        "transport_reason", "segment_size", "wait_policy", "wait_reason", "node_cpus",
        "async_progress_requested", "progress_thread", "progress_reason"}


def test_info_matches_the_runtime():
    d = pybcl.info()
    node = pybcl.comm().Split_type(MPI.COMM_TYPE_SHARED)          # collective
    per_node = node.Get_size()
    node.Free()
    ok = (set(d) == KEYS and d["version"] == pybcl.__version__
          and d["rank"] == pybcl.rank() and d["nprocs"] == pybcl.nprocs()
          and d["ranks_per_node"] == per_node
          and d["transport"] == pybcl.transport()
          and d["mpi_library"].split()[0] in MPI.Get_library_version()
          and d["segment_size"] > 0 and d["segment_size"] % 64 == 0
          and d["wait_policy"] in ("spin", "patient")
          and d["progress_thread"] == (d["async_progress_requested"]
                                       and d["transport"] in ("rma", "rma-node"))
          and d["progress_reason"].endswith("running" if d["progress_thread"] else
                                            ("none", "not requested")))
    # The transport follows the documented rule.
    requested = os.environ.get("PYBCL_TRANSPORT", "auto") or "auto"
    if requested == "auto":
        most = max(pybcl.comm().allgather(per_node))
        ok = ok and d["transport"] == ("shm" if per_node == pybcl.nprocs()
                                       else "rma-node" if most >= 2 else "rma")
        ok = ok and d["transport_reason"].startswith("auto: ")
        ok = ok and d["transport_reason"].endswith(f"-> {d['transport']}")
    else:
        ok = ok and d["transport"] == requested
        ok = ok and d["transport_reason"] == f"requested: {requested}"
    # One wait policy for the whole job, forced by PYBCL_WAIT when set.
    forced = os.environ.get("PYBCL_WAIT")
    if forced in ("spin", "patient"):
        ok = ok and d["wait_policy"] == forced
    elif per_node > d["node_cpus"]:
        ok = ok and d["wait_policy"] == "patient"
    policies = pybcl.comm().allgather(d["wait_policy"])
    assert all_ok(ok and len(set(policies)) == 1), d


@pytest.mark.serial_only
@pytest.mark.parametrize("transport,wait,progress", [("rma", "patient", "1"),
                                                     ("rma-node", "spin", "1"),
                                                     ("auto", "spin", "0")])
def test_python_m_pybcl_info(transport, wait, progress):
    env = job_env(PYBCL_TRANSPORT=transport, PYBCL_WAIT=wait, PYBCL_ASYNC_PROGRESS=progress,
                  PYBCL_SEGMENT_SIZE="8M")
    proc = run_python(["-m", "pybcl", "--info", "--json"], 2, env=env)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)                  # rank 0 prints, once
    assert set(d) == KEYS
    assert (d["nprocs"], d["ranks_per_node"]) == (2, 2)
    assert d["transport"] == ("shm" if transport == "auto" else transport)
    assert d["wait_policy"] == wait and d["wait_reason"].startswith(f"PYBCL_WAIT={wait} ")
    assert d["progress_thread"] is (progress == "1")
    assert d["segment_size"] == 8 << 20
    text = run_python(["-m", "pybcl", "--info"], 1, env=env)
    assert text.returncode == 0 and "wait_policy" in text.stdout and d["mpi_library"] in text.stdout
