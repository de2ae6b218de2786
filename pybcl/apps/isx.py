"""ISx integer sort on pybcl queues (BCL paper, section 9.1; Hanebutte & Hemstad 2015).

    mpiexec -n P python -m pybcl.apps.isx [--keys-per-rank N] [--max-key M]
        [--iterations I] [--message-size S] [--queue fast|circular]
        [--local sort|count] [--json FILE]

Weak scaling with the ISx reference's workload: every rank draws N signed
32-bit keys uniform in [0, M) (default M = 2^28) from PCG32 seeded with
(initstate=rank, initseq=rank), key = pcg32_boundedrand_r(M) -- for the
default M, the low 28 bits of each output.  Bucket b = key // ceil(M / P)
belongs to rank b.  One untimed burn-in iteration, then I timed ones; as in
the reference, a timed iteration covers key generation, bucketing, the
exchange and the local sort, between two barriers.

Exchange: one CircularQueue (or FastQueue) of int32 per rank, hosted there.
Keys are generated and bucketed in chunks of S * P keys; each chunk's
bucket for rank r (about S keys) goes out with one ``push_many`` to queue r
while the next chunk is generated -- the paper's aggregated, asynchronous
pushes.  After a barrier each rank does the local phase on its queue's
``local()`` view:

- ``--local sort`` (default): sorts the keys in place (NumPy sort);
- ``--local count``: the ISx reference's own local phase (its
  ``count_local_keys``): a histogram of the rank's key range
  ``[lo, lo + width)``, allocated per iteration, counts[key - lo] += 1 (C).

Verification (last iteration; ISx's checks plus order and a checksum): every
key on rank r lies in r's bucket range; with sort, each rank's keys are
sorted, so the concatenation over ranks is globally sorted; with count, the
histogram holds every received key (none outside the range) and sum(counts *
key) equals the received keys' sum; the number of keys over all ranks is
N * P; the sum of all keys received equals the sum of all keys generated.
Exit status 1 if anything fails.

Phases (seconds per iteration, the slowest rank's mean): generate_bucket_push,
exchange_wait (to the barrier after the pushes), local (sort or count),
final_barrier (waiting for the other ranks' local phase),
exchange = generate_bucket_push + exchange_wait, total (the sum of the four).
``per_iteration`` lists each timed iteration's breakdown on its slowest rank
(the rank with the largest total), whose parts sum exactly to that total: what
a plot of medians and spreads needs.
"""
import sys
import time
from typing import Any, Optional, Sequence

import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl import _core
from pybcl.apps import _kernels
from pybcl.apps import _cli

DEFAULT_MAX_KEY = 1 << 28
PHASES = ("generate_bucket_push", "exchange_wait", "local", "final_barrier", "exchange",
          "total")
PARTS = ("generate_bucket_push", "exchange_wait", "local", "final_barrier")  # sum = total
LOCAL_PHASES = ("sort", "count")


def _bucketize(keys: NDArray[np.int32], width: int, P: int
               ) -> tuple[NDArray[np.int32], NDArray[Any]]:
    """(dest-sorted keys, per-destination counts) of one chunk.  Also at one
    rank, so the local work per key is the same at every P (and the same as
    the Alltoallv baseline's)."""
    return _kernels.isx_bucketize(keys, width, P)    # ISx's counting bucketize, in C


def local_phase(keys: NDArray[np.int32], local: str, lo: int, hi: int
                ) -> Optional[tuple[NDArray[Any], int]]:
    """ISx's local phase on the keys this rank received (of [lo, hi)): sort
    them in place (None), or count them per key ((histogram, keys outside))."""
    if local == "sort":
        keys.sort()
        return None
    return _kernels.isx_count(keys, lo, max(hi - lo, 1))


def run_isx(keys_per_rank: int = 1 << 22, max_key: int = DEFAULT_MAX_KEY, iterations: int = 3,
            burn_in: int = 1, message_size: Optional[int] = None, queue: str = "circular",
            slack: Optional[float] = None, verbose: bool = False,
            local: str = "sort", keep_keys: bool = False) -> dict[str, Any]:
    """Collective.  Returns a dict of figures (same on every rank) incl. 'verified'.

    keep_keys: also return, as 'keys', a copy of the keys this rank received
    in the last iteration (with local="sort" sorted; concatenated in rank
    order they are all N * P keys, globally sorted).

    message_size: keys per push_many to one rank; default 2^16 on the shm
    transport, 2^20 on rma (there each push costs atomics that wait for the
    target rank to reach MPI, so fewer, larger pushes win).
    """
    if message_size is None:
        message_size = (1 << 16) if pybcl.transport() == "shm" else (1 << 20)
    if keys_per_rank < 1 or max_key < 1 or max_key > (1 << 31) - 1:
        raise ValueError("keys_per_rank must be >= 1 and max_key in [1, 2**31 - 1]")
    me, P = pybcl.rank(), pybcl.nprocs()
    if max_key < P:
        raise ValueError(f"max_key ({max_key}) must be at least the number of ranks ({P})")
    if local not in LOCAL_PHASES:
        raise ValueError(f"local must be one of {LOCAL_PHASES}, got {local!r}")
    N = int(keys_per_rank)
    width = -(-max_key // P)                       # ceil, as ISx's BUCKET_WIDTH
    lo, hi = me * width, min((me + 1) * width, max_key)
    # expected keys per rank ~ N*P*width/M; allow 8 sigma and then some
    expect = N * P * (hi - lo) / max_key
    cap = int(expect + 8 * np.sqrt(max(expect, 1)) + 4096) if slack is None else int(slack)
    cap = int(pybcl.allreduce(np.array([cap], dtype=np.int64), "max")[0])
    Queue = {"circular": pybcl.CircularQueue, "fast": pybcl.FastQueue}[queue]
    queues = [Queue(h, cap, "int32") for h in range(P)]
    chunk = max(1, message_size * P)
    times: dict[str, list[float]] = {p: [] for p in PHASES}
    ok = True
    problems = []
    kept: Optional[NDArray[np.int32]] = None

    for it in range(burn_in + iterations):
        timed = it >= burn_in
        pybcl.barrier()
        t0 = time.perf_counter()
        gen = _kernels.IsxKeyGen(me, max_key)
        sent_sum = 0
        full = False
        for off in range(0, N, chunk):
            keys = gen.take(min(chunk, N - off))
            sent_sum += int(keys.sum(dtype=np.int64))
            bucketed, counts = _bucketize(keys, width, P)
            ends = np.cumsum(counts)
            for j in range(P):                      # start with the next rank over
                r = (me + 1 + j) % P
                s = int(ends[r] - counts[r])
                e = int(ends[r])
                # a bucket larger than the queue never fits (push_many raises)
                if e > s and (e - s > cap or not queues[r].push_many(bucketed[s:e])):
                    full = True
        t1 = time.perf_counter()
        pybcl.barrier()
        t2 = time.perf_counter()
        view = queues[me].local()
        hist = local_phase(view, local, lo, hi)
        t3 = time.perf_counter()
        pybcl.barrier()
        t4 = time.perf_counter()
        if timed:
            times["generate_bucket_push"].append(t1 - t0)
            times["exchange_wait"].append(t2 - t1)
            times["local"].append(t3 - t2)
            times["final_barrier"].append(t4 - t3)
            times["exchange"].append(t2 - t0)
            times["total"].append(t4 - t0)
        if it == burn_in + iterations - 1:
            good, why = _verify(view, lo, hi, N, P, sent_sum, full, counts=hist)
            ok = ok and good
            problems += why
            kept = np.array(view, copy=True) if keep_keys else None
        # empty the queues for the next iteration (untimed)
        n_here = queues[me].size()
        if n_here:
            queues[me].pop_many(n_here)
        pybcl.barrier()
        if verbose and me == 0:
            print(f"  iteration {it}{' (burn-in)' if not timed else ''}: "
                  f"{t4 - t0:.3f} s", file=sys.stderr)

    # the slowest rank's mean time per phase (what a user waits for)
    mean = {p: float(np.mean(v)) if v else 0.0 for p, v in times.items()}
    worst = pybcl.allreduce(np.array([mean[p] for p in PHASES]), "max")
    seconds = dict(zip(PHASES, map(float, worst)))
    seconds["local_" + local] = seconds["local"]      # the name says which local phase
    per_iteration = slowest_rank_breakdown(
        np.array([times[p] for p in PARTS]).T.reshape(iterations, len(PARTS)),
        pybcl.allreduce, me)
    total_keys = N * P
    res = {
        "app": "isx", "ranks": P, "keys_per_rank": N, "max_key": int(max_key),
        "bucket_width": int(width), "iterations": iterations, "burn_in": burn_in,
        "message_size": int(message_size), "queue": queue, "queue_capacity": cap,
        "local": local,
        "transport": pybcl.transport(),
        "seconds_per_iteration": seconds,
        "per_iteration": {"parts": list(PARTS), "seconds": per_iteration},
        "keys_per_s": total_keys / seconds["total"] if seconds["total"] > 0 else None,
        "verified": bool(ok), "problems": problems,
    }
    if keep_keys:
        res["keys"] = kept
    return res


def slowest_rank_breakdown(rows: NDArray[np.float64], allreduce: Any,
                           rank: int) -> list[list[float]]:
    """Collective.  rows[i] = this rank's phase times in timed iteration i
    (parts summing to its total).  Returns, per iteration, the parts of the
    rank whose total was largest (the lowest such rank on a tie), the same on
    every rank.  allreduce(array, op) with op "max", "min" or "sum" over the
    ranks; `rank` is this rank's number there."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    totals = rows.sum(axis=1)
    worst = allreduce(totals.copy(), "max")
    chosen = allreduce(np.where(totals >= worst, rank, 1 << 62).astype(np.int64), "min")
    mine = np.where((chosen == rank)[:, None], rows, 0.0)
    return [[float(x) for x in row] for row in allreduce(mine, "sum")]


def _weighted_key_sum(hist: NDArray[Any], lo: int, step: int = 1 << 22) -> int:
    """sum(hist[i] * (lo + i)), in pieces (a histogram may have 2^28 bins)."""
    total = 0
    for a in range(0, len(hist), step):
        h = hist[a:a + step].astype(np.int64)
        total += int(np.dot(h, np.arange(lo + a, lo + a + len(h), dtype=np.int64)))
    return total


def _verify(view: NDArray[np.int32], lo: int, hi: int, N: int, P: int, sent_sum: int,
            full: bool,
            counts: Optional[tuple[NDArray[np.int32], int]] = None) -> tuple[bool, list[str]]:
    me = pybcl.rank()
    why = []
    n = len(view)
    if full:
        why.append(f"rank {me}: a queue was full (push_many refused keys)")
    if n and (int(view.min()) < lo or int(view.max()) >= hi):
        why.append(f"rank {me}: key outside [{lo}, {hi})")
    if counts is None:
        if n > 1 and not bool(np.all(view[1:] >= view[:-1])):
            why.append(f"rank {me}: keys not sorted")
    else:
        hist, outside = counts
        held = int(hist.sum(dtype=np.int64))
        weighted = _weighted_key_sum(hist, lo)
        if outside or held != n:
            why.append(f"rank {me}: histogram holds {held} of {n} keys ({outside} outside "
                       f"[{lo}, {hi}))")
        elif weighted != int(view.sum(dtype=np.int64)):
            why.append(f"rank {me}: histogram's key sum {weighted} != the keys' sum")
    got = pybcl.allreduce(np.array([n, int(view.sum(dtype=np.int64)), sent_sum],
                                   dtype=np.int64), "sum")
    if int(got[0]) != N * P:
        why.append(f"total keys {int(got[0])} != {N * P}")
    if int(got[1]) != int(got[2]):
        why.append(f"key checksum {int(got[1])} != generated {int(got[2])}")
    why_all = pybcl.comm().allgather(why)
    why = sorted({w for part in why_all for w in part})
    return not why, why


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _cli.Parser(prog="python -m pybcl.apps.isx",
                     description="ISx bucket sort (weak scaling) on pybcl queues.")
    ap.add_argument("--keys-per-rank", type=int, default=1 << 22,
                    help="keys generated per rank (default 2^22)")
    ap.add_argument("--max-key", type=int, default=DEFAULT_MAX_KEY,
                    help="keys are uniform in [0, MAX_KEY) (default 2^28, as ISx)")
    ap.add_argument("--iterations", type=int, default=3, help="timed iterations (default 3)")
    ap.add_argument("--burn-in", type=int, default=1, help="untimed iterations first (1)")
    ap.add_argument("--message-size", type=int, default=None,
                    help="keys per push_many to one rank (default 2^16 on shm, 2^20 on rma)")
    ap.add_argument("--queue", choices=("circular", "fast"), default="circular")
    ap.add_argument("--local", choices=LOCAL_PHASES, default="sort",
                    help="local phase: NumPy sort (default) or ISx's count_local_keys "
                         "histogram")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    P = _cli.world()[1]
    ap.at_least("--keys-per-rank", args.keys_per_rank, 1)
    if not P <= args.max_key <= (1 << 31) - 1:
        ap.error(f"argument --max-key: must be in [{P} (the number of ranks), 2^31 - 1], "
                 f"got {args.max_key}")
    ap.at_least("--iterations", args.iterations, 1)
    ap.at_least("--burn-in", args.burn_in, 0)
    ap.at_least("--message-size", args.message_size, 1)
    if not _cli.check_outputs(ap.prog, (("--json", args.json),)):
        return _cli.INPUT
    # the queue hosted here holds ~keys_per_rank int32 keys
    if not _core.initialized():
        need = 3 * 4 * args.keys_per_rank + (64 << 20)
        try:
            pybcl.init(segment_size=max(need, pybcl._env.segment_size()))
        except pybcl.SegmentFull as exc:     # raised on every rank alike
            _cli.say_error(ap.prog, f"--keys-per-rank {args.keys_per_rank}: {exc}")
            # every rank leaves with 1 and finalizes MPI: no abort needed
            raise SystemExit(1) from None
    res = run_isx(args.keys_per_rank, args.max_key, args.iterations, args.burn_in,
                  args.message_size, args.queue, verbose=args.verbose, local=args.local)
    with _cli.Outputs(ap.prog) as out:
        if pybcl.rank() == 0:
            s = res["seconds_per_iteration"]
            print(f"ISx on pybcl {args.queue} queues, local {args.local}: {res['ranks']} "
                  f"rank(s), {res['keys_per_rank']:,} keys/rank, max key "
                  f"{res['max_key']:,}, transport {res['transport']}")
            for p in PHASES:
                print(f"  {p:22s} {s[p]:.4f} s")
            print(f"  {res['keys_per_s'] / 1e6:.2f} M keys/s; verification "
                  f"{'PASSED' if res['verified'] else 'FAILED'}")
            for w in res["problems"]:
                print("  " + w)
            _cli.write_json(args.json, res)
    return out.status(0 if res["verified"] else 1)


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
