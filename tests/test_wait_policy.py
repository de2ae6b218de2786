"""The wait policy follows the CPUs the ranks may really use (affinity and
cgroup quota, docs/progress.md section 4), not the machine's online count.
Launches its own mpiexec (serial_only): `taskset` must wrap each rank."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from launch import job_env, mpiexec_argv

REPORT = """
import json, os, sys
{pin}
import pybcl
from pybcl import _core
pybcl.init()
policy = _core.wait_policy()
policy["rank"] = pybcl.rank()
policy["affinity"] = sorted(os.sched_getaffinity(0))
print("<policy " + json.dumps(policy) + ">", flush=True)
"""

# Before pybcl starts, each rank pins itself to one CPU, different ones for
# the ranks of a node (as `mpiexec -bind-to core` or Slurm would).
PIN_DISTINCT = """
from mpi4py import MPI
node = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
cpus = sorted(os.sched_getaffinity(0))
os.sched_setaffinity(0, {cpus[node.Get_rank() % len(cpus)]})
node.Free()
"""


def policies(tmp_path, nprocs=2, wrap=(), pin="", **env):
    script = tmp_path / "policy.py"
    script.write_text(REPORT.format(pin=pin))
    environ = job_env(**env)
    if "PYBCL_WAIT" not in env:
        environ.pop("PYBCL_WAIT", None)       # the pass may set it: we test the guess
    cmd = mpiexec_argv(nprocs) + [*wrap, sys.executable, str(script)]
    proc = subprocess.run(cmd, env=environ, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = [json.loads(line[len("<policy "):-1]) for line in proc.stdout.splitlines()
             if line.startswith("<policy ")]
    assert sorted(p["rank"] for p in found) == list(range(nprocs)), proc.stdout
    return found


def crowded(found):
    """The job waits patiently iff some node has more ranks than CPUs."""
    return any(p["node_ranks"] > p["node_cpus"] for p in found)


needs_taskset = pytest.mark.skipif(shutil.which("taskset") is None,
                                   reason="needs taskset (util-linux)")


@pytest.mark.serial_only
@needs_taskset
def test_ranks_sharing_one_cpu_wait_patiently(tmp_path):
    """`taskset -c 0` around every rank: a node's ranks share one CPU."""
    cpu = min(os.sched_getaffinity(0))
    found = policies(tmp_path, wrap=("taskset", "-c", str(cpu)))
    for p in found:
        assert p["affinity"] == [cpu] and p["node_cpus"] == 1, found
        assert p["chosen_by"] == "cpus", found
        # two ranks on one CPU (one host), or one per host in a multi-host pass
        assert p["policy"] == ("patient" if crowded(found) else "spin"), found
    assert crowded(found) == any(p["node_ranks"] > 1 for p in found)


@pytest.mark.serial_only
@needs_taskset
def test_pybcl_wait_overrides_the_cpu_count(tmp_path):
    cpu = min(os.sched_getaffinity(0))
    found = policies(tmp_path, wrap=("taskset", "-c", str(cpu)), PYBCL_WAIT="spin")
    assert all(p["policy"] == "spin" and p["chosen_by"] == "PYBCL_WAIT" for p in found), found


def cgroup_cpu_quota():
    """This process's own (top-level) cgroup CPU quota in CPUs, or None."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()
            return None if quota == "max" else int(quota) / int(period)
    except OSError:
        pass
    for d in ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"):
        try:
            with open(f"{d}/cpu.cfs_quota_us") as q, open(f"{d}/cpu.cfs_period_us") as p:
                quota, period = int(q.read()), int(p.read())
                return None if quota <= 0 else quota / period
        except OSError:
            pass
    return None


@pytest.mark.serial_only
def test_ranks_on_distinct_cpus_count_their_union(tmp_path):
    """Each rank of a node pinned to its own CPU: alone it has one, together
    they have one per rank (up to the CPUs there are), so no oversubscription
    with as many ranks as CPUs."""
    cpus = len(os.sched_getaffinity(0))
    if cpus < 2:
        pytest.skip("needs two usable CPUs")
    quota = cgroup_cpu_quota()
    if quota is not None and quota < cpus:
        pytest.skip(f"a cgroup CPU quota of {quota:g} CPUs caps the count")
    found = policies(tmp_path, pin=PIN_DISTINCT)
    for p in found:
        assert len(p["affinity"]) == 1, found
        assert p["node_cpus"] == min(p["node_ranks"], cpus), found
        assert p["policy"] == ("patient" if crowded(found) else "spin"), found
