"""How many distinct k-mers a count will end with, from its first rounds.

The k-mer app sizes its map once it has read a few per cent of the input,
so the map neither grows while full of k-mers (a resize moves them all) nor
sits half empty (16 bytes a bucket).  Distinct k-mers are not proportional
to the input: a genome's k-mers saturate as coverage grows, while every
sequencing error adds new ones.  The model: an occurrence is an error k-mer
with probability eps (new, seen once), otherwise one of G genome k-mers
drawn uniformly.  After reading T x of the input's T occurrences, with
u = (1 - eps) T x / G the genome coverage so far,

    distinct      D = eps T x + G (1 - e^-u)
    seen once    F1 = eps T x + G u e^-u          (plain counting)
    seen twice+   C = G (1 - e^-u (1 + u))        (--bloom: the map's keys)

Two observations fix eps and G; the same formulas at x = 1 predict the end.
Real reads are not uniform (repeats, coverage bias, errors that coincide):
on simulated E. coli 5x reads (1 % errors) the counts from the first 4-6 %
of the input fitted it either not at all or wrongly (predicting 1.3-1.8x
the end's distinct k-mers), so the app does not ask the model that early;
from 20 % of the input its prediction was 3-4 % high, from 40 % within
1.5 %.  The app refits as it reads.
"""
import math
from typing import Callable, Optional


def _bisect(f: Callable[[float], Optional[float]], lo: float, hi: float,
            grid: int = 64, steps: int = 200) -> Optional[float]:
    """The smallest root of f in [lo, hi] that a grid of `grid` steps finds
    (f None: outside its domain, never a root), or None if f keeps its sign
    there.  The grid first: f can change sign twice, and bisecting the whole
    interval would then stop anywhere, or at an end where f has no root."""
    flo = f(lo)
    if flo is None:
        return None
    for i in range(1, grid + 1):
        x = lo + (hi - lo) * i / grid
        fx = f(x)
        if fx is not None and (fx > 0) != (flo > 0):
            hi = x
            break
        if fx is not None:
            lo, flo = x, fx
    else:
        return None
    for _ in range(steps):
        mid = (lo + hi) / 2
        fm = f(mid)
        if fm is not None and (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return lo


def _at_end(T: float, eps: float, G: float) -> tuple[float, float]:
    """(distinct, seen at least twice) over the whole input."""
    U = (1 - eps) * T / G
    return eps * T + G * (1 - math.exp(-U)), G * (1 - math.exp(-U) * (1 + U))


def _fit(Tx: float, D: float, F1: float) -> Optional[tuple[float, float]]:
    """(eps, G) from D distinct and F1 seen once among Tx occurrences, or
    None when the model does not fit them."""
    def excess(A: float) -> Optional[float]:      # A = eps T x, the errors so far
        e = (F1 - A) / (Tx - A)                    # e^-u
        if not 0 < e < 1:
            return None
        u = -math.log(e)
        return (Tx - A) / u * (1 - e) - (D - A)

    if not 0 < F1 < D < Tx:
        return None
    A = _bisect(excess, 0.0, F1 * (1 - 1e-12))
    if A is None:
        return None
    return A / Tx, (Tx - A) / -math.log((F1 - A) / (Tx - A))


def _straight_line(T: float, Tx: float, D: float) -> float:
    """The distinct k-mers of T occurrences if they kept coming at the rate
    of the first Tx (an upper bound: D grows ever slower), and at most one
    new k-mer an occurrence."""
    return min(D * T / Tx, D + (T - Tx))


def distinct_at(T: float, Tx: float, D: float, F1: float) -> Optional[float]:
    """Plain counting: the distinct k-mers of all T occurrences, from D
    distinct and F1 seen once among the first Tx, or None when the model
    does not fit them (too few k-mers seen twice yet to tell the errors from
    the genome).  Never below D nor above D + (T - Tx)."""
    if Tx >= T:
        return D
    fit = _fit(Tx, D, F1)
    if fit is None:
        return None
    return max(D, min(_straight_line(T, Tx, D), _at_end(T, *fit)[0]))


def distinct_at_end(T: float, Tx: float, D: float, F1: float) -> float:
    """distinct_at, or the straight line where the model does not fit."""
    got = distinct_at(T, Tx, D, F1)
    return _straight_line(T, Tx, D) if got is None else got


def repeated_at_end(T: float, Tx: float, D: float, C: float) -> float:
    """--bloom: the k-mers seen at least twice over all T occurrences, from D
    distinct and C seen at least twice among the first Tx (so D - C seen
    once).  Errors that coincide make more repeated k-mers than the model
    has: its prediction is scaled by what it missed so far."""
    if Tx >= T or C <= 0:
        return C
    fit = _fit(Tx, D, D - C)
    if fit is None:
        return C * T / Tx
    eps, G = fit
    u = (1 - eps) * Tx / G
    now = G * (1 - math.exp(-u) * (1 + u))
    return max(C, _at_end(T, eps, G)[1] * max(1.0, C / now))
