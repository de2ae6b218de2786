/* bcl_sv_blocks.c -- saving and loading the block-distributed containers:
 * DArray, Array and BloomFilter (bcl_sv_containers.h).  Each rank writes
 * its block straight from its segment and reads its new block straight
 * into it. */
#include "io/bcl_sv_containers.h"

#include "io/bcl_sv_internal.h"
#include "runtime/bcl_runtime.h"

/* A one-column file of `width`-byte rows, this rank's `rows` at `data`. */
static bcl_status save_block(uint32_t kind, uint64_t width, const void *data, uint64_t rows,
                             const char *path, const void *info, size_t info_len)
{
    bcl_sv_out o = { kind, 1, rows, { { width, data, NULL } }, info, info_len };
    return bcl_sv_write(path, &o, BCL_OK);
}

static unsigned char *block_at(uint64_t offset)
{
    return bcl_rt.local_base + offset;
}

bcl_status bcl_sv_save_array(const bcl_array *a, const char *path, const void *info,
                             size_t info_len)
{
    uint64_t first, count;
    bcl_array_local_range(a, bcl_rt.rank, &first, &count);
    return save_block(a->host >= 0 ? BCL_SV_ARRAY : BCL_SV_DARRAY, a->elem_size,
                      count ? block_at(a->offsets[bcl_rt.rank]) : NULL, count, path, info,
                      info_len);
}

/* Rows [first, first + count) into this rank's block at `offset`, agreed,
 * then visible to every rank. */
static bcl_status load_block(bcl_sv_file *f, bcl_status st, uint64_t offset, uint64_t first,
                             uint64_t count)
{
    if (st == BCL_OK && count)
        st = bcl_sv_read_rows(&f->d, &f->src, 0, first, first + count, block_at(offset));
    st = bcl_sv_agree(st);
    return st == BCL_OK ? bcl_barrier() : st;
}

static bcl_status expect_rows(const bcl_sv_file *f, uint64_t rows, const char *what)
{
    if (f->d.entries == rows)
        return BCL_OK;
    return bcl_set_error(BCL_ERR_DECODE, "%s: damaged pybcl file: it holds %llu %s, its "
                         "info %llu", f->path, (unsigned long long)f->d.entries, what,
                         (unsigned long long)rows);
}

bcl_status bcl_sv_load_array(bcl_sv_file *f, const bcl_array *a)
{
    uint64_t first, count;
    bcl_array_local_range(a, bcl_rt.rank, &first, &count);
    bcl_status st = bcl_sv_expect(f, 0, a->elem_size, "elements");
    if (st == BCL_OK)
        st = expect_rows(f, a->size, "elements");
    return load_block(f, st, count ? a->offsets[bcl_rt.rank] : 0, first, count);
}

/* This rank's words of the filter: [first, first + count). */
static void bloom_range(const bcl_bloom *b, uint64_t *first, uint64_t *count)
{
    uint64_t lo = (uint64_t)bcl_rt.rank * b->words_per_rank;
    uint64_t hi = lo + b->words_per_rank < b->nwords ? lo + b->words_per_rank : b->nwords;
    *first = lo < hi ? lo : hi;
    *count = hi - *first;
}

bcl_status bcl_sv_save_bloom(const bcl_bloom *b, const char *path, const void *info,
                             size_t info_len)
{
    uint64_t first, count;
    bloom_range(b, &first, &count);
    return save_block(BCL_SV_BLOOM, 8, block_at(b->offsets[bcl_rt.rank]), count, path, info,
                      info_len);
}

bcl_status bcl_sv_load_bloom(bcl_sv_file *f, bcl_bloom *b, int k)
{
    bcl_status st = bcl_sv_agree(bcl_sv_expect(f, 0, 8, "filter words"));
    if (st != BCL_OK)
        return st;
    if (b->nwords != f->d.entries || b->k != k) {
        /* the same words as the saved filter, however the ranks divide them */
        uint64_t expected = b->expected_items;
        double fpr = b->fpr;
        bcl_bloom_destroy(b);
        if ((st = bcl_sv_agree(bcl_bloom_create_sized(b, expected, fpr, f->d.entries, k))) !=
            BCL_OK)
            return st;
    }
    uint64_t first, count;
    bloom_range(b, &first, &count);
    return load_block(f, BCL_OK, b->offsets[bcl_rt.rank], first, count);
}
