"""The Graph500 validation of a BFS tree: a correct tree passes, and each of
the five checks fails on a parent array corrupted the way it looks for; the
statistics block's TEPS figures."""
import math

import numpy as np
import pytest

from conftest import all_ok
from graphs import share
from pybcl.apps._bfs_validate import tree_depths, validate
from pybcl.apps._graph500_stats import statistics, teps_statistics

# 0 - 1 - 3 - 5      6 - 7    8 (self-loop)
#  \  |       |
#   - 2 - - - 4
EDGES = np.array([[0, 1], [0, 2], [1, 3], [2, 4], [3, 5], [4, 5], [1, 2], [6, 7], [8, 8]])
PARENTS = np.array([0, 0, 0, 1, 2, 3, -1, -1, -1])
LEVELS = np.array([0, 1, 1, 2, 2, 3, -1, -1, -1])


def check(parents, levels=None, root=0):
    verdict = validate(np.array(parents), root, share(EDGES),
                       None if levels is None else np.array(levels))
    return verdict


def test_a_correct_tree_passes_and_counts_its_component_edges():
    for levels in (LEVELS, None):
        v = check(PARENTS, levels)
        assert all_ok(v.ok and v.nedge == 7), v.failed
    alt = PARENTS.copy()
    alt[5] = 4                                 # the other parent on the level above
    assert all_ok(check(alt, LEVELS).ok)


@pytest.mark.parametrize("corrupt,why", [
    ({3: 5, 5: 3}, "cycle"),                  # 3 and 5 each other's parent
    ({4: 99}, "not a vertex"),
    ({4: -7}, "not a vertex"),
    ({0: 1}, "not itself"),                   # the root's parent is not the root
    ({5: 6}, "unreached"),                    # a parent outside the tree
])
def test_check_1_tree(corrupt, why):
    parents = PARENTS.copy()
    for v, p in corrupt.items():
        parents[v] = p
    v = check(parents)
    assert all_ok(1 in v.failed and why in v.failed[1]), v.failed


def test_check_2_tree_edges_span_one_level():
    parents = PARENTS.copy()
    parents[2] = 1               # an edge, but 1 and 2 are both on level 1
    v = check(parents, LEVELS)
    assert all_ok(list(v.failed) == [2] and "2-1" in v.failed[2]), v.failed
    levels = LEVELS.copy()
    levels[0] = 1                # the root must be at level 0
    assert all_ok(2 in check(PARENTS, levels).failed)
    levels = LEVELS.copy()
    levels[7] = 4                # a level for an unreached vertex
    assert all_ok(2 in check(PARENTS, levels).failed)


def test_check_3_edges_span_at_most_one_level():
    parents = PARENTS.copy()
    parents[2] = 1               # a tree again, but 2 is now at depth 2 while 0-2 is an edge
    v = check(parents)
    assert all_ok(list(v.failed) == [3] and "0-2" in v.failed[3]), v.failed


def test_check_4_tree_spans_the_component():
    parents = PARENTS.copy()
    parents[5] = -1              # 5 left out though 3-5 and 4-5 are edges
    v = check(parents)
    assert all_ok(list(v.failed) == [4]), v.failed


def test_check_5_parents_are_neighbours():
    parents = PARENTS.copy()
    parents[5] = 2               # level 1, so 5 is at depth 2 as before, but no edge 2-5
    v = check(parents)
    assert all_ok(list(v.failed) == [5] and "vertex 5" in v.failed[5]), v.failed


def test_tree_depths():
    depth, why = tree_depths(PARENTS, 0)
    assert why is None and depth.tolist() == LEVELS.tolist()
    long = np.arange(-1, 1000)
    long[0] = 0                  # a path 0 <- 1 <- 2 <- ... of 1001 vertices
    depth, why = tree_depths(long, 0)
    assert why is None and depth.tolist() == list(range(1001))
    long[500] = 700              # a cycle 500 -> 700 -> 699 -> ... -> 500
    assert "cycle" in tree_depths(long, 0)[1]


def test_teps_statistics_are_the_reference_formulas():
    t = teps_statistics([1.0, 2.0, 4.0], [10, 10, 10])
    assert math.isclose(t["teps_harmonic_mean"], 3 / (0.1 + 0.2 + 0.4))
    assert (t["teps_min"], t["teps_median"], t["teps_max"]) == (2.5, 5.0, 10.0)
    # Norris's standard deviation of the harmonic mean (graph500 main.c)
    spe = np.array([0.1, 0.2, 0.4])
    want = spe.std(ddof=1) / (spe.mean() ** 2 * math.sqrt(2))
    assert math.isclose(t["teps_harmonic_stddev"], want)
    assert teps_statistics([1.0, 1.0], [10, 0])["teps_harmonic_mean"] == 0.0
    s = statistics([4, 1, 3, 2])
    assert (s["min"], s["median"], s["max"], s["mean"]) == (1.0, 2.5, 4.0, 2.5)
    assert (s["firstquartile"], s["thirdquartile"]) == (1.5, 3.5)
