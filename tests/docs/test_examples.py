"""Every program in examples/ runs as written, in this pass's ranks and
transport, and computes the right answer (checked here against a
computation of its own, not only the example's self-checks)."""
import os
import runpy
import traceback
from collections import Counter

import numpy as np
import pytest

import pybcl
import pybcl.io
from conftest import all_ok
from launch import ROOT

EXAMPLES = os.path.join(ROOT, "examples")
PROGRAMS = ["word_count", "histogram", "producer_consumer", "dedup", "save_load"]


def _path(name):
    return os.path.join(EXAMPLES, name + ".py")


def _run(fn, *args):
    """fn(*args) on every rank; (result, error) with the error agreed."""
    result, error = None, None
    try:
        result = fn(*args)
    except Exception:
        error = traceback.format_exc()
    assert all_ok(error is None), error
    return result


def _module(name):
    return runpy.run_path(_path(name), run_name=f"example_{name}")


@pytest.mark.parametrize("name", PROGRAMS)
def test_example_runs_as_a_program(name, capsys):
    """`python examples/NAME.py`: rank 0 prints one 'NAME ok' line."""
    _run(runpy.run_path, _path(name), None, "__main__")
    out = capsys.readouterr().out
    if pybcl.rank() == 0:
        assert f"{name} ok on {pybcl.nprocs()} rank(s)" in out, out


def test_every_example_says_how_to_run_it():
    for name in PROGRAMS + ["tutorial"]:
        doc = open(_path(name)).read()
        assert f"mpiexec -n 4 python examples/{name}.py" in doc, name
    listed = sorted(f[:-3] for f in os.listdir(EXAMPLES) if f.endswith(".py"))
    assert listed == sorted(PROGRAMS + ["tutorial"]), listed


def test_word_count_counts_every_word():
    ex = _module("word_count")
    text = ex["TEXT"] + "\n".join(f"w{i % 7} w{i % 3} extra" for i in range(40))
    counts = _run(ex["main"], text)
    assert counts == dict(Counter(text.split()))


def test_histogram_matches_numpy():
    ex = _module("histogram")
    n, P = 5000, pybcl.nprocs()
    hist = _run(ex["main"], n)
    want = sum(np.histogram(ex["samples"](r, n), bins=ex["NBINS"], range=(-4, 4))[0]
               for r in range(P))
    assert hist.tolist() == want.tolist()


def test_producer_consumer_loses_and_repeats_nothing():
    ex = _module("producer_consumer")
    items = _run(ex["main"], 500)
    assert items.tolist() == list(range(500 * pybcl.nprocs()))


def test_dedup_finds_about_every_distinct_id_once():
    ex = _module("dedup")
    n, distinct, P = 4000, 3000, pybcl.nprocs()
    got = _run(ex["main"], n, distinct)
    truly = len(np.unique(np.concatenate([ex["stream"](r, n, distinct) for r in range(P)])))
    assert got["ids"] == n * P
    # false positives only lower the count of new ids, by about fpr (1 %) at most twice
    assert 0.95 * truly <= got["new"] <= truly, (got, truly)


def test_save_load_round_trip(tmp_path):
    ex = _module("save_load")
    folder = pybcl.broadcast(str(tmp_path) if pybcl.rank() == 0 else None, root=0)
    got = _run(ex["main"], folder)
    P = pybcl.nprocs()
    assert got == {"entries": 100 * P, "array": 100 * P}
    if pybcl.rank() == 0:
        keys, values = pybcl.io.read(os.path.join(folder, "squares.pybcl"))
        assert sorted(keys.tolist()) == list(range(100 * P)) and (values == keys * keys).all()
        assert (pybcl.io.read(os.path.join(folder, "cubes.pybcl"))
                == np.arange(100 * P) ** 3).all()
    pybcl.barrier()


def test_readme_example_runs(tmp_path, capsys):
    """The README's 20-line example, as printed there."""
    readme = open(os.path.join(ROOT, "README.md")).read()
    section = readme[readme.index("## A 20-line example"):]
    start = section.index("```python\n") + 10
    code = section[start:section.index("```\n", start)]
    assert 15 <= len(code.splitlines()) <= 22, code
    script = tmp_path / "wordfreq.py"
    script.write_text(code)
    _run(runpy.run_path, str(script), None, "__main__")
    P = pybcl.nprocs()
    if pybcl.rank() == 0:
        total = sum(k * k for k in range(100 * P))
        assert f"the x2000, mat x1000, sum of squares {total}" in capsys.readouterr().out
