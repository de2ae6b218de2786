"""The command lines of the graph apps (bfs, pagerank): runs from a scale and
from an edge file, their outputs, and bad arguments as one error line."""
import json

import numpy as np
import pytest

from graphs import HAND_MADE, dense_pagerank, serial_levels
from launch import run_app, run_app_json


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_bfs_cli_runs_the_benchmark(tmp_path, nprocs):
    stdout, js = run_app_json(tmp_path, ["-m", "pybcl.apps.bfs", "--scale", "7", "--roots", "6"],
                              nprocs, "PASSED")
    assert "bfs  harmonic_mean_TEPS" in stdout
    for key in ("teps_harmonic_mean", "teps_min", "teps_median", "teps_max", "bfs_seconds",
                "construction_s", "validated", "scale", "edgefactor", "ranks"):
        assert key in js, key
    assert js["validated"] and js["ranks"] == nprocs and js["scale"] == 7
    assert js["edgefactor"] == 16 and len(js["bfs_seconds"]) == 6 == js["nbfs"]
    assert js["edges"] == 16 << 7


@pytest.mark.serial_only
def test_bfs_cli_from_an_edge_file_writes_the_parents(tmp_path):
    edges = np.array(HAND_MADE["parts"], dtype=np.uint16)     # any integer dtype
    np.save(tmp_path / "g.npy", edges)
    out = tmp_path / "parents.npy"
    r = run_app(["-m", "pybcl.apps.bfs", "--edges", str(tmp_path / "g.npy"), "--root", "7",
                 "--parents-out", str(out), "--json", str(tmp_path / "b.json")], 2)
    assert r.returncode == 0, r.stdout + r.stderr
    parents = np.load(out)
    levels = serial_levels(edges, 12, 7)
    assert parents.dtype == np.int64 and parents.shape == (12,)
    assert parents[7] == 7 and np.array_equal(parents >= 0, levels >= 0)
    assert all(levels[parents[v]] == levels[v] - 1 for v in (6, 8))
    js = json.loads((tmp_path / "b.json").read_text())
    assert js["roots"] == [7] and js["nedge"] == [3] and js["scale"] is None


@pytest.mark.serial_only
def test_pagerank_cli_from_an_edge_file(tmp_path):
    edges = np.array([[0, 1], [1, 2], [2, 0], [0, 3], [2, 4], [6, 0], [6, 6], [0, 1]])
    np.save(tmp_path / "g.npy", edges)
    out = tmp_path / "r.npy"
    r = run_app(["-m", "pybcl.apps.pagerank", "--edges", str(tmp_path / "g.npy"),
                 "--iterations", "12", "--damping", "0.8", "--out", str(out),
                 "--json", str(tmp_path / "p.json")], 2)
    assert r.returncode == 0, r.stdout + r.stderr
    got = np.load(out)
    assert got.dtype == np.float64 and abs(got.sum() - 1) < 1e-12
    assert np.abs(got - dense_pagerank(edges, 7, 12, 0.8)).sum() <= 1e-12
    js = json.loads((tmp_path / "p.json").read_text())
    assert js["iterations"] == 12 and js["vertices"] == 7 and js["edges"] == 8


@pytest.mark.serial_only
def test_pagerank_cli_from_a_scale(tmp_path):
    r = run_app(["-m", "pybcl.apps.pagerank", "--scale", "8", "--iterations", "3",
                 "--json", str(tmp_path / "p.json")], 2)
    assert r.returncode == 0, r.stdout + r.stderr
    js = json.loads((tmp_path / "p.json").read_text())
    assert js["vertices"] == 256 and js["edges"] == 16 << 8 and abs(js["rank_sum"] - 1) < 1e-12


def _bad_files(tmp_path):
    files = {}
    for name, arr in (("three_columns", np.zeros((4, 3), dtype=np.int64)),
                      ("floats", np.zeros((4, 2))),
                      ("negative", np.array([[0, 1], [2, -3]])),
                      ("empty", np.zeros((0, 2), dtype=np.int64)),
                      ("too_large", np.array([[0, 1 << 41]]))):
        files[name] = tmp_path / f"{name}.npy"
        np.save(files[name], arr)
    files["text"] = tmp_path / "text.npy"
    files["text"].write_text("0 1\n1 2\n")
    return files


@pytest.mark.serial_only
@pytest.mark.parametrize("app", ["bfs", "pagerank"])
def test_bad_arguments_are_one_error_line(tmp_path, app):
    files = _bad_files(tmp_path)
    np.save(tmp_path / "ok.npy", np.array(HAND_MADE["path"]))
    cases = [(["--scale", "0"], 2, "--scale"), (["--scale", "41"], 2, "--scale"),
             (["--scale", "40"], 1, "memory"),
             (["--edges", str(tmp_path / "missing.npy")], 1, "no such file"),
             (["--edges", str(tmp_path / "ok.npy"), "--scale", "5"], 2, "not both")]
    cases += [(["--edges", str(path)], 1, why) for path, why in (
        (files["three_columns"], "(m, 2)"), (files["floats"], "integer"),
        (files["negative"], "vertex -3 in row 1"), (files["empty"], "no edges"),
        (files["too_large"], "outside"), (files["text"], "not a NumPy"))]
    if app == "bfs":
        cases += [(["--edges", str(tmp_path / "ok.npy"), "--root", "12"], 1, "--root 12"),
                  (["--scale", "4", "--root", "16"], 2, "--root"),
                  (["--scale", "4", "--parents-out", str(tmp_path / "p.npy")], 2,
                   "one search")]
    else:
        cases += [(["--scale", "4", "--damping", "1.5"], 2, "--damping")]
    for args, code, word in cases:
        nprocs = 2 if "--edges" in args else 1     # the ranks check their own rows
        r = run_app(["-m", f"pybcl.apps.{app}", *args], nprocs)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == code and len(lines) == 1, (args, r.returncode, r.stderr)
        assert lines[0].startswith(f"python -m pybcl.apps.{app}: error: "), lines
        assert word in lines[0], (word, lines[0])
