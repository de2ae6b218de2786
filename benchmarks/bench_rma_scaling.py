"""How pybcl's container ops scale with ranks, rma, rma-node and shm.

    python benchmarks/bench_rma_scaling.py [--ranks 2,4,8] [--transports rma,shm]
                                           [--scalar N] [--batch N] > scaling.json
    python benchmarks/bench_rma_scaling.py --hosts 3      # network-namespace hosts
    python benchmarks/bench_rma_scaling.py --hosts 2 --per-host 2 \
        --transports rma,auto --waits default             # rma-node vs rma

Every rank works at once, each on its own random keys (random owners): a
scalar op's time is the SLOWEST rank's µs per op, a batch's throughput is
the aggregate keys/s (all ranks' keys over the slowest rank's time).  Ops:
insert, find, find-only (scalar); insert_many, find_many, find-only
find_many; HashMapBuffer (insert_many + flush); flush() with nothing
outstanding; rput of 8 bytes to k targets + flush() for k = 1, P/2, P.
On rma and rma-node each batch also reports, from the core's flush counters
(`pybcl._core._flush_stats`), the rounds it took (one flush per round) and
the targets flushed per round: the terms of the scaling model in
docs/hashmap_perf.md.

Default ranks: 2 up to the cores present, plus 2x and 4x oversubscribed
points, each marked `"oversubscribed": true` (ranks > cores: the core then
waits patiently, docs/progress.md, and timings measure the scheduler as much
as pybcl).  `--hosts H` runs rma across H network-namespace hosts made by
scripts/netns/hosts.sh (UCX_TLS=tcp,self; one rank per host by
default, `--per-host R[,R2..]` for more; `--transports` there defaults to
rma, and `auto` shows what auto picks: rma-node when a host runs >= 2 ranks;
`--waits` picks PYBCL_WAIT values, `default` leaving it unset); it reuses
hosts that exist and removes only the ones it created.  Every record names
the transport the job reported (`transport`) and the one asked for
(`transport_requested`).  One JSON object on stdout; the 1-min load
average is recorded before and after every run.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import _mpi  # noqa: E402  (benchmarks/, the script's own folder)
from _netns import netns_hosts  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(n_scalar, n_batch):
    import numpy as np
    import pybcl
    from pybcl import _core

    P, r = pybcl.nprocs(), pybcl.rank()
    rma = pybcl.transport() in ("rma", "rma-node")
    F = pybcl.ConProm.HashMap.find
    rng = np.random.default_rng(1000 + r)
    out = {"transport": pybcl.transport(), "ranks": P}

    def slowest(seconds):
        return pybcl.allreduce(seconds, "max")

    def timed(fn):
        pybcl.barrier()
        t0 = time.perf_counter()
        fn()
        return slowest(time.perf_counter() - t0)

    def counted(fn):
        """(slowest seconds, this rank's rounds, targets flushed per round)."""
        s0 = _core._flush_stats()
        dt = timed(fn)
        s1 = _core._flush_stats()
        rounds = s1["flushes"] - s0["flushes"]
        tgt = s1["targets_flushed"] - s0["targets_flushed"]
        rounds = pybcl.allreduce(rounds, "max")
        per_round = pybcl.allreduce(tgt / max(rounds, 1), "max")
        return dt, rounds, round(per_round, 2)

    m = pybcl.HashMap(max(8 * n_batch * P, 1 << 16))
    sk = rng.integers(0, 2**62, n_scalar)
    ins, find = m.insert, m.find
    out["insert_us"] = round(timed(lambda: [ins(int(k), int(k)) for k in sk]) / n_scalar * 1e6, 3)
    out["find_us"] = round(timed(lambda: [find(int(k)) for k in sk]) / n_scalar * 1e6, 3)
    out["find_only_us"] = round(
        timed(lambda: [find(int(k), None, F) for k in sk]) / n_scalar * 1e6, 3)

    bk = rng.integers(0, 2**62, n_batch)
    for name, fn in (("insert_many", lambda: m.insert_many(bk, bk)),
                     ("find_many", lambda: m.find_many(bk)),
                     ("find_only_many", lambda: m.find_many(bk, promise=F))):
        dt, rounds, per_round = counted(fn)
        out[name + "_Mkeys_s"] = round(P * n_batch / dt / 1e6, 3)
        if rma:
            out[name + "_rounds"] = rounds
            out[name + "_targets_per_round"] = per_round

    m2 = pybcl.HashMap(max(8 * n_batch * P, 1 << 16))
    mine = rng.integers(0, 2**62, n_batch)

    def buffered():
        with pybcl.HashMapBuffer(m2, queue_size=n_batch, message_size=1024) as buf:
            buf.insert_many(mine, mine)
    out["buffer_Mkeys_s"] = round(P * n_batch / timed(buffered) / 1e6, 3)

    # flush costs
    nf = 2000
    out["flush_idle_us"] = round(timed(lambda: [pybcl.flush() for _ in range(nf)]) / nf * 1e6, 3)
    cell = pybcl.alloc(P, "int64")
    ptrs = [pybcl.broadcast(cell, root=q) for q in range(P)]
    one = np.ones(1, np.int64)
    nk = 300
    for k in sorted({1, max(P // 2, 1), P}):
        targets = [ptrs[(r + j) % P] + r for j in range(k)]

        def put_flush():
            for _ in range(nk):
                for t in targets:
                    pybcl.rput(t, one)
                pybcl.flush()
        s0 = _core._flush_stats()["targets_flushed"]
        dt = timed(put_flush)
        tf = (_core._flush_stats()["targets_flushed"] - s0) / nk
        out[f"put{k}_flush_us"] = round(dt / nk * 1e6, 3)
        if rma:
            out[f"put{k}_flush_targets_flushed"] = round(tf, 2)
    pybcl.barrier()
    pybcl.free(cell)
    stats = _core._flush_stats()
    out["flush_all_trusted"] = stats["flush_all_trusted"]
    if r == 0:
        print("RESULT " + json.dumps(out), flush=True)


def run_job(argv_prefix, env, n_scalar, n_batch, timeout):
    cmd = argv_prefix + [sys.executable, os.path.abspath(__file__), "--worker",
                         "--scalar", str(n_scalar), "--batch", str(n_batch)]
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    try:
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s", "loadavg_1min_start": load0}
    rec = {"error": (res.stderr or res.stdout)[-800:]}
    for line in res.stdout.splitlines():
        if line.startswith("RESULT "):
            rec = json.loads(line[7:])
    rec["loadavg_1min_start"] = load0
    rec["loadavg_1min_end"] = os.getloadavg()[0]
    rec["wall_s"] = round(time.monotonic() - t0, 1)
    return rec


def job_env(**extra):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra)
    return env


def mpiexec():
    return _mpi.mpiexec()


def single_node(args):
    cores = os.cpu_count() or 1
    ranks = [int(x) for x in args.ranks.split(",")] if args.ranks else \
        sorted({*range(2, cores + 1), 2 * cores, 4 * cores} - {0, 1})
    runs = []
    for n in ranks:
        for tr in (args.transports or "rma,shm").split(","):
            rec = run_job([mpiexec(), "-n", str(n)], job_env(PYBCL_TRANSPORT=tr),
                          args.scalar, args.batch, args.timeout)
            rec.setdefault("transport", tr)
            rec.update(ranks=n, transport_requested=tr, oversubscribed=n > cores)
            runs.append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)
    return {"cores": cores, "runs": runs}


def per_host_counts(args):
    """--per-host R: 1 and R ranks per host (as before); R1,R2,..: exactly those."""
    counts = [int(x) for x in str(args.per_host).split(",") if x]
    return counts if len(counts) > 1 or "," in str(args.per_host) else sorted({1, counts[0]})


def multi_host(args):
    runs = []
    with netns_hosts(args.hosts) as launch:
        for per, tr, wait in ((p, t, w) for p in per_host_counts(args)
                              for w in args.waits.split(",")
                              for t in (args.transports or "rma").split(",")):
            n = args.hosts * per
            env = {"PYBCL_TRANSPORT": tr}
            if wait != "default":
                env["PYBCL_WAIT"] = wait
            rec = run_job(launch(per, env), job_env(), args.scalar, args.batch, args.timeout)
            rec.update(hosts=args.hosts, ranks_per_host=per, wait=wait,
                       transport_requested=tr,
                       oversubscribed=n > (os.cpu_count() or 1))
            runs.append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)
    return {"hosts": args.hosts, "runs": runs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ranks", default="", help="comma list (default 2..cores, 2x, 4x)")
    ap.add_argument("--transports", default="",
                    help="comma list (default rma,shm; across hosts rma)")
    ap.add_argument("--waits", default="spin,patient",
                    help="PYBCL_WAIT values across hosts ('default': unset)")
    ap.add_argument("--scalar", type=int, default=2000, help="scalar ops per rank")
    ap.add_argument("--batch", type=int, default=50000, help="batch keys per rank")
    ap.add_argument("--hosts", type=int, default=0, help="network-namespace hosts")
    ap.add_argument("--per-host", default="1",
                    help="ranks per host (--hosts): R runs 1 and R; R1,R2: exactly those")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per job")
    args = ap.parse_args()
    if args.worker:
        import pybcl
        pybcl.init()
        worker(args.scalar, args.batch)
        return
    out = {"benchmark": "pybcl rma scaling", "host_cores": os.cpu_count(),
           "scalar_ops_per_rank": args.scalar, "batch_keys_per_rank": args.batch,
           "loadavg_1min_start": os.getloadavg()[0],
           "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    out.update(multi_host(args) if args.hosts else single_node(args))
    out["loadavg_1min_end"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
