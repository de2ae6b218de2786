"""The notebooks run from top to bottom (nbclient), within a time bound.

Each notebook launches its app under mpiexec at 1, 2 and 4 ranks, so this
runs in the one-rank pass only.  Needs the `notebooks` extra.
"""
import os
import time

import pytest


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = ["kmer_counting.ipynb", "isx.ipynb", "contigs.ipynb"]
LIMIT = int(os.environ.get("PYBCL_NOTEBOOK_TIMEOUT", "600"))     # seconds per notebook


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_committed_executed(name):
    """A reader of the committed file sees every cell's output and the plots
    (scripts/execute_notebooks.py refreshes them)."""
    import json
    with open(os.path.join(ROOT, "notebooks", name)) as fh:
        nb = json.load(fh)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c.get("execution_count") for c in code)
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 2


@pytest.mark.serial_only
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = os.path.join(ROOT, "notebooks", name)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=LIMIT, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(path)}})
    t = time.monotonic()
    client.execute()          # raises CellExecutionError on any cell error
    assert time.monotonic() - t < LIMIT
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert len(images) >= 2
