"""The binding's generated files (csrc/binding/generated/, csrc/apps/generated/,
pybcl/_core.pyi, pybcl/apps/_kernels.pyi) are what scripts/clinic.py makes of
the spec (csrc/binding/spec/, csrc/apps/spec/): a spec edited without
regenerating, or a generated file edited by hand, fails here.  Reads and
writes files only; the same check on every rank."""
import os
import shutil

from launch import ROOT, load_script

clinic = load_script("clinic")
HINT = "edit the spec (csrc/*/spec/*.spec), then run: python scripts/clinic.py"


def _out_of_step(root):
    return [f"{rel}: {why}" for rel, why in clinic.stale(root)]


def test_generated_files_match_the_spec():
    bad = _out_of_step(ROOT)
    assert bad == [], "generated files out of step with their spec:\n  " + \
        "\n  ".join(bad) + "\n" + HINT


def test_a_generator_run_writes_the_checked_in_bytes(tmp_path):
    """Running the generator into an empty folder gives every checked-in file."""
    clinic.main(["--out", str(tmp_path)])
    for rel in clinic.generate(ROOT):
        with open(os.path.join(ROOT, rel)) as a, open(tmp_path / rel) as b:
            assert a.read() == b.read(), f"{rel}: {HINT}"


def _copy_tree(tmp_path):
    for ext in clinic.EXTENSIONS:
        for key in ("spec", "out"):
            shutil.copytree(os.path.join(ROOT, ext[key]), tmp_path / ext[key])
        os.makedirs(tmp_path / os.path.dirname(ext["stub"]), exist_ok=True)
        shutil.copy(os.path.join(ROOT, ext["stub"]), tmp_path / ext["stub"])


def test_the_check_catches_a_spec_line_changed_without_regenerating(tmp_path):
    _copy_tree(tmp_path)
    spec = tmp_path / "csrc" / "binding" / "spec" / "bloom.spec"
    text = spec.read_text()
    assert "def insert(self, x: Any) -> bool" in text
    spec.write_text(text.replace("def insert(self, x: Any) -> bool",
                                 "def insert(self, key: Any) -> bool"))
    bad = _out_of_step(tmp_path)
    assert "csrc/binding/generated/bloom.h: differs from its spec" in bad
    assert "pybcl/_core.pyi: differs from its spec" in bad


def test_the_check_catches_a_generated_file_edited_by_hand(tmp_path):
    _copy_tree(tmp_path)
    header = tmp_path / "csrc" / "apps" / "generated" / "kmer.h"
    header.write_text(header.read_text().replace("k-mer", "kmer", 1))
    (tmp_path / "csrc" / "binding" / "generated" / "extra.h").write_text("/* by hand */\n")
    assert _out_of_step(tmp_path) == ["csrc/apps/generated/kmer.h: differs from its spec",
                                      "csrc/binding/generated/extra.h: generated from no spec"]
