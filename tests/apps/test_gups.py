"""Batched DArray updates (update_many, DArrayBuffer) and the GUPS app."""

import numpy as np
import pytest

import pybcl
from conftest import all_ok
from launch import job_env, quiet_args, run_app_json, run_python, run_script
from pybcl.apps import _kernels

INT_DTYPES = ["int8", "uint16", "int32", "uint32", "int64", "uint64"]
FLOAT_DTYPES = ["float32", "float64"]
INT_OPS = ["add", "xor", "or", "and", "replace"]
NP_OPS = {"add": np.add, "xor": np.bitwise_xor, "or": np.bitwise_or,
          "and": np.bitwise_and}


def _updates(rank, P, size, dtype, op, n=300):
    """Rank `rank`'s updates: every owner hit, repeated indices included.
    replace: each rank writes only indices = rank (mod P), so that the
    result does not depend on which rank comes last."""
    rng = np.random.default_rng(1000 + rank)
    idx = rng.integers(0, size, n)
    idx[:10] = idx[0]                       # one element 10 times in one call
    if op == "replace":
        idx = idx - idx % P + rank
        idx[idx >= size] = rank
    vals = rng.integers(0, 100, n).astype(dtype)
    if op == "and":
        vals = (vals | np.array(0x70, dtype=dtype)).astype(dtype)
    return idx, vals


def _expected(P, size, dtype, op, init):
    want = init.copy()
    for r in range(P):
        idx, vals = _updates(r, P, size, dtype, op)
        if op == "replace":
            want[idx] = vals                # NumPy: the last of repeats wins
        else:
            NP_OPS[op].at(want, idx, vals)
    return want


def _fresh(size, dtype, make=pybcl.DArray):
    a = make(size, dtype)
    init = (np.arange(size) % 97 + 1).astype(dtype)
    if pybcl.rank() == 0:
        a[0:size] = init
    pybcl.barrier()
    return a, init


@pytest.mark.parametrize("dtype,op", [(d, o) for d in INT_DTYPES for o in INT_OPS]
                         + [(d, o) for d in FLOAT_DTYPES for o in ("add", "replace")])
def test_update_many_matches_numpy_reference(dtype, op):
    P = pybcl.nprocs()
    size = 40 * P + 3
    a, init = _fresh(size, dtype)
    idx, vals = _updates(pybcl.rank(), P, size, dtype, op)
    a.update_many(idx[:150], vals[:150], op=op)
    a.update_many(indices=idx[150:], values=vals[150:], op=op)
    pybcl.barrier()
    got = a[0:size]
    assert all_ok(np.array_equal(got, _expected(P, size, dtype, op, init)))


def test_update_many_on_hosted_array_and_negative_indices():
    P = pybcl.nprocs()
    size = 10 * P
    a, init = _fresh(size, "int64", make=lambda n, d: pybcl.Array(P - 1, n, d))
    a.update_many([-1, 0, -1], 5)            # one value for all, counted from the end
    pybcl.barrier()
    want = init.copy()
    want[-1] += 10 * P
    want[0] += 5 * P
    assert all_ok(np.array_equal(a[0:size], want))


def test_update_many_concurrent_same_words_exact():
    # every rank adds to the same few words through update_many and through
    # single fetch_and_add, and XORs its own bit: nothing may be lost
    P, me = pybcl.nprocs(), pybcl.rank()
    a = pybcl.DArray(4 * P, "int64")
    hot = np.array([0, a.size - 1, a.size // 2] * 3)   # 3 words, each 3 times per call
    rounds = 150
    for k in range(rounds):
        a.update_many(hot, 1, op="add")
        if k % 10 == 0:
            pybcl.fetch_and_add(a.ptr(0), 1)
        a.update_many([1], np.int64(1 << (me % 62)), op="xor")
    pybcl.barrier()
    got = a[0:a.size]
    per = 3 * rounds
    ok = got[0] == P * (per + rounds // 10) and got[-1] == P * per
    ok = ok and got[a.size // 2] == P * per
    want_xor = 0
    for r in range(P):
        if rounds % 2:
            want_xor ^= 1 << (r % 62)
    assert all_ok(ok and got[1] == want_xor)


@pytest.mark.parametrize("op", ["add", "xor", "or", "and", "replace"])
def test_darraybuffer_flush_is_exact(op):
    P = pybcl.nprocs()
    size = 40 * P + 3
    a, init = _fresh(size, "int64")
    idx, vals = _updates(pybcl.rank(), P, size, "int64", op)
    with pybcl.DArrayBuffer(array=a, message_size=7, op=op) as buf:   # 7: many messages
        assert buf.message_size == 7 and buf.op == op and buf.array is a
        buf.update_many(idx[:100], vals[:100])
        buf.flush()
        buf.update_many(indices=idx[100:], values=vals[100:])
    got = a[0:size]
    assert all_ok(np.array_equal(got, _expected(P, size, "int64", op, init)))


@pytest.mark.serial_only
def test_darraybuffer_full_owner_queue_loses_nothing(tmp_path):
    # a 2 MiB segment caps each owner's queue at 32768 records: 4 ranks
    # buffering 120000 updates each overflow it, and those updates must be
    # applied atomically instead (overflowed > 0), none lost
    proc, _ = run_script(tmp_path, """
        import sys
        import numpy as np
        import pybcl
        P, me = pybcl.nprocs(), pybcl.rank()
        a = pybcl.DArray(64, "int64")
        buf = pybcl.DArrayBuffer(a, 256, op="add")
        rng = np.random.default_rng(me)
        buf.update_many(rng.integers(0, 64, 120000), 1)
        buf.flush()
        got = int(a[0:64].sum())
        over = pybcl.allreduce(buf.overflowed, op="sum")
        ok = got == P * 120000 and over > 0
        print("RESULT", got, over, flush=True)
        sys.exit(0 if pybcl.allreduce(int(ok), op="min") else 3)
        """, nprocs=4, timeout=120, env=job_env(PYBCL_SEGMENT_SIZE="2M"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_darraybuffer_many_flushes_float_add():
    P = pybcl.nprocs()
    size = 8 * P
    a = pybcl.DArray(size, "float64")
    buf = pybcl.DArrayBuffer(a, 3, op="add")
    for _ in range(5):
        buf.update_many(np.arange(size), 0.5)
        buf.flush()
    assert all_ok(np.all(a[0:size] == 2.5 * P))


def test_update_many_bad_input_names_the_argument():
    a = pybcl.DArray(10, "int64")
    f = pybcl.DArray(10, "float64")
    checks = [
        (IndexError, "indices", lambda: a.update_many([1, 10], [1, 1])),
        (IndexError, "indices", lambda: a.update_many([-11], 1)),
        (TypeError, "indices", lambda: a.update_many([1.5], 1)),
        (ValueError, "values", lambda: a.update_many([1, 2, 3], [1, 2])),
        (ValueError, "op", lambda: a.update_many([1], 1, op="mul")),
        (TypeError, "op", lambda: a.update_many([1], 1, op=3)),
        (TypeError, "op", lambda: f.update_many([1], 1.0, op="xor")),
        (TypeError, "values", lambda: a.update_many([1], 1.5)),
        (TypeError, "indices", lambda: a.update_many()),
    ]
    ok = True
    for exc, word, call in checks:
        try:
            call()
            ok = False
        except exc as e:
            ok = ok and word in str(e)
    pybcl.barrier()
    # nothing was applied by the failed calls
    assert all_ok(ok and not np.any(a[0:10]))
    with pytest.raises(TypeError, match="dtype"):
        pybcl.DArray(4, "bool").update_many([0], True)


def test_darraybuffer_bad_input_names_the_argument():
    a = pybcl.DArray(10, "int64")
    for exc, word, args, kw in [(TypeError, "array", ([1, 2], 4), {}),
                                (ValueError, "message_size", (a, 0), {}),
                                (ValueError, "op", (a, 4), {"op": "mul"}),
                                (TypeError, "op", (pybcl.DArray(4, "float32"), 4),
                                 {"op": "or"})]:
        with pytest.raises(exc, match=word):
            pybcl.DArrayBuffer(*args, **kw)
    buf = pybcl.DArrayBuffer(a, 4)
    with pytest.raises(IndexError, match="indices"):
        buf.update_many([0, 10], 1)
    buf.flush()
    assert all_ok(not np.any(a[0:10]))


# ---- GUPS ---------------------------------------------------------------------

POLY, PERIOD, M64 = 7, 1317624576693539401, (1 << 64) - 1


def py_next(a):
    return ((a << 1) & M64) ^ (POLY if a >> 63 else 0)


def py_starts(n):
    """HPCC_starts, transcribed from HPCC's RandomAccess/utility.c."""
    while n < 0:
        n += PERIOD
    while n > PERIOD:
        n -= PERIOD
    if n == 0:
        return 1
    m2, temp = [], 1
    for _ in range(64):
        m2.append(temp)
        temp = py_next(py_next(temp))
    i = 62
    while i >= 0 and not (n >> i) & 1:
        i -= 1
    ran = 2
    while i > 0:
        temp = 0
        for j in range(64):
            if (ran >> j) & 1:
                temp ^= m2[j]
        ran = temp
        i -= 1
        if (n >> i) & 1:
            ran = py_next(ran)
    return ran


def test_gups_stream_is_hpccs():
    for n in (0, 1, 2, 3, 1000, 12345678, 1 << 40, -5):
        assert _kernels.gups_starts(n) == py_starts(n)
    vals, state = _kernels.gups_stream(_kernels.gups_starts(100), 50)
    want, a = [], py_starts(100)
    for _ in range(50):
        a = py_next(a)
        want.append(a)
    assert vals.tolist() == want and state == want[-1] == py_starts(150)


@pytest.mark.parametrize("batch,buffered", [(1, True), (64, True), (64, False)])
def test_gups_run_verifies(batch, buffered):
    from pybcl.apps import gups
    res = gups.run_gups(12, 3000, batch=batch, buffered=buffered)
    assert all_ok(res["verified"] and res["errors"] == 0 and res["checksum_ok"])
    assert res["updates"] == 3000 * pybcl.nprocs() and res["table_size"] == 4096


@pytest.mark.parametrize("batch", [1, 64])
def test_gups_verification_catches_injected_errors(batch):
    from pybcl.apps import gups
    inject = 60 if batch == 1 else 1          # > 1 % of 4096 words for batch 1
    res = gups.run_gups(12, 2000, batch=batch, inject_errors=inject)
    assert all_ok(res["errors"] == inject and not res["verified"])


@pytest.mark.serial_only
def test_gups_cli(tmp_path):
    args = ["-m", "pybcl.apps.gups", "--log2-size", "14", "--updates-per-rank", "5000"]
    _, js = run_app_json(tmp_path, args, 2, "verification PASSED")
    assert js["errors"] == 0 and js["table_size"] == 1 << 14 and js["updates"] == 10000
    assert js["gups"] > 0 and js["seconds"] > 0 and js["mode"] == "buffer"
    r = run_python(args + ["--batch", "1", "--inject-errors", "500"], 2, extra=quiet_args())
    assert r.returncode == 1 and "verification FAILED" in r.stdout, r.stdout + r.stderr
    r = run_python(["-m", "pybcl.apps.gups", "--batch", "0"], 2, extra=quiet_args())
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith("python -m pybcl.apps.gups: error: ")
