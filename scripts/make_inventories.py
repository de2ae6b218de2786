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

# Where each project documents a name, relative to its base: one rule per
# kind of page, so an entry names only the object and its role.


def _on_page(page, role, *names):
    """Names documented on one page, each at its own anchor."""
    return [(n, role, f"{page}#{n}") for n in names]


def _on_module_page(role, *names):
    """Python names documented on their module's page of the library reference."""
    return [(n, role, f"library/{n.rsplit('.', 1)[0]}.html#{n}") for n in names]


def _own_page(folder, role, *names):
    """Names with a page of their own (NAME.html) in `folder`."""
    return [(n, role, f"{folder}/{n}.html") for n in names]


# project -> (version, [(name, domain:role, uri relative to the project's base)])
INVENTORIES = {
    "python": ("3", [
        *_on_page("library/functions.html", "py:class",
                  "int", "float", "bool", "bytes", "str", "object", "tuple", "list", "dict",
                  "memoryview", "bytearray"),
        *_on_page("library/functions.html", "py:function",
                  "len", "iter", "hash", "repr", "isinstance"),
        *_on_page("library/exceptions.html", "py:exception",
                  "Exception", "MemoryError", "TypeError", "ValueError", "IndexError",
                  "KeyError", "OverflowError", "RuntimeError"),
        *_on_module_page("py:exception", "queue.Empty", "queue.Full"),
        ("queue", "py:module", "library/queue.html#module-queue"),
        *_on_module_page("py:class", "enum.IntFlag", "collections.abc.Iterator",
                         "collections.abc.Callable", "types.TracebackType"),
        *_on_module_page("py:data", "typing.Any", "typing.Optional", "typing.Union"),
    ]),
    "numpy": ("2", [
        *_own_page("reference/generated", "py:class", "numpy.ndarray", "numpy.dtype"),
        *_own_page("reference/generated", "py:function", "numpy.asarray", "numpy.array"),
        *_on_page("reference/arrays.scalars.html", "py:class",
                  "numpy.bool_", "numpy.int64", "numpy.uint64"),
        *_on_page("reference/typing.html", "py:data",
                  "numpy.typing.DTypeLike", "numpy.typing.NDArray", "numpy.typing.ArrayLike"),
    ]),
    "mpi4py": ("4", [
        *_own_page("reference", "py:class", "mpi4py.MPI.Comm", "mpi4py.MPI.Intracomm"),
        *_own_page("reference", "py:data", "mpi4py.MPI.COMM_WORLD"),
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
