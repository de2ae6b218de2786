/* bcl_sv_queue.c -- saving and loading FastQueue and CircularQueue
 * (bcl_sv_containers.h): the host writes its elements in FIFO order and,
 * loading, pushes them back with local operations. */
#include "io/bcl_sv_containers.h"

#include <stdlib.h>
#include <string.h>

#include "io/bcl_sv_internal.h"
#include "runtime/bcl_runtime.h"

static uint32_t kind_of(const bcl_queue *q)
{
    return q->kind == BCL_QUEUE_CIRCULAR ? BCL_SV_CIRCULARQUEUE : BCL_SV_FASTQUEUE;
}

bcl_status bcl_sv_save_queue(bcl_queue *q, const char *path, const void *info,
                             size_t info_len)
{
    int var = q->values;
    void *slots = NULL;
    uint64_t count = 0;
    bcl_sv_objcol values;
    bcl_mp_writer_init(&values.data);
    values.ends = NULL;
    bcl_status st = bcl_rt.rank == q->host ? bcl_queue_local_view(q, &slots, &count) : BCL_OK;
    if (st == BCL_OK && var && (st = bcl_sv_objcol_init(&values, count)) == BCL_OK) {
        for (uint64_t i = 0; i < count && st == BCL_OK; i++) {
            bcl_objref r;
            memcpy(&r, (const unsigned char *)slots + i * q->slot_size, sizeof r);
            st = bcl_sv_objcol_add(&values, r);
        }
        if (st == BCL_OK)
            st = bcl_sv_objcol_check(&values, "save");
    }
    bcl_sv_out o = { kind_of(q), 1, st == BCL_OK ? count : 0,
                     { var ? (bcl_sv_colsrc){ 0, values.data.buf, values.ends }
                           : (bcl_sv_colsrc){ q->slot_size, slots, NULL } },
                     info, info_len };
    st = bcl_sv_write(path, &o, st);
    bcl_sv_objcol_free(&values);
    return st;
}

/* Host: every row of the file pushed onto q. */
static bcl_status push_rows(bcl_sv_file *f, bcl_queue *q)
{
    int var = q->values;
    uint64_t n = f->d.entries, len = bcl_sv_span_bytes(&f->d, 0, 0, n);
    unsigned char *rows = malloc((size_t)(len ? len : 1));
    uint64_t *ends = NULL;
    size_t *lens = NULL;
    int pushed = 1;
    bcl_status st = rows ? BCL_OK : bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for its "
                                                  "%llu bytes", f->path,
                                                  (unsigned long long)len);
    if (st == BCL_OK)
        st = bcl_sv_read_rows(&f->d, &f->src, 0, 0, n, rows);
    if (st == BCL_OK && var && n && (st = bcl_sv_object_ends(rows, (size_t)len, n, &ends)) ==
        BCL_OK) {
        if (!(lens = malloc((size_t)n * sizeof *lens)))
            st = bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for %llu lengths", f->path,
                               (unsigned long long)n);
        for (uint64_t i = 0; lens && i < n; i++)
            lens[i] = (size_t)(ends[i] - (i ? ends[i - 1] : 0));
    }
    if (st == BCL_OK && n)
        st = bcl_queue_push_elems(q, rows, lens, (size_t)n, BCL_QP_LOCAL, &pushed);
    if (st == BCL_OK && !pushed)
        st = bcl_set_error(BCL_ERR_FULL, "%s: its %llu elements do not fit the loaded queue",
                           f->path, (unsigned long long)n);
    free(rows);
    free(ends);
    free(lens);
    return st;
}

bcl_status bcl_sv_load_queue(bcl_sv_file *f, bcl_queue *q)
{
    bcl_status st = bcl_sv_expect(f, 0, q->values ? 0 : q->slot_size, "elements");
    if (st == BCL_OK && bcl_rt.rank == q->host)
        st = push_rows(f, q);
    st = bcl_sv_agree(st);
    return st == BCL_OK ? bcl_barrier() : st;
}
