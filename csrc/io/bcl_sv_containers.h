/*
 * bcl_sv_containers.h -- saving and loading each container kind
 * (docs/saving.md).  Which rows each rank writes and reads:
 *
 *   HashMap      two columns, keys and values (fixed width, or one msgpack
 *                object per row); each rank writes its live entries (read
 *                through bcl_hm_local_copy or bcl_hm_local_scan, whatever
 *                the bucket layout).  A loading rank reads an even share of
 *                the rows (whole row groups when a column is msgpack) and
 *                hands them to a HashMapBuffer: every key goes to its owner
 *                under the new rank count, which inserts it into its own
 *                block.
 *   DArray       one column; each rank writes its block and reads the rows
 *                of its block under the new rank count (re-blocked).
 *   Array        one column, written and read by the host.
 *   BloomFilter  one column of 64-bit words; each rank writes and reads its
 *                words.  The loaded filter keeps the word count and k, so
 *                every key keeps its word (bcl_bloom_create_sized).
 *   queues       one column in FIFO order, written and read by the host.
 *
 * All are collective and return the same status on every rank.  Saving
 * expects the container quiescent (the caller's barrier); a map or queue
 * holding a GlobalPtr is BCL_ERR_TYPE.  Loading fills a container the
 * caller made from the file's info (kind, types, sizes), and checks that
 * it matches the file's columns.
 */
#ifndef BCL_SV_CONTAINERS_H
#define BCL_SV_CONTAINERS_H

#include "containers/bcl_array.h"
#include "containers/bcl_bloom.h"
#include "containers/hashmap/bcl_hashmap.h"
#include "containers/bcl_queue.h"
#include "io/bcl_sv_mpiio.h"

/* info/info_len: the file's info block, the same on every rank. */
bcl_status bcl_sv_save_hashmap(const bcl_hashmap *m, const char *path, const void *info,
                               size_t info_len);
bcl_status bcl_sv_save_array(const bcl_array *a, const char *path, const void *info,
                             size_t info_len);
bcl_status bcl_sv_save_bloom(const bcl_bloom *b, const char *path, const void *info,
                             size_t info_len);
bcl_status bcl_sv_save_queue(bcl_queue *q, const char *path, const void *info,
                             size_t info_len);

bcl_status bcl_sv_load_hashmap(bcl_sv_file *f, bcl_hashmap *m);
bcl_status bcl_sv_load_array(bcl_sv_file *f, const bcl_array *a);
/* k: the saved filter's bits per key (from its info); b is re-made with
 * the file's word count and k when they differ from its own. */
bcl_status bcl_sv_load_bloom(bcl_sv_file *f, bcl_bloom *b, int k);
bcl_status bcl_sv_load_queue(bcl_sv_file *f, bcl_queue *q);

/* One container of any kind, as the callers that hold several kinds see it
 * (the binding's save() and load()): its kind picks the call above. */
typedef struct bcl_sv_target {
    bcl_sv_kind kind;
    union {
        bcl_hashmap *hm;       /* BCL_SV_HASHMAP                  */
        bcl_array *arr;        /* BCL_SV_DARRAY, BCL_SV_ARRAY     */
        bcl_bloom *bloom;      /* BCL_SV_BLOOM                    */
        bcl_queue *q;          /* the queues                      */
    };
} bcl_sv_target;

bcl_status bcl_sv_save(const bcl_sv_target *t, const char *path, const void *info,
                       size_t info_len);
/* k: as bcl_sv_load_bloom's (other kinds ignore it). */
bcl_status bcl_sv_load(bcl_sv_file *f, const bcl_sv_target *t, int k);

#endif /* BCL_SV_CONTAINERS_H */
