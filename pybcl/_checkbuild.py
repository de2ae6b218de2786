"""Load the C extension, or say in one line why it cannot be loaded.

Run from a checkout that was never built, `import pybcl` finds the source
tree's pybcl/ first (the current directory leads sys.path), whose `_core`
does not exist, even when a built pybcl is installed: Python then reports a
confusing "partially initialized module" error.  Like NumPy, pybcl instead
stops at once with one line saying what to do.  Run as a program there
(`python -m pybcl.apps.kmer`), it says that line once, with no traceback.
"""
import importlib
import os
import sys
from typing import Optional

PACKAGE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(PACKAGE)


def is_source_tree(root: str = TREE) -> bool:
    """Is `root` (the folder holding this pybcl/) pybcl's source checkout?"""
    return (os.path.isfile(os.path.join(root, "setup.py"))
            and os.path.isdir(os.path.join(root, "csrc")))


def source_tree_message(root: str = TREE) -> str:
    return (f"pybcl is being imported from its source tree {root}, where the C extension "
            "is not built: run from another folder (to use an installed pybcl), or build "
            "it here first: python setup.py build_ext --inplace")


def program_module() -> Optional[str]:
    """The module of `python -m pybcl[.X]` while Python is still importing
    it (runpy has not yet put its path in sys.argv[0]), else None."""
    argv = getattr(sys, "orig_argv", [])
    if sys.argv[:1] != ["-m"]:
        return None
    for flag, module in zip(argv, argv[1:]):
        if flag == "-m":
            return module if module.split(".")[0] == "pybcl" else None
    return None


def launched_rank() -> int:
    """This process's rank according to the MPI launcher (0 if none): MPI
    itself is not loaded yet."""
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"):
        value = os.environ.get(var, "")
        if value.isdigit():
            return int(value)
    return 0


def load_core() -> None:
    """Import pybcl._core.  In an unbuilt checkout: a one-line ImportError,
    or, when the checkout's own program is being run (`python -m
    pybcl.apps.kmer` from its top folder), that line alone from the first
    rank, as the apps report errors, and exit status 1."""
    try:
        importlib.import_module("pybcl._core")
    except ModuleNotFoundError as e:
        if e.name != "pybcl._core" or not is_source_tree():
            raise
        module = program_module()
        if module is None:
            raise ImportError(source_tree_message()) from None
        if launched_rank() == 0:
            sys.stderr.write(f"python -m {module}: error: {source_tree_message()}\n")
            sys.stderr.flush()
        raise SystemExit(1) from None
