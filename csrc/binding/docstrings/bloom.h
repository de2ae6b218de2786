/*
 * docstrings/bloom.h -- docstrings of BloomFilter (bloom_py.c).
 */
#ifndef BCLPY_DOC_BLOOM_H
#define BCLPY_DOC_BLOOM_H

#define BCLPY_DOC_BLOOMFILTER \
    "BloomFilter(expected_items, fpr=0.01, key_type='uint64')\n" \
    "--\n" \
    "\n" \
    "BCL's distributed blocked Bloom filter: each key sets k bits in one\n" \
    "64-bit block, blocks spread over the ranks.  Sized so the\n" \
    "false-positive rate at `expected_items` keys is at most about `fpr`; no\n" \
    "false negatives.  ``x in bf`` is find(x).\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "expected_items : int\n" \
    "    Keys the filter is sized for (positive).\n" \
    "fpr : float, optional\n" \
    "    Target false-positive rate, in (0, 1).\n" \
    "key_type : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype, or bytes, str or object.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, ValueError\n" \
    "    On every rank, for a bad or disagreeing argument.\n" \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> bf = pybcl.BloomFilter(100_000, fpr=0.01)\n" \
    ">>> bf.insert(12345)\n" \
    "False\n" \
    ">>> 12345 in bf\n" \
    "True"

#define BCLPY_DOC_BF_INSERT \
    "insert($self, x)\n" \
    "--\n" \
    "\n" \
    "Insert `x` (one atomic fetch-and-or: of ranks inserting the same new\n" \
    "key at once exactly one gets False).  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "x : object\n" \
    "    Converted to key_type.\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "bool\n" \
    "    True if `x` was (apparently) present already.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError\n" \
    "    If `x` does not convert to key_type.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> bf.insert(7)\n" \
    "False"

#define BCLPY_DOC_BF_FIND \
    "find($self, x)\n" \
    "--\n" \
    "\n" \
    "Whether `x` may be present (no false negatives).  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "x : object\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "bool\n" \
    "    False if `x` certainly is not present.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError\n" \
    "    If `x` does not convert to key_type.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> bf.find(7)\n" \
    "True"

#define BCLPY_DOC_BF_INSERT_MANY \
    "insert_many($self, xs)\n" \
    "--\n" \
    "\n" \
    "insert() of every key of `xs`, pipelined, as if insert() were called on\n" \
    "each key in order.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "xs : array_like or sequence\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray of bool\n" \
    "    Was-present flags.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError\n" \
    "    If a key does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> seen = bf.insert_many(np.arange(100, dtype=np.uint64))"

#define BCLPY_DOC_BF_FIND_MANY \
    "find_many($self, xs)\n" \
    "--\n" \
    "\n" \
    "find() of every key of `xs`, pipelined.  Not collective.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "xs : array_like or sequence\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "numpy.ndarray of bool\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "TypeError, OverflowError\n" \
    "    If a key does not convert.\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> bool(bf.find_many(np.arange(100, dtype=np.uint64)).all())\n" \
    "True"

#define BCLPY_DOC_BF_OWNER \
    "owner($self, x)\n" \
    "--\n" \
    "\n" \
    "The rank holding the 64-bit block of key `x` (no communication).\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "x : object\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "int\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> 0 <= bf.owner(7) < pybcl.nprocs()\n" \
    "True"

#define BCLPY_DOC_BF_PLAN \
    "plan(expected_items, fpr=0.01, nprocs=1)\n" \
    "--\n" \
    "\n" \
    "Static: the size BloomFilter would choose.  No communication.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "expected_items : int\n" \
    "fpr : float, optional\n" \
    "nprocs : int, optional\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "dict\n" \
    "    nwords, k, bits_per_key, predicted_fpr.\n" \
    "\n" \
    "Raises\n" \
    "------\n" \
    "ValueError\n" \
    "    For a non-positive expected_items or an fpr outside (0, 1).\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> pybcl.BloomFilter.plan(10**6, 0.01)[\"k\"] > 0\n" \
    "True"

#define BCLPY_DOC_BF_PREDICT \
    "predict(n, nwords, k, /)\n" \
    "--\n" \
    "\n" \
    "Static: the predicted false-positive rate of a blocked filter with\n" \
    "`nwords` 64-bit blocks holding `n` keys of `k` bits each.\n" \
    "\n" \
    "Parameters\n" \
    "----------\n" \
    "n : float\n" \
    "nwords : float\n" \
    "k : int\n" \
    "\n" \
    "Returns\n" \
    "-------\n" \
    "float\n" \
    "\n" \
    "Examples\n" \
    "--------\n" \
    ">>> 0 < pybcl.BloomFilter.predict(1000, 200, 6) < 1\n" \
    "True"

#endif /* BCLPY_DOC_BLOOM_H */
