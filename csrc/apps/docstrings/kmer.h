/*
 * docstrings/kmer.h -- docstrings of the k-mer kernels (kmer_py.c): FASTA/
 * FASTQ parsing, counting tables, HyperLogLog and output for pybcl.apps.kmer.
 * Internal to the apps; all are local (no communication).  Each function's
 * BCLPY_ARGS_* name table (for bclpy_parse) stands under its docstring, so
 * the names it accepts and the signature it shows are read side by side.
 */
#ifndef BCLPY_DOC_KMER_H
#define BCLPY_DOC_KMER_H

#define BCLPY_DOC_KMERREADER \
    "KmerReader(path, k, rank=0, nprocs=1, chunk_bytes=4194304, block_shift=20, hll=False, start=0, end=-1, fmt=None, gz_entry=None)\n--\n\n" \
    "Iterate over a FASTA/FASTQ file (gzipped or not), yielding one uint64\n" \
    "array of canonical 2-bit k-mers per chunk read: those whose last base\n" \
    "lies in a block (2**block_shift bytes of the decompressed stream) owned\n" \
    "by `rank` (block b belongs to rank b % nprocs).  k in 1..32.  k-mers with\n" \
    "a base other than ACGT are skipped; lowercase is uppercased.  hll=True\n" \
    "also feeds a HyperLogLog sketch.  A plain file can be read from byte\n" \
    "`start` to `end` (-1: its end); start must be a record boundary\n" \
    "(seq_resync).  A gzip file with gz_entry=(compressed offset of a member\n" \
    "start, stream offset of its first byte) is entered there and yields the\n" \
    "records (fmt 'fasta' or 'fastq') that start in [start, end) of the\n" \
    "decompressed stream, resynced as seq_resync does (the entry must be at\n" \
    "or before byte start - 1; see bgzf_blocks).  Raises OSError, or\n" \
    "ValueError for bad arguments and for a truncated or corrupt gzip file\n" \
    "or one with trailing garbage."
#define BCLPY_ARGS_KMERREADER \
    { "path", "k", "rank", "nprocs", "chunk_bytes", "block_shift", "hll", "start", "end", \
      "fmt", "gz_entry" }

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

#define BCLPY_DOC_BGZF_BLOCKS \
    "bgzf_blocks(path)\n--\n\n" \
    "Walk a BGZF file's block headers (no decompression): return\n" \
    "(compressed offsets, decompressed offsets), uint64 arrays of the block\n" \
    "starts with the file size and the stream size appended, or None if the\n" \
    "file is not BGZF (plain, ordinary gzip, or BGZF mixed with other\n" \
    "members).  ValueError for a truncated block or trailing garbage."
#define BCLPY_ARGS_BGZF_BLOCKS { "path" }

#define BCLPY_DOC_SEQ_RESYNC \
    "seq_resync(path, size, offset, fmt)\n--\n\n" \
    "Return the first record start >= `offset` of a plain FASTA/FASTQ file of\n" \
    "`size` bytes (fmt 'fasta' or 'fastq'; `size` if none): where a byte-range\n" \
    "reader starts.  ValueError for another fmt; OSError if unreadable."
#define BCLPY_ARGS_SEQ_RESYNC { "path", "size", "offset", "fmt" }

#define BCLPY_DOC_KMERS_FROM_BYTES \
    "kmers_from_bytes(data, k, rank=0, nprocs=1, chunk=0, block_shift=20)\n--\n\n" \
    "Return the uint64 array of canonical k-mers of FASTA/FASTQ bytes owned by\n" \
    "`rank` (as KmerReader), fed to the parser in pieces of `chunk` bytes\n" \
    "(0: one piece)."
#define BCLPY_ARGS_KMERS_FROM_BYTES \
    { "data", "k", "rank", "nprocs", "chunk", "block_shift" }

#define BCLPY_DOC_KMER_ENCODE \
    "kmer_encode(kmer)\n--\n\n" \
    "Return the canonical 2-bit code (int) of a k-mer string over ACGT.\n" \
    "ValueError for other bases or a length outside 1..32."
#define BCLPY_ARGS_KMER_ENCODE { "kmer" }

#define BCLPY_DOC_KMER_DECODE \
    "kmer_decode(codes, k)\n--\n\n" \
    "Return an array of S<k> strings over ACGT for a uint64 array of codes."
#define BCLPY_ARGS_KMER_DECODE { "codes", "k" }

#define BCLPY_DOC_HLL_ESTIMATE \
    "hll_estimate(registers)\n--\n\n" \
    "Return the distinct-count estimate (float) of uint8 HyperLogLog registers."
#define BCLPY_ARGS_HLL_ESTIMATE { "registers" }

#define BCLPY_DOC_HLL_ADD \
    "hll_add(registers, kmers)\n--\n\n" \
    "Add uint64 k-mers to a HyperLogLog sketch (uint8 registers, in place)."
#define BCLPY_ARGS_HLL_ADD { "registers", "kmers" }

#define BCLPY_DOC_KMER_TSV \
    "kmer_tsv(kmers, counts, k)\n--\n\n" \
    "Return bytes of 'KMER<TAB>COUNT' lines for uint64 k-mers and counts."
#define BCLPY_ARGS_KMER_TSV { "kmers", "counts", "k" }

#define BCLPY_DOC_SIMULATE_READS \
    "simulate_reads(genome, n_reads, length, error_rate, seed=1)\n--\n\n" \
    "Return FASTQ bytes of `n_reads` reads of `length` bases from `genome`\n" \
    "(bytes): uniform start, random strand, substitutions with probability\n" \
    "error_rate (PCG32 seeded by seed)."
#define BCLPY_ARGS_SIMULATE_READS { "genome", "n_reads", "length", "error_rate", "seed" }

#endif /* BCLPY_DOC_KMER_H */
