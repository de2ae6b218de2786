"""Simulated hosts for benchmarks: network namespaces made by
scripts/netns/hosts.sh (root, iproute2), MPI between them over TCP
(UCX_TLS=tcp,self), launched by hydra with nsexec.sh standing in for ssh.

    with netns_hosts(3) as launch:
        subprocess.run(launch(per_host=1) + [sys.executable, ...])

Hosts that already exist are used as they are (another job may share them);
only the ones this context created are removed afterwards."""
import contextlib
import os
import subprocess

from _mpi import mpiexec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "scripts", "netns")


def _hosts_sh(*args):
    return subprocess.run(["bash", os.path.join(TOOLS, "hosts.sh"), *args], check=True,
                          capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def netns_hosts(count):
    """Yields launch(per_host=1, env=None) -> the mpiexec argv prefix (up to
    and including -n) that spreads per_host ranks on each of `count` hosts;
    env: extra variables for every rank."""
    name = os.environ.get("PYBCL_NETNS_NAME", "pb")      # as hosts.sh names them
    have = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    wanted = [f"{name}h{i}" for i in range(1, count + 1)]
    missing = [h for h in wanted if h not in have.split()]
    if missing:
        subprocess.run(["bash", os.path.join(TOOLS, "hosts.sh"), "up", str(count)],
                       check=True)
    hosts, iface = _hosts_sh("list", str(count)), _hosts_sh("iface")

    def launch(per_host=1, env=None):
        argv = [mpiexec(), "-launcher", "ssh", "-launcher-exec",
                os.path.join(TOOLS, "nsexec.sh"), "-iface", iface, "-hosts",
                ",".join(f"{h}:{per_host}" for h in hosts.split(",")),
                "-genv", "UCX_TLS", "tcp,self", "-genv", "PYTHONPATH", ROOT]
        for key, value in (env or {}).items():
            argv += ["-genv", key, str(value)]
        return argv + ["-n", str(count * per_host)]

    try:
        yield launch
    finally:
        for h in missing:            # only the namespaces this run made
            subprocess.run(["ip", "netns", "del", h], check=False)
