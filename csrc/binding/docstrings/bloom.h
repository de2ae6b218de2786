/*
 * docstrings/bloom.h -- docstrings of BloomFilter (bloom_py.c).
 */
#ifndef BCLPY_DOC_BLOOM_H
#define BCLPY_DOC_BLOOM_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_BLOOMFILTER \
    BCLPY_SIG("BloomFilter(expected_items, fpr=0.01, key_type='uint64')") \
    "BCL's distributed blocked Bloom filter: each key sets k bits in one\n" \
    "64-bit block, blocks spread over the ranks.  Sized so the\n" \
    "false-positive rate at `expected_items` keys is at most about `fpr`; no\n" \
    "false negatives.  ``x in bf`` is find(x).\n" \
    "\n" \
    "Collective constructor (agreeing arguments checked on every rank).\n" \
    BCLPY_PARAMETERS \
    "expected_items : int\n" \
    "    Keys the filter is sized for (positive).\n" \
    "fpr : float, optional\n" \
    "    Target false-positive rate, in (0, 1).\n" \
    "key_type : dtype-like or type, optional\n" \
    "    A fixed-size NumPy dtype, or bytes, str or object.\n" \
    BCLPY_RAISES_COLLECTIVE_ARGS("TypeError, ValueError") \
    "pybcl.SegmentFull\n" \
    "    When a segment has no room.\n" \
    BCLPY_EXAMPLES \
    ">>> bf = pybcl.BloomFilter(100_000, fpr=0.01)\n" \
    ">>> bf.insert(12345)\n" \
    "False\n" \
    ">>> 12345 in bf\n" \
    "True"
#define BCLPY_ARGS_BLOOMFILTER { "expected_items", "fpr", "key_type" }

#define BCLPY_DOC_BF_INSERT \
    BCLPY_SIG("insert($self, x)") \
    "Insert `x` (one atomic fetch-and-or: of ranks inserting the same new\n" \
    "key at once exactly one gets False).  Not collective.\n" \
    BCLPY_PARAMETERS \
    "x : object\n" \
    "    Converted to key_type.\n" \
    BCLPY_RETURNS \
    "bool\n" \
    "    True if `x` was (apparently) present already.\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError\n" \
    "    If `x` does not convert to key_type.\n" \
    BCLPY_EXAMPLES \
    ">>> bf.insert(7)\n" \
    "False"

#define BCLPY_DOC_BF_FIND \
    BCLPY_SIG("find($self, x)") \
    "Whether `x` may be present (no false negatives).  Not collective.\n" \
    BCLPY_PARAMETERS \
    "x : object\n" \
    BCLPY_RETURNS \
    "bool\n" \
    "    False if `x` certainly is not present.\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError\n" \
    "    If `x` does not convert to key_type.\n" \
    BCLPY_EXAMPLES \
    ">>> bf.find(7)\n" \
    "True"

#define BCLPY_DOC_BF_INSERT_MANY \
    BCLPY_SIG("insert_many($self, xs)") \
    "insert() of every key of `xs`, pipelined, as if insert() were called on\n" \
    "each key in order.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "xs : array_like or sequence\n" \
    BCLPY_RETURNS \
    "numpy.ndarray of bool\n" \
    "    Was-present flags.\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError\n" \
    "    If a key does not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> seen = bf.insert_many(np.arange(100, dtype=np.uint64))"

#define BCLPY_DOC_BF_FIND_MANY \
    BCLPY_SIG("find_many($self, xs)") \
    "find() of every key of `xs`, pipelined.  Not collective.\n" \
    BCLPY_PARAMETERS \
    "xs : array_like or sequence\n" \
    BCLPY_RETURNS \
    "numpy.ndarray of bool\n" \
    BCLPY_RAISES \
    "TypeError, OverflowError\n" \
    "    If a key does not convert.\n" \
    BCLPY_EXAMPLES \
    ">>> bool(bf.find_many(np.arange(100, dtype=np.uint64)).all())\n" \
    "True"

#define BCLPY_DOC_BF_OWNER \
    BCLPY_SIG("owner($self, x)") \
    "The rank holding the 64-bit block of key `x` (no communication).\n" \
    BCLPY_PARAMETERS \
    "x : object\n" \
    BCLPY_RETURNS \
    "int\n" \
    BCLPY_EXAMPLES \
    ">>> 0 <= bf.owner(7) < pybcl.nprocs()\n" \
    "True"

#define BCLPY_DOC_BF_PLAN \
    BCLPY_SIG("plan(expected_items, fpr=0.01, nprocs=1)") \
    "Static: the size BloomFilter would choose.  No communication.\n" \
    BCLPY_PARAMETERS \
    "expected_items : int\n" \
    "fpr : float, optional\n" \
    "nprocs : int, optional\n" \
    BCLPY_RETURNS \
    "dict\n" \
    "    nwords, k, bits_per_key, predicted_fpr.\n" \
    BCLPY_RAISES \
    "ValueError\n" \
    "    For a non-positive expected_items or an fpr outside (0, 1).\n" \
    BCLPY_EXAMPLES \
    ">>> pybcl.BloomFilter.plan(10**6, 0.01)[\"k\"] > 0\n" \
    "True"
#define BCLPY_ARGS_BF_PLAN { "expected_items", "fpr", "nprocs" }

#define BCLPY_DOC_BF_PREDICT \
    BCLPY_SIG("predict(n, nwords, k, /)") \
    "Static: the predicted false-positive rate of a blocked filter with\n" \
    "`nwords` 64-bit blocks holding `n` keys of `k` bits each.\n" \
    BCLPY_PARAMETERS \
    "n : float\n" \
    "nwords : float\n" \
    "k : int\n" \
    BCLPY_RETURNS \
    "float\n" \
    BCLPY_EXAMPLES \
    ">>> 0 < pybcl.BloomFilter.predict(1000, 200, 6) < 1\n" \
    "True"

#endif /* BCLPY_DOC_BLOOM_H */
