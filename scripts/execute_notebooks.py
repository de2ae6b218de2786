"""Execute notebooks/*.ipynb in place, so they are committed with their outputs.

    python scripts/execute_notebooks.py [--check] [NAME.ipynb ...]

Each notebook launches its app under mpiexec, or starts ipyparallel MPI
engines (interactive, kmer_counting, isx; scripts/engine_cluster.py), with
PYTHONPATH at this tree, so run it from a tree whose extension is built.  --check executes without
writing and fails (exit 1) when the fresh outputs' structure differs from the
committed ones (see `structure`): what tests/docs/test_notebooks.py does in CI, so
outputs that predate the code they show fail.
"""
import copy
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = int(os.environ.get("PYBCL_NOTEBOOK_TIMEOUT", "900"))

# Measured values change from run to run; the words around them must not.
_NUMBER = re.compile(r"[-+]?\d[\d,.]*(?:e[-+]?\d+)?")
_TMPDIR = re.compile(r"\S*pybcl_nb_\S*?(?=/|\s|$)")


def _skeleton(text):
    """Text output with numbers as '#', the temporary folder as 'TMP' and
    runs of blanks as one space, line by line."""
    lines = []
    for line in text.splitlines():
        line = _NUMBER.sub("#", _TMPDIR.sub("TMP", line))
        lines.append(" ".join(line.split()))
    return lines


def _streams_joined(outputs):
    """The outputs with each run of consecutive stream outputs of one name
    (stdout, stderr) joined into one: the kernel sends a cell's printing in
    as many messages as its writes happen to reach it, so one print() may
    arrive in two pieces, even mid-line, depending on timing."""
    joined = []
    for o in outputs:
        if (o["output_type"] == "stream" and joined and joined[-1]["output_type"] == "stream"
                and joined[-1]["name"] == o["name"]):
            joined[-1] = dict(joined[-1], text=_text(joined[-1]) + _text(o))
        else:
            joined.append(o)
    return joined


def _text(output):
    t = output["text"]
    return "".join(t) if isinstance(t, list) else t


def structure(nb):
    """Per code cell: (cell number, output types, number of figures, skeleton
    of the text it printed).  Two runs of an unchanged notebook agree on it;
    a notebook whose code changed since its outputs were made does not (a
    cell that now prints other words, makes another number of figures, or
    produces output where it did not)."""
    out = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        outputs = _streams_joined(cell.get("outputs", []))
        kinds = tuple(o["output_type"] for o in outputs)
        figures = sum("image/png" in o.get("data", {}) for o in outputs)
        text = []
        for o in outputs:
            if o["output_type"] == "stream":
                text += _skeleton(_text(o))
        out.append((i, kinds, figures, tuple(text)))
    return out


def differences(committed, fresh):
    """Human-readable lines saying where two structures differ ([] if none)."""
    why = []
    if len(committed) != len(fresh):
        why.append(f"{len(committed)} code cells committed, {len(fresh)} now")
    for a, b in zip(committed, fresh):
        for what, x, y in (("output types", a[1], b[1]), ("figures", a[2], b[2]),
                           ("printed text", a[3], b[3])):
            if x != y:
                why.append(f"cell {a[0]}: {what} committed {x!r}, now {y!r}")
    return why


def run(path):
    """The notebook at `path` executed afresh (not written); seconds taken.

    Its kernel runs in engine_cluster's environment: a notebook that starts
    ipyparallel MPI engines gets them from the suite's
    mpiexec, importing this tree, and whatever it started is stopped after,
    even when a cell fails or the time bound ends it."""
    import nbclient
    import nbformat
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import engine_cluster
    nb = nbformat.read(path, as_version=4)
    start = time.monotonic()
    with engine_cluster.ipython_dir() as env:
        nbclient.NotebookClient(nb, timeout=LIMIT, kernel_name="python3",
                                resources={"metadata": {"path": os.path.dirname(path)}}
                                ).execute(env=env)
    return nb, time.monotonic() - start


def execute(path, check=False):
    import nbformat
    committed = copy.deepcopy(nbformat.read(path, as_version=4))
    nb, seconds = run(path)
    why = differences(structure(committed), structure(nb))
    name = os.path.relpath(path, ROOT)
    print(f"{name}: executed in {seconds:.0f} s (load average {os.getloadavg()[0]:.2f})")
    for w in why:
        print(f"  {'stale' if check else 'changed'}: {w}")
    if not check:
        nbformat.write(nb, path)
    return not (check and why)


def main(argv):
    check = "--check" in argv
    names = [a for a in argv if a != "--check"]
    names = names or sorted(n for n in os.listdir(os.path.join(ROOT, "notebooks"))
                            if n.endswith(".ipynb"))
    ok = True
    for name in names:
        ok &= execute(os.path.join(ROOT, "notebooks", os.path.basename(name)), check)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
