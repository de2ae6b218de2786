/*
 * bcl_sv_mpiio.h -- saved-container files in a job: MPI-IO on pybcl's
 * communicator, the same calls on one node and across nodes.
 *
 * Writing (bcl_sv_write) is collective and atomic: every rank's rows go
 * with MPI_File_write_at_all into a temporary file beside the target
 * (".NAME.<token>.pybcl-tmp"), which is flushed to stable storage
 * (MPI_File_sync), closed, and only then renamed over the target by rank 0,
 * which also syncs the directory.  A job that dies before the rename leaves
 * the target as it was (and the temporary file behind); no reader ever
 * sees a partial file under the target's name.
 *
 * Reading (bcl_sv_open) is collective: rank 0 checks the path, every rank
 * opens the file, rank 0 reads and checks the descriptor and broadcasts
 * it; then each rank reads the rows it needs with independent
 * MPI_File_read_at calls through the one reader (bcl_sv_read.h).
 *
 * Every collective here ends with bcl_sv_agree, so a failure on any rank
 * (a bad path, a damaged part, a full disk) is the same error, with the
 * failing rank's message, on every rank, and no rank is left in a
 * collective call its peers skipped.
 */
#ifndef BCL_SV_MPIIO_H
#define BCL_SV_MPIIO_H

#include <mpi.h>

#include "io/bcl_sv_read.h"

/* Collective: every rank returns the first failing rank's status and
 * message (and errno, for BCL_ERR_OS), or BCL_OK when none failed. */
bcl_status bcl_sv_agree(bcl_status st);

/* ---- reading ------------------------------------------------------------- */

typedef struct bcl_sv_file {
    MPI_File fh;
    int open;
    char *path;
    bcl_sv_source src;     /* independent reads of this rank               */
    bcl_sv_desc d;
} bcl_sv_file;

/* Collective.  On failure (the same on every rank) nothing stays open. */
bcl_status bcl_sv_open(const char *path, bcl_sv_file *f);
/* Collective. */
bcl_status bcl_sv_close(bcl_sv_file *f);

/* ---- writing ------------------------------------------------------------- */

typedef struct bcl_sv_colsrc {
    uint64_t width;                /* bytes per row; 0: msgpack objects     */
    const unsigned char *data;     /* this rank's rows, back to back        */
    const uint64_t *ends;          /* width 0: end offset of each row in data */
} bcl_sv_colsrc;

typedef struct bcl_sv_out {
    uint32_t kind;
    uint32_t ncols;
    uint64_t rows;                 /* this rank's                           */
    bcl_sv_colsrc col[BCL_SV_MAX_COLS];
    const void *info;              /* the same bytes on every rank          */
    size_t info_len;
} bcl_sv_out;

/* Collective: write every rank's rows of `o` to `path` (see above).
 * `prepared`: this rank's status so far (a failure gathering its rows
 * makes every rank fail before anything is written). */
bcl_status bcl_sv_write(const char *path, const bcl_sv_out *o, bcl_status prepared);

#endif /* BCL_SV_MPIIO_H */
