/* bcl_sv_posix.c -- saved-container files through POSIX calls (bcl_sv_posix.h). */
#define _GNU_SOURCE
#include "io/bcl_sv_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bcl_status os_error(int e, const char *path)
{
    if (e == EISDIR)
        return bcl_set_os_error(e, "%s: is a directory, not a pybcl file", path);
    return bcl_set_os_error(e, "%s: %s", path, strerror(e));
}

bcl_status bcl_sv_posix_check(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return os_error(errno, path);
    if (S_ISDIR(sb.st_mode))
        return os_error(EISDIR, path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return os_error(errno, path);
    close(fd);
    return BCL_OK;
}

typedef struct pctx {
    int fd;
    const char *path;
} pctx;

static bcl_status posix_pread(void *ctx, uint64_t off, void *buf, size_t n)
{
    const pctx *c = ctx;
    const char *path = c->path;
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = pread(c->fd, p, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return os_error(errno, path);
        if (got == 0)
            return bcl_set_error(BCL_ERR_DECODE, "%s: truncated pybcl file: it ends at "
                                 "byte %llu", path, (unsigned long long)off);
        p += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return BCL_OK;
}

bcl_status bcl_sv_posix_open(const char *path, bcl_sv_pfile *f)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    bcl_status st = bcl_sv_posix_check(path);
    if (st != BCL_OK)
        return st;
    pctx *ctx = malloc(sizeof *ctx);
    if (!ctx)
        return bcl_set_error(BCL_ERR_NOMEM, "%s: no memory to open it", path);
    struct stat sb;
    f->src = (bcl_sv_source){ posix_pread, ctx, path, 0 };
    ctx->path = path;
    ctx->fd = f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0 || fstat(f->fd, &sb) != 0) {
        st = os_error(errno, path);
        bcl_sv_posix_close(f);
        return st;
    }
    f->src.size = (uint64_t)sb.st_size;
    unsigned char *bytes = NULL;
    uint64_t len = 0;
    st = bcl_sv_read_desc(&f->src, &bytes, &len);
    if (st == BCL_OK)
        st = bcl_sv_parse(bytes, (size_t)len, f->src.size, path, &f->d);
    free(bytes);
    if (st != BCL_OK)
        bcl_sv_posix_close(f);
    return st;
}

void bcl_sv_posix_close(bcl_sv_pfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->src.ctx);
    f->src.ctx = NULL;
    bcl_sv_desc_free(&f->d);
}
