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

#define BCLPY_DOC_KMERTABLE \
    "KmerTable(capacity=0, bloom_bits=0)\n--\n\n" \
    "This rank's k-mer count table (kernels/bcl_kcount.h): open addressing,\n" \
    "grows by doubling.  bloom_bits > 0 puts a Bloom filter in front so first\n" \
    "sightings are not stored (then restart_counts and count_known over the\n" \
    "same input give exact counts).  capacity in [0, 2**40], bloom_bits in\n" \
    "[0, 2**44]; ValueError otherwise.  Local."
#define BCLPY_ARGS_KMERTABLE { "capacity", "bloom_bits" }

#define BCLPY_DOC_KT_ADD \
    "add($self, kmers)\n--\n\n" \
    "Count each uint64 k-mer of `kmers` (GIL released).  TypeError for\n" \
    "another dtype; ValueError for the reserved code 0xffffffffffffffff;\n" \
    "MemoryError if the table cannot grow."
#define BCLPY_ARGS_KT_ADD { "kmers" }

#define BCLPY_DOC_KT_COUNT_KNOWN \
    "count_known($self, kmers)\n--\n\n" \
    "Count each uint64 k-mer of `kmers` that is already a key of the table;\n" \
    "skip the others (never inserts).  Errors as add()."
#define BCLPY_ARGS_KT_COUNT_KNOWN { "kmers" }

#define BCLPY_DOC_KT_RESTART_COUNTS \
    "restart_counts($self, /)\n--\n\n" \
    "Zero every count and free the Bloom filter; the keys stay, for an exact\n" \
    "recount of the same input with count_known()."

#define BCLPY_DOC_KT_ITEMS \
    "items($self, /)\n--\n\n" \
    "Return (keys uint64, counts int64) of the stored entries (under a\n" \
    "Bloom filter a stored count is sightings - 1)."

#define BCLPY_DOC_KT_HISTOGRAM \
    "histogram($self, /)\n--\n\n" \
    "Return an int64 array h with h[c] = number of keys with stored count c."

#define BCLPY_DOC_KT_TOP \
    "top($self, n)\n--\n\n" \
    "Return (keys, counts) of the `n` highest stored counts (n in\n" \
    "[0, 2**20]; ties: smaller key first)."
#define BCLPY_ARGS_KT_TOP { "n" }

#define BCLPY_DOC_KT_STATS \
    "stats($self, /)\n--\n\n" \
    "Return a dict: distinct, slots, bytes, added, resizes, bloom_bits,\n" \
    "saturated."

#define BCLPY_DOC_KT_FREE \
    "free($self, /)\n--\n\n" \
    "Release the table's memory now (it then reads as empty)."

#define BCLPY_DOC_KMER_PARTITION \
    "kmer_partition(kmers, nprocs)\n--\n\n" \
    "Return (uint64 k-mers grouped by owner rank, int64 counts per rank) for\n" \
    "a uint64 k-mer array and nprocs in [1, 2**24] (the k-mer exchange)."
#define BCLPY_ARGS_KMER_PARTITION { "kmers", "nprocs" }

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
