"""Write docs/_inventories/*.inv: the intersphinx inventories the docs build reads.

    python scripts/make_inventories.py

The docs must build offline (no network at build or CI time), so intersphinx
cannot fetch python/numpy/mpi4py's objects.inv.  These files are small
subsets of them, written from the table below: the names pybcl's docs and
docstrings link to, with the page each has in that project's public
documentation (the URLs docs.python.org, numpy.org/doc and mpi4py.readthedocs.io
use for them).  A name missing here is left as plain text, not a broken link;
add it below and re-run to link it.
"""
import os
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# project -> (version, [(name, domain:role, uri relative to the project's base)])
INVENTORIES = {
    "python": ("3", [
        *[(t, "py:class", f"library/functions.html#{t}") for t in
          ("int", "float", "bool", "bytes", "str", "object", "tuple", "list", "dict",
           "memoryview", "bytearray")],
        *[(f, "py:function", f"library/functions.html#{f}") for f in
          ("len", "iter", "hash", "repr", "isinstance")],
        *[(e, "py:exception", f"library/exceptions.html#{e}") for e in
          ("Exception", "MemoryError", "TypeError", "ValueError", "IndexError", "KeyError",
           "OverflowError", "RuntimeError")],
        ("queue.Empty", "py:exception", "library/queue.html#queue.Empty"),
        ("queue.Full", "py:exception", "library/queue.html#queue.Full"),
        ("queue", "py:module", "library/queue.html#module-queue"),
        ("enum.IntFlag", "py:class", "library/enum.html#enum.IntFlag"),
        ("typing.Any", "py:data", "library/typing.html#typing.Any"),
        ("typing.Optional", "py:data", "library/typing.html#typing.Optional"),
        ("typing.Union", "py:data", "library/typing.html#typing.Union"),
        ("collections.abc.Iterator", "py:class",
         "library/collections.abc.html#collections.abc.Iterator"),
        ("collections.abc.Callable", "py:class",
         "library/collections.abc.html#collections.abc.Callable"),
        ("types.TracebackType", "py:class", "library/types.html#types.TracebackType"),
    ]),
    "numpy": ("2", [
        ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html"),
        ("numpy.dtype", "py:class", "reference/generated/numpy.dtype.html"),
        ("numpy.asarray", "py:function", "reference/generated/numpy.asarray.html"),
        ("numpy.array", "py:function", "reference/generated/numpy.array.html"),
        ("numpy.bool_", "py:class", "reference/arrays.scalars.html#numpy.bool_"),
        ("numpy.int64", "py:class", "reference/arrays.scalars.html#numpy.int64"),
        ("numpy.uint64", "py:class", "reference/arrays.scalars.html#numpy.uint64"),
        ("numpy.typing.DTypeLike", "py:data",
         "reference/typing.html#numpy.typing.DTypeLike"),
        ("numpy.typing.NDArray", "py:data", "reference/typing.html#numpy.typing.NDArray"),
        ("numpy.typing.ArrayLike", "py:data",
         "reference/typing.html#numpy.typing.ArrayLike"),
    ]),
    "mpi4py": ("4", [
        ("mpi4py.MPI.Comm", "py:class", "reference/mpi4py.MPI.Comm.html"),
        ("mpi4py.MPI.Intracomm", "py:class", "reference/mpi4py.MPI.Intracomm.html"),
        ("mpi4py.MPI.COMM_WORLD", "py:data", "reference/mpi4py.MPI.COMM_WORLD.html"),
    ]),
}


def write(project, version, entries, path):
    body = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in sorted(entries))
    head = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: {version}\n"
            "# The remainder of this file is compressed using zlib.\n")
    with open(path, "wb") as fh:
        fh.write(head.encode() + zlib.compress(body.encode()))


def main():
    out = os.path.join(ROOT, "docs", "_inventories")
    os.makedirs(out, exist_ok=True)
    for project, (version, entries) in INVENTORIES.items():
        write(project, version, entries, os.path.join(out, f"{project}.inv"))
        print(f"docs/_inventories/{project}.inv: {len(entries)} names")


if __name__ == "__main__":
    main()
