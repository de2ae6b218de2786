/*
 * bcl_sv_posix.h -- saved-container files in a plain process: POSIX open,
 * fstat and pread under the one reader (bcl_sv_read.h).  No MPI and no
 * pybcl runtime: pybcl.io reads files with it in any Python process, and
 * a loading job's rank 0 checks the path with it first, for errors that
 * name the problem as the operating system does.
 */
#ifndef BCL_SV_POSIX_H
#define BCL_SV_POSIX_H

#include "io/bcl_sv_read.h"

/* `path` names an existing regular file this process may read: else
 * BCL_ERR_OS with the errno (ENOENT, EACCES, EISDIR for a directory...)
 * and a message naming the path. */
bcl_status bcl_sv_posix_check(const char *path);

typedef struct bcl_sv_pfile {
    int fd;
    bcl_sv_source src;
    bcl_sv_desc d;
} bcl_sv_pfile;

/* Open and check a saved file: f->d is its parsed descriptor, f->src reads
 * it.  On failure nothing stays open. */
bcl_status bcl_sv_posix_open(const char *path, bcl_sv_pfile *f);
void bcl_sv_posix_close(bcl_sv_pfile *f);

#endif /* BCL_SV_POSIX_H */
