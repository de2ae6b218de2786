"""The distributed graph of the graph apps: edges routed to the rank that owns
their first vertex through pybcl queues, and each rank's compressed sparse
rows (Graph500's kernel 1).

Vertices are spread over the ranks as a ``pybcl.DArray`` of n elements is
(blocks of ceil(n / P), ``owner(v) = v // block``), so a DArray indexed by
vertex has each vertex's element on the rank that holds its edges.

Routing: every rank hosts one ``FastQueue`` of int64 sized (after one
allreduce of the per-destination counts) to hold exactly what it receives;
each rank pushes its pairs for rank r as one run of ``push_many`` calls (an
edge's two numbers stay together: a push is contiguous and all or nothing),
a barrier ends the pushing, and each owner reads its queue's ``local()``
view.  That is ISx's exchange (``pybcl.apps.isx``), on edges.
"""
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

import pybcl

PUSH_PAIRS = 1 << 21       # pairs per push_many (32 MiB): bounded single transfers


def block_of(n: int, nprocs: int) -> int:
    """Vertices per rank: a DArray(n)'s block."""
    return max(1, -(-n // nprocs))


def exchange_pairs(pairs: NDArray[np.int64], dest: NDArray[Any]) -> NDArray[np.int64]:
    """Collective: send row i of the (k, 2) int64 array `pairs` to rank
    dest[i]; returns the (k', 2) rows every rank sent here, in no particular
    order.  SegmentFull (on every rank) when an owner's segment cannot hold
    what it receives."""
    P, me = pybcl.nprocs(), pybcl.rank()
    counts = np.bincount(dest, minlength=P).astype(np.int64) if len(dest) else \
        np.zeros(P, dtype=np.int64)
    table = np.zeros((P, P), dtype=np.int64)
    table[me] = counts
    incoming = pybcl.allreduce(table, op="sum").sum(axis=0)
    # a stable argsort of small integers is a radix sort: O(k), one pass per byte
    kind = np.int8 if P < (1 << 7) else np.int16 if P < (1 << 15) else np.int32
    order = np.argsort(dest.astype(kind), kind="stable")
    flat = np.ascontiguousarray(pairs[order]).reshape(-1)
    del order
    ends = np.cumsum(counts)
    queues = [pybcl.FastQueue(h, max(2, 2 * int(incoming[h])), "int64") for h in range(P)]
    try:
        for j in range(P):                      # start with the next rank over
            r = (me + 1 + j) % P
            for s in range(int(ends[r] - counts[r]), int(ends[r]), PUSH_PAIRS):
                e = min(s + PUSH_PAIRS, int(ends[r]))
                if not queues[r].push_many(flat[2 * s:2 * e]):
                    raise pybcl.ContainerFull(f"the edge queue of rank {r} is full")
        del flat
        pybcl.barrier()
        mine = queues[me].local().reshape(-1, 2).copy()
    finally:
        for q in queues:
            q.close()
    return mine


@dataclass
class Csr:
    """This rank's rows of the undirected graph: vertices [lo, hi) of n,
    neighbours of local vertex i (global numbers) in col[rowptr[i]:rowptr[i+1]],
    ascending, each once; self-loops left out."""
    n: int
    lo: int
    hi: int
    rowptr: NDArray[np.int64]
    col: NDArray[np.int64]

    @property
    def degree(self) -> NDArray[np.int64]:
        return np.diff(self.rowptr)


def vertex_count(edges: NDArray[np.int64]) -> int:
    """Collective: the largest vertex number of any rank's edges, plus one."""
    mine = int(edges.max()) + 1 if edges.size else 0
    return int(pybcl.allreduce(mine, op="max"))


def build_csr(edges: NDArray[np.int64]) -> Csr:
    """Collective, Graph500's kernel 1: the undirected graph of every rank's
    (m_r, 2) edges as each rank's rows.  n is discovered (largest vertex + 1);
    self-loops are dropped and parallel edges merged (neither changes a
    breadth-first search); every other edge goes to both endpoints' owners."""
    P, me = pybcl.nprocs(), pybcl.rank()
    n = vertex_count(edges)
    block = block_of(n, P)
    u, v = edges[:, 0], edges[:, 1]
    keep = u != v
    u, v = u[keep], v[keep]
    pairs = np.empty((2 * len(u), 2), dtype=np.int64)
    pairs[:len(u), 0], pairs[:len(u), 1] = u, v
    pairs[len(u):, 0], pairs[len(u):, 1] = v, u
    del u, v, keep
    got = exchange_pairs(pairs, pairs[:, 0] // block)
    del pairs
    lo = min(me * block, n)
    hi = min(lo + block, n)
    rows = hi - lo
    # one sort of (row, neighbour) keys, packed in one int64 (the neighbour
    # in the low `bits`), orders the rows and their neighbours; adjacent
    # equal keys are parallel edges
    bits = max(n - 1, 1).bit_length()
    if rows.bit_length() + bits <= 62:
        key = ((got[:, 0] - lo) << bits) | got[:, 1]
        del got
        key.sort()
        if len(key):
            first = np.empty(len(key), dtype=bool)
            first[0] = True
            np.not_equal(key[1:], key[:-1], out=first[1:])
            key = key[first]
        row = key >> bits
        col = key & ((1 << bits) - 1)
        del key
    else:                                       # the pair does not fit in 64 bits
        order = np.lexsort((got[:, 1], got[:, 0]))
        got = got[order]
        first = np.ones(len(got), dtype=bool)
        first[1:] = np.any(got[1:] != got[:-1], axis=1)
        got = got[first]
        row, col = got[:, 0] - lo, np.ascontiguousarray(got[:, 1])
    rowptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=rows), out=rowptr[1:])
    return Csr(n=n, lo=lo, hi=hi, rowptr=rowptr, col=col)


def expand_ranges(starts: NDArray[np.int64], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """The concatenation of range(starts[i], starts[i] + lengths[i])."""
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    shift = starts - (np.cumsum(lengths) - lengths)
    return np.repeat(shift, lengths) + np.arange(total, dtype=np.int64)
