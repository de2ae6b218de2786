"""Execute notebooks/*.ipynb in place, so they are committed with their outputs.

    python scripts/execute_notebooks.py [NAME.ipynb ...]

Each notebook launches its app under mpiexec with PYTHONPATH at this tree, so
run it from a tree whose extension is built.  tests/test_notebooks.py
re-executes them (without writing) in CI.
"""
import os
import sys
import time

import nbclient
import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = int(os.environ.get("PYBCL_NOTEBOOK_TIMEOUT", "900"))


def execute(path):
    nb = nbformat.read(path, as_version=4)
    start = time.monotonic()
    nbclient.NotebookClient(nb, timeout=LIMIT, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    nbformat.write(nb, path)
    print(f"{os.path.relpath(path, ROOT)}: executed in {time.monotonic() - start:.0f} s "
          f"(load average {os.getloadavg()[0]:.2f})")


def main(names):
    names = names or sorted(n for n in os.listdir(os.path.join(ROOT, "notebooks"))
                            if n.endswith(".ipynb"))
    for name in names:
        execute(os.path.join(ROOT, "notebooks", os.path.basename(name)))


if __name__ == "__main__":
    main(sys.argv[1:])
