/*
 * docstrings/io.h -- docstrings of saving and loading (io_py.c): every
 * container's save() method and the private functions pybcl/io.py calls.
 */
#ifndef BCLPY_DOC_IO_H
#define BCLPY_DOC_IO_H

#include "binding/docstrings/common.h"

#define BCLPY_DOC_SAVE \
    BCLPY_SIG("save($self, /, path, meta=None)") \
    "Collective: write the whole container (every rank's part) to one file.\n" \
    "\n" \
    "Every rank writes its part with MPI-IO collective writes into a\n" \
    "temporary file beside `path`, which is flushed to stable storage and\n" \
    "renamed to `path` only once every rank has finished: a job that dies\n" \
    "while saving leaves an earlier file at `path` whole, and never a partial\n" \
    "one under that name.  ``pybcl.load(path)`` makes the container again at\n" \
    "any rank count; ``pybcl.io.read(path)`` reads it without MPI.  Pending\n" \
    "buffers (HashMapBuffer, DArrayBuffer) are not part of the container:\n" \
    "flush them first.  The file format is in docs/saving.md.\n" \
    BCLPY_PARAMETERS \
    "path : str or os.PathLike\n" \
    "    The file to write (replaced if it exists), on a file system every\n" \
    "    rank sees.  The same on every rank.\n" \
    "meta : dict, optional\n" \
    "    msgpack-able data stored with the file (``pybcl.io.info(path)\n" \
    "    ['meta']``).  The same on every rank.\n" \
    BCLPY_RAISES \
    "TypeError\n" \
    "    On every rank: `meta` is not msgpack-able, or the container holds a\n" \
    "    GlobalPtr (a pointer does not outlive its job).\n" \
    "ValueError\n" \
    "    On every rank, when the ranks' paths or metas differ.\n" \
    "OSError\n" \
    "    On every rank (FileNotFoundError: no such directory; PermissionError;\n" \
    "    IsADirectoryError; a full disk ...), naming the path.\n" \
    BCLPY_EXAMPLES \
    ">>> m.save(\"counts.pybcl\", meta={\"k\": 31})\n" \
    ">>> m2 = pybcl.load(\"counts.pybcl\")\n"
#define BCLPY_ARGS_SAVE { "path", "meta" }

#define BCLPY_DOC_IO_CONFIGURE \
    BCLPY_SIG("_io_configure(describe, /)") \
    "Internal: pybcl/io.py hands down describe(container, meta) -> bytes,\n" \
    "the info block (types, sizes, meta) a save writes into the file.\n"

#define BCLPY_DOC_IO_INFO \
    BCLPY_SIG("_io_info(path, /)") \
    "Internal (pybcl.io.info): a saved file's descriptor as a dict, read in\n" \
    "this process without MPI.\n"

#define BCLPY_DOC_IO_READ \
    BCLPY_SIG("_io_read(path, /)") \
    "Internal (pybcl.io.read): (info, columns) of a saved file, read in this\n" \
    "process without MPI: each column a uint8 array of its rows' bytes, or a\n" \
    "list of its rows' objects.\n"

#define BCLPY_DOC_IO_LOAD \
    BCLPY_SIG("_io_load(path, make, /)") \
    "Internal (pybcl.load), collective: open a saved file, make(info) the\n" \
    "container it describes (collectively), fill it from the file.\n"

#endif /* BCLPY_DOC_IO_H */
