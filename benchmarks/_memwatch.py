"""Wall time and peak memory of a whole command and every process it starts.

Peak memory is the largest sum, over the command's process tree, of each
process's proportional set size (`Pss` of /proc/PID/smaps_rollup: a page
shared by n processes counts 1/n in each, so an MPI shared-memory window
counts once for the job, and file pages a process maps count too), sampled
every `interval` seconds from a thread of this process.  A short spike
between two samples can be missed; 20 ms is far below the phases measured
here (tenths of seconds and up).  Linux only.
"""
import os
import subprocess
import threading
import time


def _children():
    """{parent pid: [child pids]} of every process now alive."""
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(name))
    return kids


def tree(root):
    """root and all its descendants now alive."""
    kids, out, todo = _children(), [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, ()))
    return out


def pss_bytes(pid):
    """A process's proportional set size, 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Watch:
    """Samples the PSS sum of a process tree until stopped; .peak in bytes."""

    def __init__(self, root, interval=0.02):
        self.root, self.interval = root, interval
        self.peak, self.samples = 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            total = sum(pss_bytes(p) for p in tree(self.root))
            self.peak = max(self.peak, total)
            self.samples += 1
            if self._stop.wait(self.interval):
                return

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.peak


def run(cmd, env=None, cwd=None, timeout=3600, interval=0.02):
    """Run cmd to its end: dict(seconds, peak_bytes, samples, returncode, stdout,
    stderr).  Raises RuntimeError with the output if it fails or times out."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    watch = Watch(proc.pid, interval)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        watch.stop()
        raise RuntimeError(f"timed out after {timeout} s: {' '.join(cmd)}\n{out}\n{err}")
    seconds = time.perf_counter() - t
    peak = watch.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"failed ({proc.returncode}): {' '.join(cmd)}\n{out}\n{err}")
    return {"seconds": seconds, "peak_bytes": peak, "samples": watch.samples,
            "returncode": proc.returncode, "stdout": out, "stderr": err}
