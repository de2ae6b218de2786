#!/usr/bin/env bash
# Build the HTML docs site (Sphinx + MyST) from docs/ with warnings as errors.
# The API reference is generated from the docstrings of this tree's pybcl, so
# the extension must be built (scripts/setup_env.sh does it).  Output:
# docs/_build/html/index.html.  Called at the end of scripts/run_tests.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then
    # shellcheck disable=SC1091
    . .venv/bin/activate
fi
python -c "import sphinx, myst_parser" 2>/dev/null || pip install -q "sphinx>=7" "myst-parser>=2"
python scripts/bench_tables.py --check
rm -rf docs/_build/html
python -m sphinx -W --keep-going -q -b html docs docs/_build/html
# every public name and member of the stubs has its entry; no internal words
python scripts/check_docs_html.py docs/_build/html
echo "== docs built: docs/_build/html/index.html"
