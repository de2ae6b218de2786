"""GUPS: HPCC RandomAccess on a pybcl DArray.

    mpiexec -n P python -m pybcl.apps.gups [--log2-size N] [--updates-per-rank U]
        [--batch B] [--no-buffer] [--json FILE]

The table is a ``DArray`` of 2^N uint64 words (default: N so that the table
is a quarter of the ranks' segments together), T[i] = i at the start.  Every
rank makes U updates (default 4 * 2^N / P, HPCC's 4 updates per word) from
HPCC's stream -- the GF(2) shift register with POLY = 7, rank r starting at
the stream's value number r * U (HPCC_starts) -- and each update is
``T[a & (2^N - 1)] ^= a``.

Modes:

- ``--batch 1``: one remote atomic XOR per update (a posted
  ``MPI_Accumulate(MPI_BXOR)`` on rma; a CPU atomic on shm), the loop in C;
- ``--batch B`` (B > 1, default 1024): updates are aggregated: by default
  through a ``DArrayBuffer`` (messages of B updates to each owner's queue,
  the owners apply them locally at each flush(); a flush after every 2^18
  updates of each rank), or with ``--no-buffer`` by ``DArray.update_many``
  on B updates at a time (grouped by owner, one batched atomic per owner).

Verification, as HPCC's: every rank replays its stream (with
``update_many``, a path independent of the buffer), so XOR undoes every
update, and the errors are the words with T[i] != i.  Errors must be at most
1 % of the table with ``--batch 1`` (HPCC's allowance for unsynchronised
updates; pybcl's are atomic, so it finds none) and 0 otherwise.  A second
check catches lost updates that a replay through the same loss would hide:
the XOR of the whole table after the timed run must equal the XOR of the
initial table and of every update value.  Exit status 1 if either fails.

JSON (``--json FILE``): gups (10^9 updates per second, all ranks), errors,
errors_allowed, table_size, updates (all ranks), seconds, mode, batch,
ranks, transport, checksum_ok, verified.
"""
import time
from typing import Any, Optional, Sequence

import numpy as np

import pybcl
from pybcl import _core
from pybcl.apps import _kernels
from pybcl.apps import _cli

CHUNK = 1 << 16           # stream values generated at a time (update_many paths)
FLUSH_EVERY = 1 << 18     # buffered updates per rank between flushes


def default_log2_size(P: int, segment_size: int) -> int:
    """N with 2^N words = at most a quarter of the P segments."""
    words = P * segment_size // 4 // 8
    return max(int(words).bit_length() - 1, 1)


def _apply_stream(T: Any, state: int, n: int, mask: int, apply: Any) -> int:
    """Generate n stream values after `state` in chunks, call apply(idx, vals)."""
    done = 0
    while done < n:
        k = min(CHUNK, n - done)
        ran, state = _kernels.gups_stream(state, k)
        apply(ran & np.uint64(mask), ran)
        done += k
    return state


def _stream_xor(state: int, n: int) -> int:
    acc = np.uint64(0)
    done = 0
    while done < n:
        k = min(CHUNK, n - done)
        ran, state = _kernels.gups_stream(state, k)
        acc ^= np.bitwise_xor.reduce(ran)
        done += k
    return int(acc)


def _xor_all(x: int) -> int:
    """Collective: the XOR of every rank's 64-bit x."""
    return int(pybcl.allreduce(np.array([x], dtype=np.uint64), op="bxor")[0])


def _xor_of(a: Any) -> int:
    return int(np.bitwise_xor.reduce(a)) if len(a) else 0


def _run_updates(T: Any, start: int, U: int, batch: int, buffered: bool) -> None:
    P = pybcl.nprocs()
    mask = T.size - 1
    if batch == 1:
        _kernels.gups_atomic(T, start, U)
        return
    if not buffered:
        _apply_stream(T, start, U, mask, lambda i, v: _update_many_chunks(T, i, v, batch))
        return
    buf = pybcl.DArrayBuffer(T, batch, op="xor")
    per_flush = max(FLUSH_EVERY, batch)
    state, done = start, 0
    while done < U:           # every rank runs the same number of flushes
        k = min(per_flush, U - done)
        ran, state = _kernels.gups_stream(state, k)
        buf.update_many(ran & np.uint64(mask), ran)
        buf.flush()
        done += k


def _update_many_chunks(T: Any, idx: Any, vals: Any, batch: int) -> None:
    for s in range(0, len(idx), batch):
        T.update_many(idx[s:s + batch], vals[s:s + batch], op="xor")


def run_gups(log2_size: int, updates_per_rank: int, batch: int = 1024,
             buffered: bool = True, inject_errors: int = 0) -> dict[str, Any]:
    """Collective: one timed RandomAccess run plus verification; the figures."""
    P, me = pybcl.nprocs(), pybcl.rank()
    size = 1 << log2_size
    U = updates_per_rank
    T = pybcl.DArray(size, "uint64")
    first, stop = T.local_range()
    count = stop - first
    T.local()[:] = np.arange(first, first + count, dtype=np.uint64)
    start = _kernels.gups_starts(me * U)
    pybcl.barrier()
    t0 = time.perf_counter()
    _run_updates(T, start, U, batch, buffered)
    pybcl.barrier()
    seconds = time.perf_counter() - t0
    seconds = float(pybcl.allreduce(seconds, op="max"))
    # checksum: XOR of the table == XOR of the initial table ^ XOR of all updates
    init = np.arange(first, first + count, dtype=np.uint64)
    init_x = _xor_all(_xor_of(init))
    upd_x = _xor_all(_stream_xor(start, U))
    tab_x = _xor_all(_xor_of(T.local()))
    checksum_ok = tab_x == init_x ^ upd_x
    if inject_errors and me == 0:          # testing the verification
        k = min(inject_errors, size)
        T.update_many(np.arange(k), np.uint64(1 << 63), op="xor")
    pybcl.barrier()
    _apply_stream(T, start, U, size - 1,
                  lambda i, v: T.update_many(i, v, op="xor"))
    pybcl.barrier()
    bad = int(np.count_nonzero(T.local() != init))
    errors = int(pybcl.allreduce(bad, op="sum"))
    allowed = size // 100 if batch == 1 else 0
    verified = errors <= allowed and checksum_ok
    mode = "atomic" if batch == 1 else ("buffer" if buffered else "update_many")
    pybcl.barrier()
    return {
        "gups": P * U / seconds / 1e9 if seconds > 0 else 0.0,
        "errors": errors, "errors_allowed": allowed, "table_size": size,
        "updates": P * U, "updates_per_rank": U, "seconds": seconds,
        "mode": mode, "batch": batch, "ranks": P, "transport": pybcl.transport(),
        "checksum_ok": checksum_ok, "verified": verified,
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _cli.Parser(prog="python -m pybcl.apps.gups",
                     description="HPCC RandomAccess (GUPS) on a pybcl DArray.")
    ap.add_argument("--log2-size", type=int, default=None,
                    help="table of 2^N uint64 words (default: a quarter of the segments)")
    ap.add_argument("--updates-per-rank", type=int, default=None,
                    help="updates per rank (default 4 * 2^N / P)")
    ap.add_argument("--batch", type=int, default=1024,
                    help="1: one remote atomic per update; B > 1: aggregated, B updates "
                         "per message (default 1024)")
    ap.add_argument("--no-buffer", action="store_true",
                    help="aggregate with DArray.update_many instead of a DArrayBuffer")
    ap.add_argument("--inject-errors", type=int, default=0, help=argparse_hidden())
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = ap.parse_args(argv)
    P = _cli.world()[1]
    if args.log2_size is not None and not 1 <= args.log2_size <= 40:
        ap.error(f"argument --log2-size: must be in [1, 40], got {args.log2_size}")
    ap.at_least("--updates-per-rank", args.updates_per_rank, 0)
    ap.at_least("--batch", args.batch, 1)
    ap.at_least("--inject-errors", args.inject_errors, 0)
    if not _cli.check_outputs(ap.prog, (("--json", args.json),)):
        return _cli.INPUT
    seg = _core.segment_size() if _core.initialized() else pybcl._env.segment_size()
    n = args.log2_size if args.log2_size is not None else default_log2_size(P, seg)
    U = args.updates_per_rank if args.updates_per_rank is not None else 4 * (1 << n) // P
    try:
        res = run_gups(n, U, args.batch, not args.no_buffer, args.inject_errors)
    except pybcl.SegmentFull as exc:      # raised on every rank alike
        _cli.say_error(ap.prog, f"--log2-size {n}: {exc}")
        return _cli.INPUT
    with _cli.Outputs(ap.prog) as out:
        if pybcl.rank() == 0:
            print(f"GUPS ({res['mode']}, batch {res['batch']}): {res['ranks']} rank(s), "
                  f"transport {res['transport']}, table 2^{n} words, "
                  f"{res['updates']:,} updates in {res['seconds']:.4f} s")
            print(f"  {res['gups']:.6f} GUP/s; {res['errors']} errors "
                  f"(allowed {res['errors_allowed']}); checksum "
                  f"{'ok' if res['checksum_ok'] else 'WRONG'}; verification "
                  f"{'PASSED' if res['verified'] else 'FAILED'}")
            _cli.write_json(args.json, res)
    return out.status(0 if res["verified"] else 1)


def argparse_hidden() -> str:
    import argparse
    return argparse.SUPPRESS


if __name__ == "__main__":
    raise SystemExit(main())   # every rank returns the same status (agreed)
