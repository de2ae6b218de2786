/*
 * bcl_kcount.h -- one rank's k-mer count table, and the owner rule that
 * decides which rank counts a k-mer.
 *
 * No MPI, no Python, no I/O.  The k-mer app (pybcl/apps/kmer.py) extracts
 * canonical k-mers (bcl_kmer.h), groups them by owner rank with
 * bcl_kcount_partition, ships each group to its owner over pybcl queues, and
 * every owner adds what it receives to its own table here: plain CPU
 * inserts, no atomics, no remote memory.
 *
 * Table: open addressing, linear probing, power-of-two slots of 12 bytes
 * (key, uint32 count) packed side by side, so a probe touches one cache
 * line; inserts are batched and the home slot of the key `PREFETCH_AHEAD`
 * positions later is prefetched while the current one is resolved, which
 * hides most of the DRAM latency of a table far larger than the caches.
 * An empty slot holds key ~0: no canonical k-mer has that code (for k = 32
 * ~0 is TT..T, whose reverse complement AA..A = 0 is smaller).  The table
 * doubles when it passes 70 % load, so its first size only has to be a
 * guess (one pass over the input, no distinct-count pre-pass).
 *
 * Optional Bloom filter in front (the BCL paper's k-mer optimisation): the
 * first sighting of a k-mer only sets its Bloom bits; the table receives a
 * k-mer from its second sighting on, so singletons -- most error k-mers --
 * never take a slot.  A filter false positive lets a k-mer in one sighting
 * early (a singleton, or a count one too high), so the filter pass only
 * collects keys: exact counts come from a second pass over the same input
 * (BFCounter's scheme) -- bcl_kcount_restart_counts zeroes the counts and
 * frees the filter, then bcl_kcount_count_known counts every occurrence of
 * the keys the table holds and skips all others.  A table entry whose
 * exact count is 1 was a false positive: a singleton.
 *
 * Owner of a k-mer: ((mix(kmer) >> 32) * nprocs) >> 32, the high half of the
 * hash; the table uses the low bits, so the slots one owner sees still spread
 * over its whole table.
 */
#ifndef BCL_KCOUNT_H
#define BCL_KCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/bcl_error.h"
#include "serial/bcl_hash.h"

#define BCL_KCOUNT_EMPTY (~(uint64_t)0)

typedef struct __attribute__((packed)) bcl_kslot {
    uint64_t key;
    uint32_t count;
} bcl_kslot;

typedef struct bcl_kcount {
    bcl_kslot *slots;
    uint64_t cap;              /* power of two                              */
    uint64_t used;             /* distinct keys stored                      */
    uint64_t grow_at;          /* used > grow_at -> double                  */
    uint64_t added;            /* k-mer occurrences offered to add()        */
    uint64_t resizes;
    uint64_t *bloom;           /* NULL: no filter                           */
    uint64_t bloom_bits;       /* power of two                              */
    int bloom_hashes;
    uint64_t saturated;        /* counts that hit UINT32_MAX (kept there)   */
} bcl_kcount;


static inline int bcl_kcount_owner(uint64_t kmer, int nprocs)
{
    return (int)(((bcl_mix64(kmer) >> 32) * (uint64_t)nprocs) >> 32);
}

/* capacity: expected distinct keys (the table starts at the power of two
 * that holds them under 70 % load; 0 is fine).  bloom_bits: 0 for no filter,
 * else the filter's size in bits (rounded up to a power of two; 7 bits per
 * expected distinct k-mer give ~3.5 % false positives with 3 hashes, 10 give
 * ~1.4 % with 4... the caller picks). */
bcl_status bcl_kcount_init(bcl_kcount *t, uint64_t capacity, uint64_t bloom_bits);
void bcl_kcount_free(bcl_kcount *t);

/* Index of the first k-mer equal to BCL_KCOUNT_EMPTY (the free-slot
 * marker, never a canonical code), or n if there is none. */
size_t bcl_kcount_first_reserved(const uint64_t *kmers, size_t n);

/* Count n k-mers (each must be a canonical code, i.e. != ~0). */
bcl_status bcl_kcount_add(bcl_kcount *t, const uint64_t *kmers, size_t n);

/* Add each k-mer's occurrence to its count if the k-mer is a key of the
 * table; skip it if not (never inserts, so never grows). */
void bcl_kcount_count_known(bcl_kcount *t, const uint64_t *kmers, size_t n);

/* Every count to 0, the Bloom filter freed: the keys stay, for an exact
 * recount with bcl_kcount_count_known. */
void bcl_kcount_restart_counts(bcl_kcount *t);

/* Bytes the table and filter hold now. */
uint64_t bcl_kcount_bytes(const bcl_kcount *t);

/* Copy the entries out (room for t->used each); counts as stored. */
void bcl_kcount_export(const bcl_kcount *t, uint64_t *keys, int64_t *counts);

/* hist[c] += number of keys with stored count c, for c < hist_len; the
 * return value is the largest stored count (so a caller can size hist). */
uint64_t bcl_kcount_histogram(const bcl_kcount *t, int64_t *hist, size_t hist_len);

/* The n entries with the highest counts, ties by smaller key, best first;
 * returns how many (min(n, used)).  O(used * log n)-ish: for a short list. */
size_t bcl_kcount_top(const bcl_kcount *t, size_t n, uint64_t *keys, int64_t *counts);

/* Group kmers[0..n) by owner rank: out receives them owner by owner (stable),
 * counts[r] how many belong to rank r.  out must not alias kmers. */
void bcl_kcount_partition(const uint64_t *kmers, size_t n, int nprocs, uint64_t *out,
                          int64_t *counts);

#endif /* BCL_KCOUNT_H */
