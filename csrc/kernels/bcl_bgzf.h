/*
 * bcl_bgzf.h -- the block map of a BGZF file (bgzip, samtools, htslib).
 *
 * A BGZF file is a series of gzip members ("blocks", <= 64 KiB of data
 * each) whose header carries the extra subfield 'B','C' holding the
 * block's size in bytes minus 1, and whose trailer ends with ISIZE, the
 * block's decompressed size.  So every block start, and the decompressed
 * offset it begins at, can be found by seeking from header to header: one
 * small read per block, nothing decompressed.  That lets ranks split a
 * compressed file: each starts inflating at a block of its own (a plain
 * gzip member has no size field; its end is found only by inflating it).
 *
 * Strict: a file whose members are all BGZF gets a map; one whose first or
 * a later member has no 'BC' field is "not BGZF" (read as one stream); a
 * block running past the end of the file, or bytes after a block that do
 * not start a gzip member, are BCL_ERR_DECODE (truncated / trailing
 * garbage), as the stream reader would report them.
 */
#ifndef BCL_BGZF_H
#define BCL_BGZF_H

#include <stdint.h>

#include "runtime/bcl_error.h"

typedef struct bcl_bgzf_map {
    uint64_t nblocks;
    uint64_t *coff;     /* nblocks + 1: compressed offset of each block, file size last  */
    uint64_t *uoff;     /* nblocks + 1: decompressed offset of each, total size last     */
} bcl_bgzf_map;

/* Walk `path`'s block headers.  *is_bgzf = 1 and `map` filled (free it with
 * bcl_bgzf_free), or *is_bgzf = 0 and map empty (not BGZF: a plain file, an
 * ordinary gzip file, or one mixing BGZF and other members). */
bcl_status bcl_bgzf_walk(const char *path, bcl_bgzf_map *map, int *is_bgzf);

void bcl_bgzf_free(bcl_bgzf_map *map);

#endif /* BCL_BGZF_H */
