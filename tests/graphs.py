"""Small graphs and serial answers shared by the graph apps' tests."""
from collections import deque

import numpy as np

import pybcl


def share(edges):
    """This rank's rows of an (m, 2) edge list, as the apps split a file."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    P, me = pybcl.nprocs(), pybcl.rank()
    m = len(edges)
    return edges[me * m // P:(me + 1) * m // P]


def serial_levels(edges, n, root):
    """Breadth-first levels of the undirected graph (-1: unreached)."""
    adj = [[] for _ in range(n)]
    for u, v in np.asarray(edges).reshape(-1, 2).tolist():
        adj[u].append(v)
        adj[v].append(u)
    level = [-1] * n
    level[root] = 0
    todo = deque([root])
    while todo:
        x = todo.popleft()
        for y in adj[x]:
            if level[y] < 0:
                level[y] = level[x] + 1
                todo.append(y)
    return np.array(level, dtype=np.int64)


def dense_pagerank(edges, n, iterations, damping):
    """Power iteration with the dense transition matrix (NumPy)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    M = np.zeros((n, n))
    np.add.at(M, (edges[:, 1], edges[:, 0]), 1.0)
    out = M.sum(axis=0)
    dangling = out == 0
    M[:, ~dangling] /= out[~dangling]
    r = np.full(n, 1.0 / n)
    for _ in range(iterations):
        r = (1 - damping) / n + damping * (M @ r + r[dangling].sum() / n)
    return r


# name -> (m, 2) undirected edges; every graph's largest vertex has an edge
HAND_MADE = {
    "path": [[i, i + 1] for i in range(11)],
    "star": [[0, i] for i in range(1, 13)],
    "star_reversed": [[i, 7] for i in range(7)] + [[7, i] for i in range(8, 12)],
    # two components, vertex 5 with no edge at all, vertex 9 with only a self-loop
    "parts": [[0, 1], [1, 2], [2, 0], [3, 4], [6, 7], [7, 8], [8, 6], [9, 9], [10, 11]],
    "self_loops": [[0, 0], [0, 1], [1, 1], [1, 2], [2, 2], [2, 3], [3, 3]],
    "duplicates": [[0, 1], [1, 0], [0, 1], [1, 2], [2, 1], [2, 3], [0, 3], [0, 3], [3, 4]],
    "cycle": [[i, (i + 1) % 9] for i in range(9)],
    "clique": [[i, j] for i in range(6) for j in range(6) if i < j],
}
