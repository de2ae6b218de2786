"""The notebooks run from top to bottom (nbclient), within a time bound, and
their committed outputs are what the code makes now (same structure).

Each notebook launches its app under mpiexec at 1, 2 and 4 ranks, starts 4
ipyparallel MPI engines (with the suite's mpiexec; every process it started
is stopped after, scripts/engine_cluster.py), or both, so this runs in the
one-rank pass only.  Needs the `notebooks` extra.
"""
import os
import time

import pytest


from launch import ROOT, load_script
NOTEBOOKS = ["kmer_counting.ipynb", "isx.ipynb", "contigs.ipynb", "interactive.ipynb", "graphs.ipynb"]
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


def _script():
    """scripts/execute_notebooks.py, which knows how to run and compare them."""
    return load_script("execute_notebooks")


def test_structure_sees_stale_outputs():
    """The comparison the re-execution relies on: numbers and the temporary
    folder may change between runs, words, output kinds and figures may not."""
    script = _script()

    def nb(text, figures=0):
        outs = [{"output_type": "stream", "name": "stdout", "text": text}]
        outs += [{"output_type": "display_data", "data": {"image/png": ""}}] * figures
        return {"cells": [{"cell_type": "code", "outputs": outs}]}

    same = script.structure(nb("/tmp/pybcl_nb_ab12/x.fq 2140406 bytes\n 1.5 s", 1))
    assert same == script.structure(nb("/tmp/pybcl_nb_zz9/x.fq 998 bytes\n 12.25 s", 1))
    for stale in (nb("/tmp/pybcl_nb_ab12/x.fq 2140406 bytes\n 1.5 s", 2),
                  nb("/tmp/pybcl_nb_ab12/x.fq 2140406 bytes\n scan 1.5 s", 1)):
        assert script.differences(same, script.structure(stale))


def test_structure_is_blind_to_how_printing_arrived():
    """One print() may reach the notebook as two stream messages, even mid-line
    (timing decides): the same words printed the same structure either way."""
    script = _script()

    def nb(*pieces):
        outs = [{"output_type": "stream", "name": "stdout", "text": p} for p in pieces]
        return {"cells": [{"cell_type": "code", "outputs": outs}]}

    whole = script.structure(nb("identical unitig sets at [1 2 4] ranks: 3 unitigs\n"))
    split = script.structure(nb("identical unitig sets at", " [1 2 4] ranks: 3 unitigs\n"))
    assert not script.differences(whole, split)
    assert script.differences(whole, script.structure(nb("other words\n")))


@pytest.mark.serial_only
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_and_matches_its_committed_outputs(name):
    """Re-executed, the notebook runs without error within the time bound and
    its outputs have the committed ones' structure (the same cells print the
    same words, the same figures): outputs older than the code fail here."""
    pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    import nbformat
    script = _script()
    path = os.path.join(ROOT, "notebooks", name)
    committed = nbformat.read(path, as_version=4)
    t = time.monotonic()
    nb, _ = script.run(path)          # raises CellExecutionError on any cell error
    assert time.monotonic() - t < LIMIT
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    why = script.differences(script.structure(committed), script.structure(nb))
    assert not why, "committed outputs are stale (python scripts/execute_notebooks.py " \
        "refreshes them):\n" + "\n".join(why)
