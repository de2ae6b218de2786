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
on simulated E. coli reads (1 % errors) the prediction from 5 % of the
input was 2-11 % high and from 20 % of it 2-3 % high; a high guess costs a
little memory, a low one a growth of the map, so the app refits as it reads.
"""
import math
from typing import Callable, Optional


def _bisect(f: Callable[[float], Optional[float]], lo: float, hi: float,
            steps: int = 200) -> Optional[float]:
    """A root of f in [lo, hi] (f None: outside its domain, taken as the hi
    side), or None if f does not change sign there."""
    flo = f(lo)
    if flo is None:
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


def distinct_at_end(T: float, Tx: float, D: float, F1: float) -> float:
    """Plain counting: the distinct k-mers of all T occurrences, from D
    distinct and F1 seen once among the first Tx.  Never below D nor above
    D + (T - Tx); the straight line D T / Tx (an upper bound: D grows ever
    slower) when the model does not fit."""
    if Tx >= T:
        return D
    top = min(D * T / Tx, D + (T - Tx))
    fit = _fit(Tx, D, F1)
    return top if fit is None else max(D, min(top, _at_end(T, *fit)[0]))


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
