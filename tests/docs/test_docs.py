"""The docs site's sources are in step with the tree: every note is in the
site, and the benchmark tables match the results files.  (The site itself is
built with warnings as errors by scripts/build_docs.sh, in CI.)"""
import json
import os
import re
import subprocess
import sys

from launch import ROOT, load_script
DOCS = os.path.join(ROOT, "docs")


def test_every_note_is_in_the_site():
    index = open(os.path.join(DOCS, "index.md")).read()
    listed = set(re.findall(r"^([a-z_]+)$", index, re.M))
    notes = {f[:-3] for f in os.listdir(DOCS) if f.endswith(".md") and f != "index.md"}
    assert notes <= listed | {n for n in notes if f"{{doc}}`{n}`" in index}, notes - listed


def test_benchmark_tables_match_the_results():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench_tables.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_benchmark_summary_has_a_row_per_results_file():
    """The summary at the top of docs/benchmarks.md: one row per results
    file, linking it, each figure read from that file."""
    tables = load_script("bench_tables")
    files = tables.results_files()
    text = tables.summary(files)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "](../" in line]
    assert len(rows) == len(files)
    for path, row in zip(files, rows):
        assert f"(../{os.path.relpath(path, ROOT)})" in row, row
    bloom = json.load(open(os.path.join(ROOT, "benchmarks", "results", "bench_bloom.json")))
    assert tables.pick(bloom, "floor.rma_us_per_op.fetch_or_flush_remote") == \
        bloom["floor"]["rma_us_per_op"]["fetch_or_flush_remote"]
    runs = [{"ranks": 1, "x": 1}, {"ranks": 2, "x": 2}]
    assert tables.pick({"runs": runs}, "runs[ranks=2].x") == 2
    assert tables.pick({"runs": runs}, "runs[0].x") == 1


def test_one_results_file_per_benchmark():
    """No experiment logs beside the results: one script and one results file
    per benchmark (no run_X_variant.sh next to run_X.sh, no X_variant.jsonl)."""
    floor = os.path.join(ROOT, "benchmarks", "floor")
    runs = {f[4:].rsplit(".", 1)[0] for f in os.listdir(floor) if f.startswith("run_")}
    programs = {f[:-2] for f in os.listdir(floor) if f.endswith(".c")}
    variants = [a for a in runs for b in runs if a != b and a.startswith(b + "_")]
    assert not variants, variants
    stems = [f.split(".", 1)[0] for f in os.listdir(os.path.join(floor, "results"))]
    assert len(stems) == len(set(stems)) and set(stems) <= runs | programs, stems
