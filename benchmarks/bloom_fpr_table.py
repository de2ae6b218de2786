"""Sizing table of pybcl.BloomFilter with the measured false-positive rate.

    python benchmarks/bloom_fpr_table.py [--items N] [--queries Q]

For each target rate: the bits per key and k the Poisson-mixture model of a
blocked filter with 64-bit blocks picks (BloomFilter.plan), a classic Bloom
filter's -ln(p)/ln(2)^2 bits per key for comparison, the model's predicted
rate, and the rate measured by inserting N distinct keys and querying Q
other keys.  Prints a Markdown table (used in docs/bloom.md).
"""
import argparse
import math

import numpy as np

import pybcl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=2_000_000)
    args = ap.parse_args()
    n, q = args.items, args.queries
    rows = []
    for fpr in (0.1, 0.05, 0.01, 0.005, 0.001, 1e-4, 1e-5):
        bf = pybcl.BloomFilter(n, fpr)
        keys = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15 % 2**61)
        bf.insert_many(keys)
        queries = np.arange(q, dtype=np.uint64) + np.uint64(2**62)
        measured = bf.find_many(queries).mean()
        assert bf.find_many(keys).all()
        classic = -math.log(fpr) / math.log(2) ** 2
        rows.append((fpr, 64 * bf.nwords / n, bf.k, classic, bf.predicted_fpr, measured))
        del bf
    if pybcl.rank() == 0:
        print(f"n = {n} keys, {q} queries, {pybcl.nprocs()} rank(s), "
              f"transport {pybcl.transport()}\n")
        print("| target fpr | bits/key (blocked, 64-bit) | k | classic bits/key | "
              "predicted fpr | measured fpr | measured / target |")
        print("|---|---|---|---|---|---|---|")
        for fpr, bpk, k, classic, pred, meas in rows:
            print(f"| {fpr:g} | {bpk:.2f} | {k} | {classic:.2f} | {pred:.3g} | "
                  f"{meas:.3g} | {meas / fpr:.2f} |")


if __name__ == "__main__":
    main()
