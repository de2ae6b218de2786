"""The Graph500 statistics block: order statistics, mean and standard
deviation of the search times and edge counts, and of TEPS the harmonic mean
with its standard deviation (Norris 1940), computed as the reference code
(graph500 src/main.c, get_statistics) computes them: TEPS statistics come
from the seconds per edge, quartiles average the two middle elements."""
import math
from typing import Sequence

import numpy as np

STATS = ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")


def statistics(x: Sequence[float]) -> dict[str, float]:
    """The reference's get_statistics: min, quartiles, max, mean, stddev (n - 1)."""
    a = np.sort(np.asarray(x, dtype=np.float64))
    n = len(a)
    if n == 0:
        return {k: math.nan for k in STATS}
    mean = float(a.mean())
    if not math.isfinite(mean):          # a search that met no edge: infinite s/edge
        std = math.nan
    else:
        std = float(math.sqrt(((a - mean) ** 2).sum() / (n - 1))) if n > 1 else 0.0
    return {"min": float(a[0]),
            "firstquartile": float((a[(n - 1) // 4] + a[n // 4]) / 2),
            "median": float((a[(n - 1) // 2] + a[n // 2]) / 2),
            "thirdquartile": float((a[n - 1 - (n - 1) // 4] + a[n - 1 - n // 4]) / 2),
            "max": float(a[-1]), "mean": mean, "stddev": std}


def teps_statistics(seconds: Sequence[float], nedges: Sequence[float]) -> dict[str, float]:
    """TEPS figures of searches taking seconds[i] over nedges[i] edges: the
    reciprocals of the seconds-per-edge statistics (so the mean is the
    harmonic mean of TEPS).  A search that met no edge counts as 0 TEPS (its
    seconds per edge are infinite), which makes the harmonic mean 0."""
    per_edge = [s / e if e > 0 else math.inf for s, e in zip(seconds, nedges)]
    st = statistics(per_edge)

    def inv(x: float) -> float:
        return 1.0 / x if x > 0 else math.inf

    n = len(per_edge)
    finite = all(math.isfinite(x) for x in per_edge)
    hstd = (st["stddev"] / (st["mean"] ** 2 * math.sqrt(n - 1))
            if n > 1 and finite and st["mean"] > 0 else 0.0)
    return {"teps_min": inv(st["max"]), "teps_firstquartile": inv(st["thirdquartile"]),
            "teps_median": inv(st["median"]), "teps_thirdquartile": inv(st["firstquartile"]),
            "teps_max": inv(st["min"]), "teps_harmonic_mean": inv(st["mean"]),
            "teps_harmonic_stddev": hstd}
