"""Shared plumbing of the scaling benchmarks (bench_kmer_scaling, bench_isx_scaling).

Rank counts 1, 2, 4, ... up to the cores present; `--oversubscribe` adds
points beyond them, marked ``"oversubscribed": true`` and left out of every
ratio.  Every run is launched by the script itself and timed from outside
(wall seconds of the whole command); the load average is recorded before and
after each run, because these machines are shared.
"""
import os
import shutil
import subprocess
import sys
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def rank_points(max_ranks=None, oversubscribe=0):
    """[(P, oversubscribed)]: powers of two up to the cores, then `oversubscribe`
    more doublings."""
    top = max_ranks or cores()
    pts, p = [], 1
    while p <= top:
        pts.append((p, False))
        p *= 2
    if pts[-1][0] != top and not max_ranks:
        pts.append((top, False))
    for _ in range(oversubscribe):
        p = pts[-1][0] * 2
        pts.append((p, True))
    return pts


def mpiexec():
    return _mpi.mpiexec()


def env():
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def load():
    return [round(x, 2) for x in os.getloadavg()]


def timed(cmd, timeout=1800, environ=None):
    """(wall seconds, CompletedProcess, load average before, after)."""
    before = load()
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=environ or env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise SystemExit(f"timed out: {' '.join(cmd)}")
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{out}\n{err}")
    return dt, subprocess.CompletedProcess(cmd, 0, out, err), before, load()


def parse_histo(text):
    """{count: kmers} of a histogram's 'count<ws>kmers' lines (KMC's, Jellyfish's),
    zero lines dropped."""
    h = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and int(parts[1]):
            h[int(parts[0])] = int(parts[1])
    return h


def ensure_debian_packages(binaries_to_packages):
    """Install missing competitors with apt-get (Debian's `kmc`, `jellyfish`)."""
    missing = sorted({pkg for b, pkg in binaries_to_packages.items() if not shutil.which(b)})
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print(f"installing {' '.join(missing)} with apt-get", file=sys.stderr)
    subprocess.run(sudo + ["apt-get", "install", "-y"] + missing, check=True,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def plot(path, title, points, series, ylabel="seconds (wall)"):
    """Time vs ranks, one line per series; oversubscribed points hollow."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, getter in series:
        xs = [pt["ranks"] for pt in points if getter(pt) is not None]
        ys = [getter(pt) for pt in points if getter(pt) is not None]
        if not xs:
            continue
        line, = ax.plot(xs, ys, marker="o", label=name)
        over = [(x, y) for pt, x, y in zip([p for p in points if getter(p) is not None], xs, ys)
                if pt["oversubscribed"]]
        if over:
            ax.plot(*zip(*over), linestyle="none", marker="o", markerfacecolor="white",
                    color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("ranks / threads (hollow: oversubscribed)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
