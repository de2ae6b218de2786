/*
 * docstrings/bloom.h -- docstrings of BloomFilter (bloom_py.c).
 */
#ifndef BCLPY_DOC_BLOOM_H
#define BCLPY_DOC_BLOOM_H

#define BCLPY_DOC_BLOOMFILTER \
    "BloomFilter(expected_items, fpr=0.01, key_type='uint64')\n--\n\n" \
    "BCL's distributed blocked Bloom filter: each key sets k bits in one\n" \
    "64-bit block, blocks spread over the ranks.  Collective constructor\n" \
    "(agreeing arguments checked on every rank).  Sized so the false-positive\n" \
    "rate at `expected_items` keys is at most about `fpr`; no false negatives.\n" \
    "key_type: a fixed-size NumPy dtype, or bytes, str or object.\n" \
    "`x in bf` is find(x)."

#define BCLPY_DOC_BF_INSERT \
    "insert($self, x)\n--\n\n" \
    "Insert `x`; return True if it was already present (one atomic\n" \
    "fetch-and-or: of ranks inserting the same new key at once exactly one\n" \
    "gets False).  Not collective.  TypeError/OverflowError if x does not\n" \
    "convert to key_type."

#define BCLPY_DOC_BF_FIND \
    "find($self, x)\n--\n\n" \
    "Return True if `x` may be present, False if it certainly is not (no\n" \
    "false negatives).  Not collective."

#define BCLPY_DOC_BF_INSERT_MANY \
    "insert_many($self, xs)\n--\n\n" \
    "insert() of every key of `xs` (array or sequence), pipelined; returns a\n" \
    "bool array, as if insert() were called on each key in order."

#define BCLPY_DOC_BF_FIND_MANY \
    "find_many($self, xs)\n--\n\n" \
    "find() of every key of `xs`, pipelined; returns a bool array."

#define BCLPY_DOC_BF_OWNER \
    "owner($self, x)\n--\n\n" \
    "Return the rank holding the 64-bit block of key `x` (no communication)."

#define BCLPY_DOC_BF_PLAN \
    "plan(expected_items, fpr=0.01, nprocs=1)\n--\n\n" \
    "Static: the size BloomFilter would choose, as a dict (nwords, k,\n" \
    "bits_per_key, predicted_fpr).  No communication.  ValueError for a\n" \
    "non-positive expected_items or an fpr outside (0, 1)."

#define BCLPY_DOC_BF_PREDICT \
    "predict(n, nwords, k, /)\n--\n\n" \
    "Static: predicted false-positive rate (float) of a blocked filter with\n" \
    "`nwords` 64-bit blocks holding `n` keys of `k` bits each."

#endif /* BCLPY_DOC_BLOOM_H */
