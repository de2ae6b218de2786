"""pybcl.hash64: XXH64, deterministic across runs, processes and ranks."""
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pybcl

# Serial checks: the ranks share the examples (see test_msgpack.py).
P = pybcl.nprocs()


def examples(total):
    return max(25, -(-total // P))


# Reference XXH64 values (from the reference xxHash implementation).
KNOWN = [
    (b"", 0, 0xEF46DB3751D8E999),
    (b"a", 0, 0xD24EC4F1A98C6E5B),
    (b"abc", 0, 0x44BC2CF5AD770999),
    (b"abc", 1, 0xBEA9CA8199328908),
    (bytes(range(32)), 0, 0xCBF59C5116FF32B4),          # one full stripe
    (bytes(range(100)), 0, 0x6AC1E58032166597),         # stripes + tail
    (bytes(range(100)), 2**64 - 1, 0x09A991A091C9F6D7),
    (b"ACGTACGTACGTACGTACGTACGTACGTACG", 0, 0x2E0E4EBD5477CB86),
    ((12345).to_bytes(8, "little"), 0, 0xF641F64AB4EBB803),
    ((2**64 - 1).to_bytes(8, "little"), 7, 0x78653E7F1B122749),
]


@pytest.mark.parametrize("data, seed, want", KNOWN)
def test_known_answers(data, seed, want):
    assert pybcl.hash64(data, seed) == want
    assert pybcl.hash64(data, seed=seed) == want
    assert pybcl.hash64(bytearray(data), seed) == want
    assert pybcl.hash64(memoryview(data), seed) == want


def test_default_seed_is_zero():
    assert pybcl.hash64(b"abc") == pybcl.hash64(b"abc", 0)


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_u64_fast_path_equals_bytes(x, seed):
    assert pybcl.hash_u64(x, seed) == pybcl.hash64(x.to_bytes(8, "little"),
                                                   seed)


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=200), st.integers(0, 2**64 - 1))
def test_matches_reference_xxhash(data, seed):
    xxhash = pytest.importorskip("xxhash")
    assert pybcl.hash64(data, seed) == xxhash.xxh64_intdigest(data, seed)


def test_every_length_distinct():
    # every tail path (8-byte lanes, 4-byte lane, single bytes, stripes)
    data = bytes(range(256)) * 2
    hs = {pybcl.hash64(data[:n]) for n in range(len(data) + 1)}
    assert len(hs) == len(data) + 1


def test_bad_arguments():
    with pytest.raises(TypeError):
        pybcl.hash64("str is not bytes")
    with pytest.raises(OverflowError):
        pybcl.hash64(b"x", -1)
    with pytest.raises(OverflowError):
        pybcl.hash64(b"x", 2**64)
    with pytest.raises(OverflowError):
        pybcl.hash_u64(-1)
    with pytest.raises(OverflowError):
        pybcl.hash_u64(2**64)


def test_deterministic_across_processes():
    code = ("import pybcl; print(pybcl.hash64(b'kmer-ACGT', 42), "
            "pybcl.hash_u64(987654321, 42))")
    out = subprocess.run([sys.executable, "-c", code], check=True,
                         capture_output=True, text=True).stdout.split()
    assert [int(v) for v in out] == [pybcl.hash64(b"kmer-ACGT", 42),
                                     pybcl.hash_u64(987654321, 42)]
