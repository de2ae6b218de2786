"""Load the C extension, or say in one line why it cannot be loaded.

Run from a checkout that was never built, `import pybcl` finds the source
tree's pybcl/ first (the current directory leads sys.path), whose `_core`
does not exist, even when a built pybcl is installed: Python then reports a
confusing "partially initialized module" error.  Like NumPy, pybcl instead
stops at once with one line saying what to do.
"""
import importlib
import os

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


def load_core() -> None:
    """Import pybcl._core; one-line ImportError if this is an unbuilt checkout."""
    try:
        importlib.import_module("pybcl._core")
    except ModuleNotFoundError as e:
        if e.name == "pybcl._core" and is_source_tree():
            raise ImportError(source_tree_message()) from None
        raise
