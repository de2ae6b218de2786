/*
 * docstrings/apps.h -- docstrings of the app kernels (apps_py.c): k-mer
 * parsing and HyperLogLog for pybcl.apps.kmer, ISx keys for pybcl.apps.isx.
 * These are internal to the apps; all are local (no communication).
 */
#ifndef BCLPY_DOC_APPS_H
#define BCLPY_DOC_APPS_H

#define BCLPY_DOC_KMERREADER \
    "KmerReader(path, k, rank=0, nprocs=1, chunk_bytes=4194304, block_shift=20, hll=False)\n--\n\n" \
    "Iterate over a FASTA/FASTQ file (gzipped or not), yielding one uint64\n" \
    "array of canonical 2-bit k-mers per chunk read: those whose last base\n" \
    "lies in a block (2**block_shift bytes of the decompressed stream) owned\n" \
    "by `rank` (block b belongs to rank b % nprocs).  k in 1..32.  k-mers with\n" \
    "a base other than ACGT are skipped; lowercase is uppercased.  hll=True\n" \
    "also feeds a HyperLogLog sketch.  Raises OSError / ValueError."

#define BCLPY_DOC_KR_CLOSE \
    "close($self, /)\n--\n\n" \
    "Close the file (iteration then stops)."

#define BCLPY_DOC_KR_STATS \
    "stats($self, /)\n--\n\n" \
    "Return a dict: records, bases, kmers_total (all ranks' share),\n" \
    "kmers_emitted (this reader's), bytes (decompressed), format."

#define BCLPY_DOC_KR_HLL \
    "hll_registers($self, /)\n--\n\n" \
    "Return the uint8 HyperLogLog registers of the emitted k-mers (hll=True)."

#define BCLPY_DOC_ISXKEYGEN \
    "IsxKeyGen(rank, max_key=268435456)\n--\n\n" \
    "ISx's key stream of one rank, drawn in pieces: PCG32 seeded (rank, rank),\n" \
    "pcg32_boundedrand_r(max_key), as the ISx reference's make_input."

#define BCLPY_DOC_IKG_TAKE \
    "take($self, n, /)\n--\n\n" \
    "Return the next `n` keys of the stream (int32 array)."

#define BCLPY_DOC_KMERS_FROM_BYTES \
    "kmers_from_bytes(data, k, rank=0, nprocs=1, chunk=0, block_shift=20)\n--\n\n" \
    "Return the uint64 array of canonical k-mers of FASTA/FASTQ bytes owned by\n" \
    "`rank` (as KmerReader), fed to the parser in pieces of `chunk` bytes\n" \
    "(0: one piece)."

#define BCLPY_DOC_KMER_ENCODE \
    "kmer_encode(kmer, /)\n--\n\n" \
    "Return the canonical 2-bit code (int) of a k-mer string over ACGT.\n" \
    "ValueError for other bases or a length outside 1..32."

#define BCLPY_DOC_KMER_DECODE \
    "kmer_decode(codes, k, /)\n--\n\n" \
    "Return an array of S<k> strings over ACGT for a uint64 array of codes."

#define BCLPY_DOC_HLL_ESTIMATE \
    "hll_estimate(registers, /)\n--\n\n" \
    "Return the distinct-count estimate (float) of uint8 HyperLogLog registers."

#define BCLPY_DOC_ISX_BUCKETIZE \
    "isx_bucketize(keys, width, nbuckets, /)\n--\n\n" \
    "Return (keys grouped by key // width, counts per bucket) for an int32\n" \
    "key array (ISx's bucket exchange)."

#define BCLPY_DOC_HLL_ADD \
    "hll_add(registers, kmers, /)\n--\n\n" \
    "Add uint64 k-mers to a HyperLogLog sketch (uint8 registers, in place)."

#define BCLPY_DOC_KMER_TSV \
    "kmer_tsv(kmers, counts, k, /)\n--\n\n" \
    "Return bytes of 'KMER<TAB>COUNT' lines for uint64 k-mers and counts."

#define BCLPY_DOC_KMER_TABLE_LOCAL \
    "kmer_table_local(hashmap, /)\n--\n\n" \
    "Return (keys, values) arrays of this rank's entries of a\n" \
    "HashMap[uint64, int64] (call after a barrier)."

#define BCLPY_DOC_PCG32_OUTPUTS \
    "pcg32_outputs(initstate, initseq, n, /)\n--\n\n" \
    "Return the first `n` outputs of pcg32_random_r (uint32 array); for\n" \
    "checking against the PCG reference."

#define BCLPY_DOC_ISX_KEYS \
    "isx_keys(rank, n, max_key=268435456)\n--\n\n" \
    "Return ISx make_input's `n` keys of `rank` (int32 array)."

#define BCLPY_DOC_SIMULATE_READS \
    "simulate_reads(genome, n_reads, length, error_rate, seed=1)\n--\n\n" \
    "Return FASTQ bytes of `n_reads` reads of `length` bases from `genome`\n" \
    "(bytes): uniform start, random strand, substitutions with probability\n" \
    "error_rate (PCG32 seeded by seed)."

#endif /* BCLPY_DOC_APPS_H */
