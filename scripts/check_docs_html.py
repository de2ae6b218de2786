"""Check the built docs site against the public API.

    python scripts/check_docs_html.py [HTML_DIR]      (default docs/_build/html)

Every public name of pybcl whose signature pybcl/_core.pyi gives (a name in
pybcl.__all__), and every public member of those classes (the stub class and
its stub base classes, plus the protocols users call: len(), iter(), `in`,
indexing, np.asarray()), must have an entry (an element with the id
`pybcl.Name` / `pybcl.Name.member`) in the API reference page.  Also fails
when any page of the site carries words of the project's own history
(issue numbers, branch names).  Exit status 1 with the list of what is missing.
"""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOCOLS = {"__len__", "__iter__", "__array__", "__contains__", "__getitem__",
             "__setitem__", "__delitem__"}
# Words of the project's own history.  "issue N" of another project, named
# just before it ("open-mpi/ompi issue 7027", "UCX's open issue 8738", with
# either apostrophe), is a citation and stays.
INTERNAL_WORDS = re.compile(
    r"(?<!ompi )(?<!UCX's open )(?<!UCX’s open )\bissue\s*#?\d+|\bthe issue'?s\b|\bissue notes?\b"
    r"|\bbranch (?:hmperf|rmascale|main)\b|\b(?:this|the) branch\b|\bsessions?\b",
    re.IGNORECASE)


def _public_all():
    with open(os.path.join(ROOT, "pybcl", "__init__.py")) as fh:
        tree = ast.parse(fh.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            return {elt.value for elt in node.value.elts}
    raise RuntimeError("pybcl/__init__.py has no __all__")


def expected_ids():
    """Sorted ids the reference must have: pybcl.X and pybcl.X.member."""
    public = _public_all()
    with open(os.path.join(ROOT, "pybcl", "_core.pyi")) as fh:
        tree = ast.parse(fh.read())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    ids = set()

    def members(cls):
        names = set()
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                names |= members(classes[base.id])
        for n in cls.body:
            if isinstance(n, (ast.FunctionDef, ast.AnnAssign)):
                name = n.name if isinstance(n, ast.FunctionDef) else n.target.id
                if not name.startswith("_") or name in PROTOCOLS:
                    names.add(name)
        return names

    for node in tree.body:
        name = getattr(node, "name", None)
        if name not in public:
            continue
        ids.add(f"pybcl.{name}")
        if isinstance(node, ast.ClassDef):
            ids |= {f"pybcl.{name}.{m}" for m in members(node)}
    return sorted(ids)


def missing(html_dir):
    """(ids absent from reference.html, pages with internal words)."""
    with open(os.path.join(html_dir, "reference.html"), encoding="utf-8") as fh:
        page = fh.read()
    have = set(re.findall(r'id="(pybcl\.[\w.]+)"', page))
    absent = [i for i in expected_ids() if i not in have]
    internal = []
    for dirpath, _, files in os.walk(html_dir):
        if "_sources" in dirpath or "_modules" in dirpath:
            continue
        for f in files:
            if f.endswith(".html"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    text = re.sub(r"<[^>]+>", " ", fh.read())
                for m in INTERNAL_WORDS.finditer(text):
                    internal.append(f"{f}: {m.group(0)!r}")
    return absent, internal


def main(argv):
    html_dir = argv[0] if argv else os.path.join(ROOT, "docs", "_build", "html")
    absent, internal = missing(html_dir)
    for i in absent:
        print(f"not in the API reference: {i}")
    for w in internal:
        print(f"internal words in the site: {w}")
    if not absent and not internal:
        print(f"docs: all {len(expected_ids())} public names and members are in the reference")
    return 1 if absent or internal else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
