"""The binding's source keeps the shape a newcomer can change: its files call
each other as a tree (no cycle through the functions and types they export),
and the C extension never imports the Python package above it.

Reads csrc/binding as text; the same check on every rank."""
import glob
import os
import re

from conftest import all_ok
from launch import ROOT

BINDING = os.path.join(ROOT, "csrc", "binding")

# A non-static definition of a bclpy_* function, or an exported type spec or table.
DEFINITION = re.compile(
    r"^(?!static\b)[A-Za-z][\w \*]*?\b(bclpy_\w+)\s*\(|"
    r"^(?:PyType_Spec|PyMethodDef)\s+(bclpy_\w+)(?:\[\])?\s*=", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _sources():
    out = {}
    for path in sorted(glob.glob(os.path.join(BINDING, "*.c"))):
        with open(path) as f:
            out[os.path.basename(path)] = COMMENT.sub("", f.read())
    return out


def _call_graph(sources):
    owner = {}
    for name, text in sources.items():
        for m in DEFINITION.finditer(text):
            owner[m.group(1) or m.group(2)] = name
    edges = {name: set() for name in sources}
    for name, text in sources.items():
        for used in set(re.findall(r"\bbclpy_\w+", text)):
            if used in owner and owner[used] != name:
                edges[name].add(owner[used])
    return edges


def _a_cycle(edges):
    """One cycle of the graph as a list of files, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def test_binding_files_call_each_other_as_a_tree():
    edges = _call_graph(_sources())
    assert len(edges) > 10 and any(edges.values())      # the scan saw the files
    cycle = _a_cycle(edges)
    assert cycle is None, "binding files call back into each other: " + " -> ".join(cycle)


def test_the_extension_never_imports_the_pybcl_package():
    imports = [(name, m.group(0)) for name, text in _sources().items()
               for m in re.finditer(r'PyImport_\w+\(\s*"pybcl[^"]*"', text)]
    assert imports == []


def test_promises_are_checked_against_the_classes_the_package_hands_down():
    """_core takes the promise classes from pybcl/__init__.py (_configure), not
    by importing pybcl.conprom itself: a class handed down is the one checked."""
    import enum

    import pybcl
    from pybcl import _core

    class Other(enum.IntFlag):
        insert = 2

    m = pybcl.HashMap(8 * pybcl.nprocs())
    _core._configure(pybcl.init, Other, pybcl.ConProm.CircularQueue)
    try:
        m.insert(pybcl.rank(), 1, promise=Other.insert)
        try:
            m.insert(pybcl.rank(), 2, promise=pybcl.ConProm.HashMap.insert)
            message = ""
        except TypeError as e:
            message = str(e)
    finally:
        _core._configure(pybcl.init, pybcl.ConProm.HashMap, pybcl.ConProm.CircularQueue)
    pybcl.barrier()
    found = m.find(pybcl.rank())
    m.close()
    assert all_ok("promise" in message and found == 1), (message, found)
