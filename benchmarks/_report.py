"""How every benchmark driver reports: one JSON object on stdout and, with
--out, the same text in a file (benchmarks/results/ keeps the latest)."""
import json


def emit(result, out=None):
    """Print `result` as indented JSON; also write it to `out` when given."""
    text = json.dumps(result, indent=1)
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text + "\n")
    return text
