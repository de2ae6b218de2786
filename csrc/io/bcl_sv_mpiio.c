/* bcl_sv_mpiio.c -- saved-container files through MPI-IO (bcl_sv_mpiio.h). */
#define _GNU_SOURCE
#include "io/bcl_sv_mpiio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "comm/bcl_comm.h"
#include "comm/bcl_gather.h"
#include "io/bcl_sv_posix.h"
#include "runtime/bcl_runtime.h"
#include "serial/bcl_hash.h"

/* Bytes per MPI-IO call: MPI counts are ints. */
#define IO_CHUNK ((uint64_t)1 << 30)

/* ---- agreement ------------------------------------------------------------ */

bcl_status bcl_sv_agree(bcl_status st)
{
    /* each rank's (status, errno, message), gathered everywhere: every rank
     * can raise the first failing rank's own words */
    const char *msg = st != BCL_OK ? bcl_last_error() : "";
    size_t mlen = strlen(msg);
    unsigned char *mine = malloc(8 + mlen);
    if (!mine)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory to agree on an I/O outcome");
    int32_t words[2] = { (int32_t)st, st == BCL_ERR_OS ? bcl_last_os_errno() : 0 };
    memcpy(mine, words, 8);
    memcpy(mine + 8, msg, mlen);
    unsigned char *all = NULL;
    uint64_t *sizes = NULL;
    bcl_status rc = bcl_allgather_bytes(mine, 8 + mlen, &all, &sizes);
    free(mine);
    if (rc != BCL_OK)
        return rc;
    size_t at = 0;
    for (int r = 0; r < bcl_rt.nprocs; r++) {
        memcpy(words, all + at, 8);
        if (words[0] != BCL_OK) {
            int len = (int)(sizes[r] - 8);
            const char *text = (const char *)all + at + 8;
            rc = words[0] == BCL_ERR_OS
                     ? bcl_set_os_error(words[1], "%.*s", len, text)
                     : bcl_set_error((bcl_status)words[0], "%.*s", len, text);
            break;
        }
        at += sizes[r];
    }
    free(all);
    free(sizes);
    return rc;
}

/* An MPI-IO failure as the OSError it stands for. */
static bcl_status file_error(const char *call, int rc, const char *path)
{
    int cls = MPI_ERR_IO, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", rc);
    int e = cls == MPI_ERR_NO_SUCH_FILE ? ENOENT
          : cls == MPI_ERR_ACCESS ? EACCES
          : cls == MPI_ERR_FILE_EXISTS ? EEXIST
          : cls == MPI_ERR_NO_SPACE ? ENOSPC
          : cls == MPI_ERR_QUOTA ? EDQUOT
          : cls == MPI_ERR_READ_ONLY ? EROFS
          : EIO;
    return bcl_set_os_error(e, "%s: %s failed: %s", path, call, text);
}

/* ---- reading ------------------------------------------------------------- */

static bcl_status mpi_pread(void *ctx, uint64_t off, void *buf, size_t n)
{
    bcl_sv_file *f = ctx;
    unsigned char *p = buf;
    while (n > 0) {
        int k = (int)(n < IO_CHUNK ? n : IO_CHUNK), got = 0;
        MPI_Status s;
        int rc = MPI_File_read_at(f->fh, (MPI_Offset)off, p, k, MPI_BYTE, &s);
        if (rc != MPI_SUCCESS)
            return file_error("MPI_File_read_at", rc, f->path);
        MPI_Get_count(&s, MPI_BYTE, &got);
        if (got <= 0)
            return bcl_set_error(BCL_ERR_DECODE, "%s: truncated pybcl file: it ends at "
                                 "byte %llu", f->path, (unsigned long long)off);
        p += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return BCL_OK;
}

/* Rank 0: the file's size and descriptor bytes. */
static bcl_status read_desc_root(bcl_sv_file *f, unsigned char **bytes, uint64_t *len)
{
    MPI_Offset size = 0;
    int rc = MPI_File_get_size(f->fh, &size);
    if (rc != MPI_SUCCESS)
        return file_error("MPI_File_get_size", rc, f->path);
    f->src.size = (uint64_t)size;
    bcl_status st = bcl_sv_read_desc(&f->src, bytes, len);
    bcl_sv_desc d;
    if (st == BCL_OK && (st = bcl_sv_parse(*bytes, (size_t)*len, f->src.size, f->path,
                                           &d)) == BCL_OK)
        bcl_sv_desc_free(&d);
    return st;
}

static bcl_status open_file(const char *path, bcl_sv_file *f)
{
    bcl_status st = bcl_rt.rank == 0 ? bcl_sv_posix_check(path) : BCL_OK;
    if ((st = bcl_sv_agree(st)) != BCL_OK)
        return st;
    int rc = MPI_File_open(bcl_rt.comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f->fh);
    st = rc == MPI_SUCCESS ? BCL_OK : file_error("MPI_File_open", rc, path);
    f->open = rc == MPI_SUCCESS;
    if ((st = bcl_sv_agree(st)) != BCL_OK)
        return st;
    unsigned char *bytes = NULL;
    uint64_t meta[2] = { 0, 0 };               /* file size, descriptor bytes */
    st = bcl_rt.rank == 0 ? read_desc_root(f, &bytes, &meta[1]) : BCL_OK;
    meta[0] = f->src.size;
    if ((st = bcl_sv_agree(st)) != BCL_OK || (st = bcl_bcast(meta, sizeof meta, 0)) != BCL_OK)
        goto done;
    if (bcl_rt.rank != 0 && !(bytes = malloc((size_t)meta[1])))
        st = bcl_set_error(BCL_ERR_NOMEM, "%s: no memory for its descriptor", path);
    if ((st = bcl_sv_agree(st)) != BCL_OK ||
        (st = bcl_bcast(bytes, (size_t)meta[1], 0)) != BCL_OK)
        goto done;
    f->src.size = meta[0];
    st = bcl_sv_agree(bcl_sv_parse(bytes, (size_t)meta[1], meta[0], path, &f->d));
done:
    free(bytes);
    return st;
}

bcl_status bcl_sv_open(const char *path, bcl_sv_file *f)
{
    BCL_REQUIRE_INIT();
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    bcl_status st = f->path ? BCL_OK : bcl_set_error(BCL_ERR_NOMEM, "no memory for a path");
    f->src = (bcl_sv_source){ mpi_pread, f, f->path, 0 };
    if ((st = bcl_sv_agree(st)) == BCL_OK && (st = open_file(path, f)) == BCL_OK)
        return BCL_OK;
    char keep[1024];
    int keep_errno = bcl_last_os_errno();
    snprintf(keep, sizeof keep, "%s", bcl_last_error());
    bcl_sv_close(f);
    return st == BCL_ERR_OS ? bcl_set_os_error(keep_errno, "%s", keep)
                            : bcl_set_error(st, "%s", keep);
}

bcl_status bcl_sv_close(bcl_sv_file *f)
{
    bcl_status st = BCL_OK;
    if (f->open) {
        int rc = MPI_File_close(&f->fh);
        if (rc != MPI_SUCCESS)
            st = file_error("MPI_File_close", rc, f->path);
        f->open = 0;
    }
    bcl_sv_desc_free(&f->d);
    free(f->path);
    f->path = NULL;
    return st;
}

/* ---- writing: this rank's row groups ---------------------------------------- */

/* A row group as gathered: items, then (length, checksum) per column. */
#define REC_WORDS(ncols) (1 + 2 * (size_t)(ncols))

static uint64_t row_start(const bcl_sv_colsrc *c, uint64_t i)
{
    return i == 0 ? 0 : c->width ? i * c->width : c->ends[i - 1];
}

static uint64_t group_bytes(const bcl_sv_out *o, uint64_t g0, uint64_t g1)
{
    uint64_t bytes = 0;
    for (uint32_t c = 0; c < o->ncols; c++)
        bytes += row_start(&o->col[c], g1) - row_start(&o->col[c], g0);
    return bytes;
}

/* One past the last row of the group starting at row g0: per_group rows
 * when every row has the same width, else rows until the group's bytes
 * reach BCL_SV_GROUP_BYTES. */
static uint64_t group_end(const bcl_sv_out *o, uint64_t g0, uint64_t per_group)
{
    if (per_group)
        return o->rows - g0 < per_group ? o->rows : g0 + per_group;
    uint64_t g1 = g0 + 1;
    while (g1 < o->rows && group_bytes(o, g0, g1) < BCL_SV_GROUP_BYTES)
        g1++;
    return g1;
}

/* Cut this rank's rows into groups of about BCL_SV_GROUP_BYTES (at least
 * one row each) and checksum their parts: *recs, *ngroups of them. */
static bcl_status local_groups(const bcl_sv_out *o, uint64_t **recs, uint64_t *ngroups)
{
    size_t words = REC_WORDS(o->ncols), cap = 16, n = 0;
    uint64_t row_bytes = 0;                  /* fixed-width rows: all alike */
    for (uint32_t c = 0; c < o->ncols; c++) {
        if (!o->col[c].width) {
            row_bytes = 0;
            break;
        }
        row_bytes += o->col[c].width;
    }
    uint64_t per_group = !row_bytes ? 0 : row_bytes >= BCL_SV_GROUP_BYTES
                                              ? 1 : BCL_SV_GROUP_BYTES / row_bytes;
    uint64_t *r = malloc(cap * words * sizeof *r);
    if (!r)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for the part table");
    for (uint64_t g0 = 0, g1; g0 < o->rows; g0 = g1) {
        g1 = group_end(o, g0, per_group);
        if (n == cap) {
            uint64_t *more = realloc(r, 2 * cap * words * sizeof *r);
            if (!more) {
                free(r);
                return bcl_set_error(BCL_ERR_NOMEM, "no memory for the part table");
            }
            r = more;
            cap *= 2;
        }
        uint64_t *rec = r + n++ * words;
        rec[0] = g1 - g0;
        for (uint32_t c = 0; c < o->ncols; c++) {
            uint64_t a = row_start(&o->col[c], g0), b = row_start(&o->col[c], g1);
            rec[1 + 2 * c] = b - a;
            rec[2 + 2 * c] = bcl_hash64(o->col[c].data + a, (size_t)(b - a), 0);
        }
    }
    *recs = r;
    *ngroups = n;
    return BCL_OK;
}

/* The whole file's descriptor from every rank's groups; *first_group: the
 * index of this rank's first group. */
static bcl_status build_desc(const bcl_sv_out *o, const uint64_t *recs, const uint64_t *sizes,
                             bcl_sv_desc *d, uint64_t *first_group, unsigned char **bytes)
{
    size_t words = REC_WORDS(o->ncols);
    memset(d, 0, sizeof *d);
    d->kind = o->kind;
    d->ranks = (uint32_t)bcl_rt.nprocs;
    d->ncols = o->ncols;
    d->info = (unsigned char *)o->info;
    d->info_len = o->info_len;
    for (int r = 0; r < bcl_rt.nprocs; r++) {
        if (r == bcl_rt.rank)
            *first_group = d->ngroups;
        d->ngroups += sizes[r] / (words * sizeof *recs);
    }
    d->parts = calloc((size_t)(d->ngroups * d->ncols + 1), sizeof *d->parts);
    if (!d->parts)
        return bcl_set_error(BCL_ERR_NOMEM, "no memory for the part table");
    for (uint32_t c = 0; c < o->ncols; c++)
        d->col[c].width = o->col[c].width;
    for (uint64_t g = 0; g < d->ngroups; g++) {
        const uint64_t *rec = recs + g * words;
        d->entries += rec[0];
        for (uint32_t c = 0; c < o->ncols; c++) {
            bcl_sv_part *p = &d->parts[g * d->ncols + c];
            p->items = rec[0];
            p->length = rec[1 + 2 * c];
            p->checksum = rec[2 + 2 * c];
        }
    }
    return bcl_sv_encode(d, bytes);
}

/* The most IO_CHUNK pieces any rank's part of column c takes (rec_bytes:
 * bytes of one gathered group record; sizes: each rank's gathered bytes). */
static uint64_t most_rounds(const bcl_sv_desc *d, const uint64_t *sizes, size_t rec_bytes,
                            int c)
{
    uint64_t most = 0, g = 0;
    for (int r = 0; r < bcl_rt.nprocs; r++) {
        uint64_t n = 0, end = g + sizes[r] / rec_bytes;
        for (; g < end; g++)
            n += bcl_sv_part_at(d, g, c)->length;
        n = (n + IO_CHUNK - 1) / IO_CHUNK;
        most = n > most ? n : most;
    }
    return most;
}

/* ---- writing: the temporary file and its rename ----------------------------- */

static void split_path(const char *path, char *dir, size_t dn, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, dn, ".");
    else if (slash == path)
        snprintf(dir, dn, "/");
    else
        snprintf(dir, dn, "%.*s", (int)(slash - path), path);
}

/* Rank 0: can `path` be replaced, and where does the temporary file go? */
static bcl_status plan_temp(const char *path, char *tmp, size_t tn)
{
    char dir[PATH_MAX];
    const char *base;
    struct stat sb;
    split_path(path, dir, sizeof dir, &base);
    if (!*base || (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)))
        return bcl_set_os_error(EISDIR, "%s: is a directory", path);
    if (stat(dir, &sb) != 0)
        return bcl_set_os_error(errno, "%s: no such directory: %s", path, dir);
    if (!S_ISDIR(sb.st_mode))
        return bcl_set_os_error(ENOTDIR, "%s: %s is not a directory", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return bcl_set_os_error(errno, "%s: cannot create a file in %s: %s", path, dir,
                                strerror(errno));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    static unsigned counter;
    uint64_t token = bcl_hash_avalanche(((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
                                        ((uint64_t)ts.tv_sec << 20) ^ ++counter);
    int n = snprintf(tmp, tn, "%s/.%s.%016llx.pybcl-tmp", dir, base,
                     (unsigned long long)token);
    if (n < 0 || (size_t)n >= tn)
        return bcl_set_os_error(ENAMETOOLONG, "%s: the path is too long", path);
    return BCL_OK;
}

/* Rank 0: the temporary file becomes `path`, and the rename reaches the disk. */
static bcl_status commit(const char *tmp, const char *path)
{
    if (rename(tmp, path) != 0)
        return bcl_set_os_error(errno, "%s: cannot rename the saved file over it: %s",
                                path, strerror(errno));
    char dir[PATH_MAX];
    const char *base;
    split_path(path, dir, sizeof dir, &base);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);       /* some file systems refuse a directory's fsync */
        close(fd);
    }
    return BCL_OK;
}

/* One piece of this rank's to write: n bytes at file offset off. */
typedef struct piece {
    uint64_t off, n;
    const unsigned char *data;
} piece;

/* Collective: every piece in rounds of at most IO_CHUNK bytes, the same
 * number of MPI_File_write_at_all calls on every rank (rounds[i]: the most
 * piece i of any rank needs; ranks with less to write join with zero
 * bytes). */
static bcl_status write_pieces(MPI_File fh, const piece *pc, const uint64_t *rounds, int np,
                               const char *path)
{
    bcl_status first = BCL_OK;
    char keep[1024] = "";
    int keep_errno = 0;
    for (int i = 0; i < np; i++) {
        for (uint64_t k = 0; k < rounds[i]; k++) {
            uint64_t at = k * IO_CHUNK;
            uint64_t n = first == BCL_OK && at < pc[i].n
                             ? (pc[i].n - at < IO_CHUNK ? pc[i].n - at : IO_CHUNK) : 0;
            MPI_Status s;
            int rc = MPI_File_write_at_all(fh, (MPI_Offset)(n ? pc[i].off + at : 0),
                                           n ? pc[i].data + at : NULL, (int)n, MPI_BYTE, &s);
            int put = 0;
            if (rc == MPI_SUCCESS)
                MPI_Get_count(&s, MPI_BYTE, &put);
            if (first == BCL_OK && (rc != MPI_SUCCESS || (uint64_t)put != n)) {
                first = rc != MPI_SUCCESS
                            ? file_error("MPI_File_write_at_all", rc, path)
                            : bcl_set_os_error(EIO, "%s: MPI_File_write_at_all wrote %d of "
                                               "%llu bytes", path, put, (unsigned long long)n);
                keep_errno = bcl_last_os_errno();
                snprintf(keep, sizeof keep, "%s", bcl_last_error());
            }
        }
    }
    return first == BCL_OK ? BCL_OK : bcl_set_os_error(keep_errno, "%s", keep);
}

/* Collective: create `tmp`, write the descriptor (rank 0) and every rank's
 * pieces, sync, close. */
static bcl_status write_file(const char *tmp, const char *path, const piece *pc,
                             const uint64_t *rounds, int np)
{
    MPI_File fh;
    int rc = MPI_File_open(bcl_rt.comm, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_EXCL,
                           MPI_INFO_NULL, &fh);
    bcl_status st = rc == MPI_SUCCESS ? BCL_OK : file_error("MPI_File_open", rc, path);
    if ((st = bcl_sv_agree(st)) != BCL_OK)
        return st;
    st = write_pieces(fh, pc, rounds, np, path);
    rc = MPI_File_sync(fh);                  /* to stable storage, before the rename */
    if (st == BCL_OK && rc != MPI_SUCCESS)
        st = file_error("MPI_File_sync", rc, path);
    rc = MPI_File_close(&fh);
    if (st == BCL_OK && rc != MPI_SUCCESS)
        st = file_error("MPI_File_close", rc, path);
    return st;
}

bcl_status bcl_sv_write(const char *path, const bcl_sv_out *o, bcl_status prepared)
{
    BCL_REQUIRE_INIT();
    uint64_t *recs = NULL, *all = NULL, *sizes = NULL, ngroups = 0, first = 0;
    unsigned char *desc_bytes = NULL;
    bcl_sv_desc d;
    memset(&d, 0, sizeof d);
    char tmp[PATH_MAX + 64] = "";
    bcl_status st = prepared != BCL_OK ? prepared : local_groups(o, &recs, &ngroups);
    if ((st = bcl_sv_agree(st)) != BCL_OK)
        goto out;
    st = bcl_allgather_bytes(recs, (size_t)ngroups * REC_WORDS(o->ncols) * sizeof *recs,
                             (unsigned char **)&all, &sizes);
    if (st == BCL_OK)
        st = build_desc(o, all, sizes, &d, &first, &desc_bytes);
    if (st == BCL_OK && bcl_rt.rank == 0)
        st = plan_temp(path, tmp, sizeof tmp);
    if ((st = bcl_sv_agree(st)) != BCL_OK || (st = bcl_bcast(tmp, sizeof tmp, 0)) != BCL_OK)
        goto out;
    /* every rank knows every rank's bytes (the gathered groups): the
     * rounds of MPI-IO calls need no agreement of their own */
    piece pc[BCL_SV_MAX_COLS + 1];
    uint64_t rounds[BCL_SV_MAX_COLS + 1] = { (d.data_off + IO_CHUNK - 1) / IO_CHUNK };
    pc[0] = (piece){ 0, bcl_rt.rank == 0 ? d.data_off : 0, desc_bytes };
    for (uint32_t c = 0; c < o->ncols; c++) {
        uint64_t n = row_start(&o->col[c], o->rows);
        pc[1 + c] = (piece){ n ? d.parts[first * d.ncols + c].offset : 0, n, o->col[c].data };
        rounds[1 + c] = most_rounds(&d, sizes, REC_WORDS(o->ncols) * sizeof *recs, (int)c);
    }
    st = write_file(tmp, path, pc, rounds, 1 + (int)o->ncols);
    if (st == BCL_OK && bcl_rt.rank == 0)
        st = commit(tmp, path);
    if ((st = bcl_sv_agree(st)) != BCL_OK && bcl_rt.rank == 0)
        unlink(tmp);                          /* no half-written file stays behind */
out:
    free(recs);
    free(all);
    free(sizes);
    free(desc_bytes);
    d.info = NULL;                            /* the caller's */
    bcl_sv_desc_free(&d);
    return st;
}
