"""The wait policy follows the CPUs the ranks may really use (affinity and
cgroup quota, docs/progress.md section 4), not the machine's online count.
Launches its own mpiexec (serial_only): `taskset` must wrap each rank."""
import json
import os
import re
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
    # Ranks' lines may arrive glued together (MPICH 5's hydra): find records.
    found = [json.loads(m) for m in re.findall(r"<policy (\{.*?\})>", proc.stdout)]
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


def make_quota_cgroup(name, cpus):
    """A child cgroup limited to `cpus` CPUs of time, or None where this
    machine does not let us (not root, no writable cpu controller)."""
    period = 100_000
    for parent, v2 in (("/sys/fs/cgroup/cpu", False), ("/sys/fs/cgroup/cpu,cpuacct", False),
                       ("/sys/fs/cgroup", True)):
        limit_file = "cpu.max" if v2 else "cpu.cfs_quota_us"
        if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
            continue
        path = os.path.join(parent, name)
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            with open(os.path.join(path, limit_file), "w") as f:
                f.write(f"{int(cpus * period)} {period}" if v2 else str(int(cpus * period)))
            if not v2:
                with open(os.path.join(path, "cpu.cfs_period_us"), "w") as f:
                    f.write(str(period))
            return path
        except OSError:
            os.rmdir(path)
    return None


@pytest.mark.serial_only
def test_cgroup_cpu_quota_caps_the_count(tmp_path):
    """Two ranks in a cgroup allowed one CPU of time wait patiently, whatever
    their affinity says; 2.5 CPUs of time count as 2."""
    if os.environ.get("PYBCL_TEST_MPIEXEC_ARGS"):
        pytest.skip("the cgroup is made on this host only")
    for cpus, want_cpus in ((1.0, 1), (2.5, 2)):
        path = make_quota_cgroup(f"pybcl-test-{os.getpid()}", cpus)
        if path is None:
            pytest.skip("cannot create a cgroup with a CPU quota here")
        try:
            found = policies(tmp_path, wrap=("sh", "-c", f'echo $$ > {path}/cgroup.procs && '
                                              'exec "$0" "$@"'))
        finally:
            os.rmdir(path)
        affinity = len(found[0]["affinity"])
        for p in found:
            assert p["node_cpus"] == min(want_cpus, affinity), (cpus, found)
            assert p["policy"] == ("patient" if crowded(found) else "spin"), (cpus, found)
        assert crowded(found) == (2 > min(want_cpus, affinity))
