"""ISx: PCG32 known answers, ISx's key stream, the app's verification."""

import numpy as np
import pytest

import pybcl
from launch import assert_job_code, run_app, run_app_json
from pybcl.apps import _kernels
from conftest import all_ok



def test_pcg32_reference_outputs():
    # pcg32-demo of the pcg-c-basic library: pcg32_srandom_r(&rng, 42u, 54u)
    want = [0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]
    assert _kernels.pcg32_outputs(42, 54, 6).tolist() == want


def py_pcg32(initstate, initseq, n):
    M = (1 << 64) - 1
    state, inc = 0, ((initseq << 1) | 1) & M
    out = []

    def step():
        nonlocal state
        old = state
        state = (old * 6364136223846793005 + inc) & M
        x = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((x >> rot) | (x << ((-rot) & 31))) & 0xFFFFFFFF

    step()
    state = (state + initstate) & M
    step()
    for _ in range(n):
        out.append(step())
    return out


@pytest.mark.parametrize("rank", [0, 1, 5])
def test_isx_keys_are_low_28_bits(rank):
    raw = py_pcg32(rank, rank, 1000)
    keys = _kernels.isx_keys(rank, 1000)
    assert keys.dtype == np.int32
    assert keys.tolist() == [r & ((1 << 28) - 1) for r in raw]
    gen = _kernels.IsxKeyGen(rank)
    assert np.concatenate([gen.take(300), gen.take(700)]).tolist() == keys.tolist()


def test_isx_keys_bounded_rejection():
    # a bound that does not divide 2^32: pcg32_boundedrand_r's rejection rule
    bound = 1000003
    thresh = ((1 << 32) - bound) % bound
    want = [r % bound for r in py_pcg32(3, 3, 2000) if r >= thresh][:1500]
    assert _kernels.isx_keys(3, 1500, bound).tolist() == want




@pytest.mark.parametrize("queue", ["circular", "fast"])
def test_isx_in_process_verifies(queue):
    from pybcl.apps import isx
    res = isx.run_isx(20_000, iterations=2, message_size=1000, queue=queue)
    assert all_ok(res["verified"] and not res["problems"])
    assert res["ranks"] == pybcl.nprocs() and res["keys_per_s"] > 0


def test_isx_local_count_verifies():
    from pybcl.apps import isx
    res = isx.run_isx(20_000, max_key=1 << 20, iterations=1, message_size=1000, local="count")
    assert all_ok(res["verified"] and not res["problems"] and res["local"] == "count")
    assert "local_count" in res["seconds_per_iteration"]


def test_isx_keep_keys_returns_this_ranks_sorted_bucket():
    """keep_keys: each rank's copy of the keys it received last, sorted and in
    its bucket range; over the ranks all N * P keys, globally sorted in rank
    order (the notebook checks this from its client)."""
    from pybcl.apps import isx
    N, M = 20_000, 1 << 20
    res = isx.run_isx(N, max_key=M, iterations=2, message_size=1000, keep_keys=True)
    keys = res["keys"]
    width = -(-M // pybcl.nprocs())
    lo = pybcl.rank() * width
    ok = res["verified"] and keys.dtype == np.int32 and bool(np.all(keys[1:] >= keys[:-1]))
    ok &= not len(keys) or (int(keys.min()) >= lo and int(keys.max()) < lo + width)
    whole = np.concatenate(pybcl.comm().allgather(keys))
    ok &= len(whole) == N * pybcl.nprocs() and bool(np.all(whole[1:] >= whole[:-1]))
    ok &= "keys" not in isx.run_isx(N, max_key=M, iterations=1, message_size=1000)
    assert all_ok(ok)


def test_isx_per_iteration_parts_sum_to_the_slowest_total():
    """Each timed iteration's breakdown (the rank with the largest total) has
    the four parts, final barrier included, summing to that total, and is the
    same on every rank: a stacked bar of it reaches the total."""
    from pybcl.apps import isx
    res = isx.run_isx(20_000, iterations=5, message_size=1000)
    per = res["per_iteration"]
    rows = np.array(per["seconds"])
    ok = per["parts"] == ["generate_bucket_push", "exchange_wait", "local", "final_barrier"]
    ok &= rows.shape == (5, 4) and bool((rows >= 0).all())
    mean_total = res["seconds_per_iteration"]["total"]
    # per iteration the largest total, so their mean is at least the largest
    # per-rank mean total (seconds_per_iteration): parts sum to whole totals
    ok &= rows.sum(axis=1).mean() >= mean_total * (1 - 1e-9)
    everyone = pybcl.comm().allgather(per["seconds"])
    ok &= all(other == per["seconds"] for other in everyone)
    assert all_ok(ok)


def test_slowest_rank_breakdown_picks_the_largest_total():
    from pybcl.apps import isx
    R, P = pybcl.rank(), pybcl.nprocs()
    # iteration 0: the last rank is slowest; iteration 1: rank 0 (ties go low)
    rows = np.array([[1.0, 2.0 + R], [5.0 - (R > 0), 1.0]])
    got = isx.slowest_rank_breakdown(rows, pybcl.allreduce, R)
    assert all_ok(got == [[1.0, 2.0 + (P - 1)], [5.0, 1.0]])


def test_isx_count_kernel():
    keys = np.array([5, 7, 7, 9, 4, 12], dtype=np.int32)
    counts, outside = _kernels.isx_count(keys, 5, 5)
    assert counts.tolist() == [1, 0, 2, 0, 1] and outside == 2
    with pytest.raises(ValueError):
        _kernels.isx_count(keys, -1, 5)


def test_isx_kernels_take_their_parameters_by_name():
    """The ISx kernels take every documented parameter by the name their
    signature shows, with the positional call's result."""
    keys = _kernels.isx_keys(rank=1, n=500, max_key=1000)
    assert keys.tolist() == _kernels.isx_keys(1, 500, 1000).tolist()
    assert (_kernels.pcg32_outputs(initstate=42, initseq=54, n=6).tolist()
            == _kernels.pcg32_outputs(42, 54, 6).tolist())
    grouped = _kernels.isx_bucketize(keys=keys, width=100, nbuckets=10)
    assert [a.tolist() for a in grouped] == [a.tolist() for a in _kernels.isx_bucketize(keys, 100, 10)]
    counts, outside = _kernels.isx_count(keys=keys, lo=100, width=300)
    assert outside == _kernels.isx_count(keys, 100, 300)[1] and counts.sum() + outside == 500
    a, b = _kernels.IsxKeyGen(rank=1, max_key=1000), _kernels.IsxKeyGen(1, 1000)
    assert a.take(n=7).tolist() == b.take(7).tolist() == keys[:7].tolist()
    with pytest.raises(ValueError, match="nbuckets"):
        _kernels.isx_bucketize(keys, width=100, nbuckets=0)


def test_isx_small_max_key():
    from pybcl.apps import isx
    res = isx.run_isx(5_000, max_key=1000 + pybcl.nprocs(), iterations=1, message_size=333)
    assert all_ok(res["verified"])


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_isx_cli(tmp_path, nprocs):
    _, js = run_app_json(tmp_path, ["-m", "pybcl.apps.isx", "--keys-per-rank", "50000",
                                    "--iterations", "2"], nprocs, "verification PASSED")
    assert js["verified"] and js["ranks"] == nprocs and js["keys_per_rank"] == 50000
    assert set(js["seconds_per_iteration"]) >= {"total", "local", "local_sort", "exchange"}


@pytest.mark.serial_only
def test_isx_cli_fails_loudly_when_queues_are_too_small():
    # a queue capacity far below the keys each rank receives: push_many refuses,
    # the verification reports it and the exit status is non-zero
    code = ("import sys, pybcl; from pybcl.apps import isx; "
            "r = isx.run_isx(20000, iterations=1, message_size=500, slack=1000); "
            "sys.exit(0 if r['verified'] else 3)")
    r = run_app(["-c", code], 2)
    assert_job_code(r, 3)


@pytest.mark.serial_only
def test_isx_cli_local_count_and_usage_errors(tmp_path):
    r = run_app(["-m", "pybcl.apps.isx", "--keys-per-rank", "20000", "--iterations", "1",
                 "--max-key", str(1 << 20), "--local", "count"], 2)
    assert r.returncode == 0 and "verification PASSED" in r.stdout, r.stdout + r.stderr
    for args, code in ((["--max-key", "1"], 2), (["--keys-per-rank", "0"], 2),
                       (["--json", str(tmp_path / "no" / "x.json")], 1)):
        r = run_app(["-m", "pybcl.apps.isx", *args], 2)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == code and len(lines) == 1, (args, r.returncode, r.stderr)
        assert lines[0].startswith("python -m pybcl.apps.isx: error: ")
