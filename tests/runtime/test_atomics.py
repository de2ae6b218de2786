"""Atomics: semantics, contention invariants, the memory model, bad input."""
import numpy as np
import pytest

import pybcl
from conftest import all_ok


def shared_counter(dtype="int64", root=0, count=1):
    """A pointer allocated on `root`, zeroed, known to every rank."""
    p = pybcl.alloc(count, dtype) if pybcl.rank() == root else None
    if p is not None:
        p.local()[:] = 0
    p = pybcl.broadcast(p, root=root)
    pybcl.barrier()
    return p


def release(p):
    pybcl.barrier()
    if p.rank == pybcl.rank():
        pybcl.free(p)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_fetch_ops_return_old_value(dtype):
    p = pybcl.alloc(1, dtype)
    p.local()[0] = 0b1100
    assert pybcl.fetch_and_add(p, 3) == 0b1100
    assert pybcl.fetch_and_or(p, 0b10000) == 0b1111
    assert pybcl.fetch_and_and(p, 0b11) == 0b11111
    assert pybcl.fetch_and_xor(p, 0b1) == 0b11
    assert pybcl.atomic_load(p) == 0b10
    assert pybcl.compare_and_swap(p, 5, 9) == 2          # fails: no change
    assert pybcl.compare_and_swap(p, 2, 9) == 2          # succeeds
    assert pybcl.atomic_load(p) == 9
    pybcl.atomic_store(p, 77)
    assert pybcl.atomic_swap(p, 1) == 77
    pybcl.free(p)


def test_signed_and_unsigned_wraparound():
    p = pybcl.alloc(1, "int32")
    p.local()[0] = 2**31 - 1
    assert pybcl.fetch_and_add(p, 1) == 2**31 - 1
    assert pybcl.atomic_load(p) == -2**31
    u = pybcl.alloc(1, "uint64")
    u.local()[0] = 0                       # alloc does not zero memory
    assert pybcl.fetch_and_add(u, 2**64 - 1) == 0
    assert pybcl.atomic_load(u) == 2**64 - 1
    pybcl.free(p)
    pybcl.free(u)


def test_atomics_reject_bad_input():
    f = pybcl.alloc(1, "float64")
    with pytest.raises(TypeError, match="integer"):
        pybcl.fetch_and_add(f, 1)
    i16 = pybcl.alloc(1, "int16")
    with pytest.raises(TypeError, match="integer"):
        pybcl.atomic_load(i16)
    p = pybcl.alloc(1, "int32")
    with pytest.raises(OverflowError, match="^v: "):     # names the argument (API.md: v)
        pybcl.fetch_and_add(p, 2**31)
    with pytest.raises(TypeError, match="^v: "):
        pybcl.fetch_and_add(p, 1.5)
    with pytest.raises(TypeError, match="ptr"):
        pybcl.fetch_and_add(1234, 1)
    with pytest.raises(ValueError, match="aligned"):
        pybcl.atomic_load(pybcl.GlobalPtr(p.rank, p.offset + 2, "int32"))
    with pytest.raises(IndexError):
        pybcl.atomic_load(pybcl.NULL)
    u = pybcl.alloc(1, "uint64")
    with pytest.raises(OverflowError, match="expected"):
        pybcl.compare_and_swap(u, -1, 0)
    for q in (f, i16, p, u):
        pybcl.free(q)


def test_fetch_and_add_contention_values_distinct():
    """All ranks hammer one counter: every fetched value is distinct and the
    set is exactly 0..N-1 (MPICH's atomic_rmw_fop test)."""
    per_rank = 2000
    ctr = shared_counter("int64", root=pybcl.nprocs() - 1)
    mine = np.array([pybcl.fetch_and_add(ctr, 1) for _ in range(per_rank)], dtype=np.int64)
    counts = np.zeros(per_rank * pybcl.nprocs(), dtype=np.int64)
    ok_local = bool((mine >= 0).all() and (mine < counts.size).all())
    if ok_local:
        np.add.at(counts, mine, 1)
    counts = pybcl.allreduce(counts, "sum")
    total = pybcl.atomic_load(ctr)
    release(ctr)
    assert all_ok(ok_local)
    assert (counts == 1).all()
    assert total == per_rank * pybcl.nprocs()


def test_mixed_atomic_ops_on_one_word_are_mutually_atomic():
    """CAS-increment loops and fetch_and_add on the same word from all ranks:
    no update is lost (fails if the transport treated them as unrelated ops)."""
    ctr = shared_counter("uint64")
    iters = 500
    for i in range(iters):
        if i % 2:
            pybcl.fetch_and_add(ctr, 1)
        else:
            seen = pybcl.atomic_load(ctr)
            while True:
                old = pybcl.compare_and_swap(ctr, seen, seen + 1)
                if old == seen:
                    break
                seen = old
    pybcl.barrier()
    total = pybcl.atomic_load(ctr)
    release(ctr)
    assert total == iters * pybcl.nprocs()


def test_xor_or_and_bitmasks_under_contention():
    """Each rank toggles its own bit pattern: the final word is exact."""
    ctr = shared_counter("uint64")
    bit = 1 << (pybcl.rank() % 64)
    for _ in range(101):               # odd number of toggles: bit ends set
        pybcl.fetch_and_xor(ctr, bit)
    pybcl.barrier()
    expected = 0
    for r in range(pybcl.nprocs()):
        expected ^= 1 << (r % 64)
    total = pybcl.atomic_load(ctr)
    release(ctr)
    assert total == expected


@pytest.mark.mpi(min_size=2)
def test_no_torn_reads_of_multiword_record():
    """Seqlock over put/get + atomics: a reader that sees the same even version
    before and after its get must see one writer's whole record (MPICH's
    atomic_get idea, at the level of pybcl's completion guarantees)."""
    words = 64
    rec = shared_counter("int64", root=0, count=words + 1)   # [version, data...]
    version, data = rec, rec + 1
    writer = pybcl.rank() == 1
    consistent = checked = 0
    if writer:
        for k in range(1, 300):
            pybcl.fetch_and_add(version, 1)                   # odd: writing
            data[0:words] = np.full(words, k, dtype=np.int64)  # put, complete on return
            pybcl.fetch_and_add(version, 1)                   # even: stable
    else:
        for _ in range(300):
            v1 = pybcl.atomic_load(version)
            snap = pybcl.rget(data, words)
            v2 = pybcl.atomic_load(version)
            if v1 == v2 and v1 % 2 == 0:
                checked += 1
                consistent += int((snap == snap[0]).all() and snap[0] == v1 // 2)
    release(rec)
    assert all_ok(consistent == checked)
