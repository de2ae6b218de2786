"""Validation of a BFS tree, the Graph500 specification's five checks, and the
edge count its TEPS figure divides by.

Input: the parent array of the whole graph (every rank holds a copy,
gathered from the search's DArray), optionally the levels the search
reported, the root, and this rank's share of the input edge list -- the
edges as generated or read, self-loops and duplicates included, not the
graph kernel 1 built from them, so a construction error shows.  The checks:

1. the parents form a tree rooted at the root: every parent is -1 or a
   vertex, the root is its own parent, a reached vertex's parent is
   reached, and following parents from any reached vertex gets to the root
   (no cycle: pointer jumping, ceil(log2 n) + 1 doublings);
2. each tree edge joins vertices whose levels differ by exactly one, the
   root at level 0 (the levels the search reported; without them, the tree
   depths, for which this holds by construction);
3. every input edge joins vertices whose levels differ by at most one, or
   two vertices that are both unreached;
4. the tree spans the root's whole connected component: no input edge has
   exactly one end reached;
5. every reached vertex but the root is joined to its parent by an input
   edge.

Checks 1 and 2 look at the whole arrays (every rank alike), 3 to 5 at each
rank's edges, agreed with allreduce.  Each failed check reports one
example.  The edge count ("nedge") is the number of input edges with both
ends reached -- self-loops and duplicates included, as the specification's
driver counts them (half the reached vertices' total degree).
"""
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
from numpy.typing import NDArray

import pybcl


@dataclass
class Verdict:
    """The outcome of validating one tree, the same on every rank."""
    nedge: int
    failed: dict[int, str] = field(default_factory=dict)   # check number -> example

    @property
    def ok(self) -> bool:
        return not self.failed


def tree_depths(parents: NDArray[np.int64], root: int) -> tuple[NDArray[np.int64], Optional[str]]:
    """Depth of every vertex in the parent tree (-1: unreached), by pointer
    jumping; and why the parents are not a tree rooted at `root`, if so."""
    n = len(parents)
    if not 0 <= root < n:
        return np.full(n, -1, dtype=np.int64), f"root {root} is not a vertex"
    bad = np.flatnonzero((parents < -1) | (parents >= n))
    if len(bad):
        v = int(bad[0])
        return np.full(n, -1, dtype=np.int64), f"vertex {v} has parent {int(parents[v])}, " \
                                                f"not a vertex"
    if parents[root] != root:
        return np.full(n, -1, dtype=np.int64), f"the root {root} has parent " \
                                                f"{int(parents[root])}, not itself"
    reached = parents >= 0
    orphan = np.flatnonzero(reached & ~reached[np.where(reached, parents, root)])
    if len(orphan):
        v = int(orphan[0])
        return np.full(n, -1, dtype=np.int64), f"vertex {v}'s parent {int(parents[v])} " \
                                                f"is unreached"
    anc = np.where(reached, parents, root)
    depth = (reached & (np.arange(n) != root)).astype(np.int64)
    for _ in range(max(1, int(n).bit_length()) + 1):
        moving = np.flatnonzero(anc != root)
        if not len(moving):
            break
        up = anc[moving]
        depth[moving] += depth[up]
        anc[moving] = anc[up]
    stuck = np.flatnonzero(anc != root)
    if len(stuck):
        return np.full(n, -1, dtype=np.int64), f"vertex {int(stuck[0])} is on a cycle " \
                                                f"or leads to one, not to the root"
    depth[~reached] = -1
    return depth, None


class EdgeShare:
    """This rank's input edges, laid out for the checks: each column
    contiguous, as int32 when the vertex numbers fit (half the memory
    traffic of the per-edge lookups)."""

    def __init__(self, edges: NDArray[np.int64]):
        small = not edges.size or int(edges.max()) < (1 << 31)
        kind = np.int32 if small else np.int64
        self.u: NDArray[Any] = np.ascontiguousarray(edges[:, 0], dtype=kind)
        self.v: NDArray[Any] = np.ascontiguousarray(edges[:, 1], dtype=kind)


def _compact(levels: NDArray[np.int64]) -> NDArray[Any]:
    """The levels in the narrowest signed type that holds them: the per-edge
    lookups then read a table that stays in cache (1 MiB at 2^20 vertices
    for int8, instead of 8)."""
    top = int(levels.max()) if levels.size else 0
    for kind in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(kind).max:
            return levels.astype(kind)
    return levels


def validate(parents: NDArray[np.int64], root: int, edges: "EdgeShare | NDArray[np.int64]",
             levels: Optional[NDArray[np.int64]] = None) -> Verdict:
    """Collective: the five checks on `parents` (every rank's copy of the
    whole array) against every rank's `edges` (an (m_r, 2) array or its
    EdgeShare); `levels` (-1: unreached) as the search reported them, or
    None to use the tree depths."""
    if not isinstance(edges, EdgeShare):
        edges = EdgeShare(edges)
    failed: dict[int, str] = {}
    n = len(parents)
    depth, why = tree_depths(parents, root)
    if why:
        failed[1] = why
    reached = parents >= 0
    if levels is not None and levels.shape != parents.shape:
        failed[2] = f"levels of shape {levels.shape} for {n} vertices"
    elif levels is not None:
        why = _level_problem(parents, levels, reached, root, tree_ok=why is None)
        if why:
            failed[2] = why
    if levels is None or levels.shape != parents.shape:
        levels = depth
    u, v = edges.u, edges.v
    table = _compact(levels)
    lu, lv = table[u], table[v]
    in_u, in_v = lu >= 0, lv >= 0
    both = in_u & in_v
    step = lu.astype(np.int64) - lv
    far = np.flatnonzero(both & (np.abs(step) > 1))
    half = np.flatnonzero(in_u != in_v)
    # check 5: an edge can join a vertex to its parent only if it spans one
    # level of the tree; the deeper end is confirmed when its parent is the
    # other end.  Levels that passed check 2 are the tree depths; others are
    # not, and the depths are looked up instead.
    if levels is not depth and 2 in failed:
        depths = _compact(depth)
        du, dv = depths[u], depths[v]
        step = du.astype(np.int64) - dv
        tree_like = np.flatnonzero((du >= 0) & (dv >= 0) & (np.abs(step) == 1))
    else:
        tree_like = np.flatnonzero(both & (np.abs(step) == 1))
    down = step[tree_like] > 0
    child = np.where(down, u[tree_like], v[tree_like])
    parent = np.where(down, v[tree_like], u[tree_like])
    confirmed = np.zeros(n, dtype=np.uint8)
    if 1 not in failed:
        confirmed[child[parents[child] == parent]] = 1
    confirmed = pybcl.allreduce(confirmed, op="bor")
    unconfirmed = np.flatnonzero(reached & (confirmed == 0) & (np.arange(n) != root))
    examples = [(3, _edge_example(far, u, v, lu, lv, "joins levels")),
                (4, _edge_example(half, u, v, lu, lv, "has one end reached: levels"))]
    found = pybcl.comm().allgather([(k, e) for k, e in examples if e])
    for part in found:
        for k, e in part:
            failed.setdefault(k, e)
    if len(unconfirmed) and 1 not in failed:
        w = int(unconfirmed[0])
        failed[5] = f"vertex {w}'s parent {int(parents[w])} is not joined to it by an edge"
    nedge = int(pybcl.allreduce(int(both.sum()), op="sum"))
    return Verdict(nedge=nedge, failed=dict(sorted(failed.items())))


def _level_problem(parents: NDArray[np.int64], levels: NDArray[np.int64],
                   reached: NDArray[np.bool_], root: int, tree_ok: bool) -> Optional[str]:
    """Why the reported levels break check 2, or None."""
    if 0 <= root < len(levels) and levels[root] != 0:
        return f"the root {root} is at level {int(levels[root])}, not 0"
    mismatch = np.flatnonzero(reached != (levels >= 0))
    if len(mismatch):
        v = int(mismatch[0])
        return f"vertex {v} has parent {int(parents[v])} but level {int(levels[v])}"
    if not tree_ok:                  # parents may name no vertex: nothing more to compare
        return None
    kids = np.flatnonzero(reached)
    kids = kids[kids != root]
    wrong = kids[levels[kids] != levels[parents[kids]] + 1]
    if len(wrong):
        v = int(wrong[0])
        return (f"tree edge {v}-{int(parents[v])} joins levels {int(levels[v])} and "
                f"{int(levels[parents[v]])}")
    return None


def _edge_example(rows: NDArray[np.int64], u: NDArray[Any], v: NDArray[Any],
                  lu: NDArray[Any], lv: NDArray[Any], what: str) -> Optional[str]:
    if not len(rows):
        return None
    i = int(rows[0])
    return f"edge {int(u[i])}-{int(v[i])} {what} {int(lu[i])} and {int(lv[i])}"
