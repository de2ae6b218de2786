"""Quality and speed of pybcl.hash64 (XXH64), the container key hash.

Reports, as JSON:
  * bucket occupancy of sequential integers and of 2-bit packed 31-mers from
    real genomes (lambda from pybcl/data, E. coli from tests/data): max bucket load and the chi-square statistic
    against a uniform distribution, for the low bits (h % B, B a power of
    two) and the high bits (h >> (64 - log2 B)) of the hash; `chi2_z` is
    (chi2 - dof) / sqrt(2 dof), i.e. |z| < ~3 is what a random function
    gives.  An "identity" row (key % B, no hashing) shows why keys are
    hashed at all.
  * avalanche: probability that flipping one input bit flips each output bit
    (ideal 0.5); the worst deviation over all 64x64 pairs.
  * throughput of hash64 on a large buffer (GB/s) and of hash_u64 calls.

    python benchmarks/bench_hash_quality.py [--data DIR]
"""
import argparse
import gzip
import json
import math
import os
import random
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import pybcl  # noqa: E402

K = 31


def read_fasta(path):
    with gzip.open(path, "rt") as f:
        return "".join(line.strip() for line in f if not line.startswith(">"))


def packed_kmers(seq, k=K):
    """2-bit packed k-mers (A=0 C=1 G=2 T=3, first base most significant),
    skipping any containing a non-ACGT base; returns a uint64 array."""
    code = np.full(256, 255, dtype=np.uint8)
    for i, b in enumerate(b"ACGT"):
        code[b] = i
    c = code[np.frombuffer(seq.upper().encode(), dtype=np.uint8)]
    n = len(c) - k + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    vals = np.zeros(n, dtype=np.uint64)
    bad = np.zeros(n, dtype=bool)
    for j in range(k):
        cj = c[j:j + n]
        bad |= cj == 255
        vals = (vals << np.uint64(2)) | (cj & 3).astype(np.uint64)
    return vals[~bad]


def occupancy(buckets, nbuckets):
    counts = np.bincount(buckets, minlength=nbuckets)
    e = counts.sum() / nbuckets
    chi2 = float(((counts - e) ** 2).sum() / e)
    dof = nbuckets - 1
    return {
        "expected_load": round(e, 2),
        "max_load": int(counts.max()),
        "empty_buckets": int((counts == 0).sum()),
        "chi2": round(chi2, 1),
        "chi2_z": round((chi2 - dof) / math.sqrt(2 * dof), 2),
    }


def hashes(keys):
    h = pybcl.hash_u64
    return np.fromiter((h(int(x)) for x in keys), dtype=np.uint64,
                       count=len(keys))


def distribution(keys, log2b):
    """Occupancy of the distinct keys (a hash table stores each key once;
    repeated k-mers would otherwise pile up by construction)."""
    keys = np.unique(keys)
    nb = 1 << log2b
    hs = hashes(keys)
    return {
        "distinct_keys": len(keys),
        "buckets": nb,
        "hash_low_bits": occupancy((hs & np.uint64(nb - 1)).astype(np.int64),
                                   nb),
        "hash_high_bits": occupancy(
            (hs >> np.uint64(64 - log2b)).astype(np.int64), nb),
        "identity_low_bits": occupancy(
            (keys.astype(np.uint64) & np.uint64(nb - 1)).astype(np.int64),
            nb),
    }


def avalanche(samples=2000, seed=7):
    rng = random.Random(seed)
    flips = np.zeros((64, 64))
    h = pybcl.hash_u64
    for _ in range(samples):
        x = rng.getrandbits(64)
        hx = h(x)
        for i in range(64):
            d = hx ^ h(x ^ (1 << i))
            flips[i] += [(d >> j) & 1 for j in range(64)]
    p = flips / samples
    return {"samples_per_bit": samples,
            "worst_bias": round(float(np.abs(p - 0.5).max()), 4),
            "mean_flip_probability": round(float(p.mean()), 4),
            "expected_worst_bias_of_random": round(
                4.5 * 0.5 / math.sqrt(samples), 4)}


def throughput():
    buf = np.random.default_rng(1).integers(0, 256, 64 << 20,
                                            dtype=np.uint8).tobytes()
    best = min(_timed(lambda: pybcl.hash64(buf)) for _ in range(5))
    keys = list(range(200000))
    h = pybcl.hash_u64
    t = min(_timed(lambda: [h(k) for k in keys]) for _ in range(3))
    small = [k.to_bytes(8, "little") for k in keys]
    h64 = pybcl.hash64
    t2 = min(_timed(lambda: [h64(b) for b in small]) for _ in range(3))
    return {"hash64_64MiB_GBps": round(len(buf) / best / 1e9, 2),
            "hash_u64_calls_per_s_from_python": round(len(keys) / t),
            "hash64_8byte_calls_per_s_from_python": round(len(keys) / t2)}


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(here, "..", "tests", "data"))
    args = ap.parse_args()
    out = {"algorithm": "XXH64", "k": K}
    out["sequential_ints_1M_2^16_buckets"] = distribution(
        np.arange(1 << 20, dtype=np.uint64), 16)
    lam = os.path.join(here, "..", "pybcl", "data", "lambda_virus.fa.gz")
    if os.path.exists(lam):
        out["lambda_31mers_2^12_buckets"] = distribution(
            packed_kmers(read_fasta(lam)), 12)
    eco = os.path.join(args.data, "NC_008253.fna.gz")
    if os.path.exists(eco):
        kmers = packed_kmers(read_fasta(eco))
        out["ecoli_31mers_2^18_buckets"] = distribution(kmers, 18)
    out["avalanche"] = avalanche()
    out["throughput"] = throughput()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
