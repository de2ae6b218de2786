"""What the PageRank baselines (pagerank_scipy.py, pagerank_alltoallv.py)
share with each other: the command line of ``python -m pybcl.apps.pagerank``
from a scale, and how a run's rank vector and figures are written."""
import argparse
import json
from typing import Any

import numpy as np


def parser(doc: str) -> argparse.ArgumentParser:
    """--scale, --edgefactor, --seed, --iterations, --damping, --out, --json."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edgefactor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--damping", type=float, default=0.85)
    ap.add_argument("--out", metavar="FILE.npy")
    ap.add_argument("--json", metavar="FILE")
    return ap


def finish(a: argparse.Namespace, res: dict[str, Any], setup: float, seconds: float,
           vector: "np.ndarray[Any, Any]") -> None:
    """Add the timings and the rank sum to `res`, write the vector (--out)
    and the figures (--json), and print the figures as one JSON line."""
    res.update({"setup_s": setup, "iterations_s": seconds,
                "seconds_per_iteration": seconds / a.iterations if a.iterations else 0.0,
                "rank_sum": float(vector.sum())})
    if a.out:
        np.save(a.out, vector)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    print(json.dumps(res))
