"""Breadth-first search over the distributed graph (Graph500's kernel 2).

Level-synchronous and direction-optimizing (Beamer, Asanovic and Patterson,
SC 2012), on pybcl containers:

- ``claim``: a ``DArray`` of int64 holding, for each vertex, ``level << 40 |
  parent`` once it is reached (int64 max before).  Top-down steps ship
  candidate claims ``(neighbour, (level + 1) << 40 | vertex)`` to the
  neighbour's owner through a ``DArrayBuffer(claim, op="min")``: the owner
  applies them locally at ``flush()``, and ``min`` keeps one claim of the
  earliest level -- a vertex reached at an earlier level is never
  overwritten, and of several parents on the same level one wins.
- ``frontier``: a ``DArray`` of uint8, 1 for the vertices of the current
  level; each rank writes its block and every rank reads the whole array
  (``np.asarray``: the Graph500 codes' bitmap allgather) once per level.
- Bottom-up steps: each rank looks, for each of its unreached vertices, for
  a neighbour in the frontier -- all in its own rows and its own block of
  ``claim``, so no message at all.

Switching (Beamer's rule, alpha = 14, beta = 24): top-down while the
frontier's edges are fewer than the unexplored edges / alpha; bottom-up
while the frontier is larger than n / beta or still growing.

All local work is NumPy on whole arrays: the frontier's rows are expanded
at once, and a bottom-up step checks every unreached vertex's first
neighbour, then its second, ... (a few passes), then the rest of the rows of
those still unreached in one pass.  The next frontier is found among the
rank's vertices still unreached (a shrinking list), not by scanning its
whole block.
"""
import time
import numpy as np
from numpy.typing import NDArray

import pybcl
from pybcl.apps._graph import Csr, expand_ranges

LEVEL_SHIFT = 40
PARENT_MASK = (1 << LEVEL_SHIFT) - 1
UNREACHED = np.iinfo(np.int64).max
ALPHA, BETA = 14, 24
SINGLE_PASSES = 32           # neighbour-at-a-time passes before a bottom-up step scans whole rows
FEW = 256                    # ... or once fewer vertices than this are left
MESSAGE_SIZE = 1 << 12       # claims per DArrayBuffer message


class Searcher:
    """Collective constructor: the containers of the searches of one graph.
    ``search(root)`` runs one BFS; afterwards ``parents`` (a DArray of n
    int64: the root's parent is itself, an unreached vertex's -1) holds its
    tree, and ``levels()`` gathers every vertex's level."""

    def __init__(self, g: Csr, direction: str = "auto"):
        if direction not in ("auto", "top-down"):
            raise ValueError(f"direction must be 'auto' or 'top-down', got {direction!r}")
        self.g = g
        self.direction = direction
        self.claim = pybcl.DArray(g.n, "int64")
        self.parents = pybcl.DArray(g.n, "int64")
        self.frontier = pybcl.DArray(g.n, "uint8")
        self.claims = pybcl.DArrayBuffer(self.claim, MESSAGE_SIZE, op="min")
        if self.claim.local_range() != (g.lo, g.hi):
            raise RuntimeError("the graph's rows and the DArray blocks disagree")
        self.degree = g.degree
        self.has_edges = np.flatnonzero(self.degree > 0)
        self.total_degree = int(self.degree.sum())
        self.levels_used = 0
        self.bottom_up_levels = 0

    def close(self) -> None:
        """Collective: free the containers."""
        self.claims.close()
        for a in (self.claim, self.parents, self.frontier):
            a.close()

    # ---- one search ----------------------------------------------------------

    def search(self, root: int) -> float:
        """Collective: a BFS from `root`; returns its time in seconds (the
        slowest rank's), from the first visit to the parents written."""
        g = self.g
        claim = self.claim.local()
        claim[:] = UNREACHED                     # untimed, as the reference's clean_pred
        pybcl.barrier()
        t0 = time.perf_counter()
        visited = np.zeros(g.n, dtype=bool)     # replicated: reached vertices, as known
        if g.lo <= root < g.hi:
            claim[root - g.lo] = root
            frontier = np.array([root - g.lo], dtype=np.int64)
        else:
            frontier = np.empty(0, dtype=np.int64)
        unexplored = self.total_degree - int(self.degree[frontier].sum())
        # this rank's vertices that have edges and no level yet: only they
        # can be reached, so only they are looked at for the next frontier
        unreached = self.has_edges[self.has_edges != root - g.lo]
        level, bottom_up, last_size, bottom_ups = 0, False, 0, 0
        while True:
            flags = self.frontier.local()
            flags[:] = 0
            flags[frontier] = 1
            sizes = pybcl.allreduce(np.array([len(frontier), int(self.degree[frontier].sum()),
                                              unexplored], dtype=np.int64), op="sum")
            size, edges, left = (int(x) for x in sizes)
            if size == 0:
                break
            in_frontier = np.asarray(self.frontier).view(bool)
            visited |= in_frontier
            if self.direction == "auto":
                if not bottom_up and edges > left / ALPHA:
                    bottom_up = True
                elif bottom_up and size < g.n / BETA and size < last_size:
                    bottom_up = False
            last_size = size
            if bottom_up:
                self._bottom_up(unreached, in_frontier, level + 1, claim)
                bottom_ups += 1
            else:
                self._top_down(frontier, visited, level + 1)
            level += 1
            reached = claim[unreached] != UNREACHED
            frontier = unreached[reached]
            unreached = unreached[~reached]
            unexplored -= int(self.degree[frontier].sum())
        parents = self.parents.local()
        np.bitwise_and(claim, PARENT_MASK, out=parents)
        parents[claim == UNREACHED] = -1
        pybcl.barrier()
        seconds = time.perf_counter() - t0
        self.levels_used, self.bottom_up_levels = level, bottom_ups
        return float(pybcl.allreduce(seconds, op="max"))

    def levels(self) -> NDArray[np.int64]:
        """Collective, after a search: every vertex's level (-1: unreached),
        on every rank.  The claims are rewritten in place (they are reset
        before the next search anyway)."""
        claim = self.claim.local()
        claim[:] = np.where(claim == UNREACHED, -1, claim >> LEVEL_SHIFT)
        return np.asarray(self.claim)

    # ---- the two kinds of step -----------------------------------------------

    def _top_down(self, frontier: NDArray[np.int64], visited: NDArray[np.bool_],
                  level: int) -> None:
        """Collective: claim every unvisited neighbour of this rank's frontier
        for `level`, through the owners."""
        g = self.g
        starts = g.rowptr[frontier]
        lengths = g.rowptr[frontier + 1] - starts
        spots = expand_ranges(starts, lengths)
        targets = g.col[spots]
        fresh = ~visited[targets]
        parents = np.repeat(frontier + g.lo, lengths)[fresh]
        self.claims.update_many(targets[fresh], parents | (level << LEVEL_SHIFT))
        self.claims.flush()

    def _bottom_up(self, unreached: NDArray[np.int64], in_frontier: NDArray[np.bool_],
                   level: int, claim: NDArray[np.int64]) -> None:
        """Local: claim each unreached vertex of this rank that has a
        neighbour in the frontier, with the first such neighbour."""
        g = self.g
        tag = np.int64(level) << LEVEL_SHIFT
        todo = unreached
        at = g.rowptr[todo]
        end = g.rowptr[todo + 1]
        for _ in range(SINGLE_PASSES):
            if len(todo) < FEW:
                break
            nb = g.col[at]
            hit = in_frontier[nb]
            claim[todo[hit]] = nb[hit] | tag
            at += 1
            more = ~hit & (at < end)
            todo, at, end = todo[more], at[more], end[more]
        if not len(todo):
            return
        lengths = end - at
        spots = expand_ranges(at, lengths)
        hit = in_frontier[g.col[spots]]
        where = np.flatnonzero(hit)
        if not len(where):
            return
        owner = np.repeat(np.arange(len(todo)), lengths)[where]
        first = np.ones(len(where), dtype=bool)
        first[1:] = owner[1:] != owner[:-1]
        claim[todo[owner[first]]] = g.col[spots[where[first]]] | tag
