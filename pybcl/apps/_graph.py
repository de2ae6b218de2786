"""The distributed graph of the graph apps: edges routed to the rank that owns
their first vertex through pybcl queues, and each rank's compressed sparse
rows (Graph500's kernel 1).

Vertices are spread over the ranks as a ``pybcl.DArray`` of n elements is
(blocks of ceil(n / P), ``owner(v) = v // block``), so a DArray indexed by
vertex has each vertex's element on the rank that holds its edges.

Routing: every rank hosts one ``FastQueue`` of int64 sized (after one
allreduce of the per-destination counts) to hold exactly what it receives;
each rank pushes its records for rank r as one run of ``push_many`` calls (a
record's words stay together: a push is contiguous and all or nothing), a
barrier ends the pushing, and each owner reads its queue's ``local()`` view.
That is ISx's exchange (``pybcl.apps.isx``), on edges: one int64 key
``a << bits | b`` per edge up to 2^31 vertices, two words above.  Big
arrays are filled in place where NumPy allows: on a virtual machine a fresh
page costs microseconds, which at 2^25 edges is most of the work.
"""
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

import pybcl

PUSH_WORDS = 1 << 22       # int64 per push_many (32 MiB): bounded single transfers


def block_of(n: int, nprocs: int) -> int:
    """Vertices per rank: a DArray(n)'s block."""
    return max(1, -(-n // nprocs))


def pair_bits(n: int) -> int:
    """Bits of a vertex number below n; two of them fit in one int64 key
    (``a << bits | b``) when pair_bits(n) <= 31, as up to 2^31 vertices."""
    return max(n - 1, 1).bit_length()


def exchange_rows(rows: NDArray[np.int64], dest: NDArray[Any]) -> NDArray[np.int64]:
    """Collective: send row i of the (k, w) int64 array `rows` to rank
    dest[i]; returns the (k', w) rows every rank sent here, in no particular
    order (this rank's own first; they never enter a queue; when all of
    `rows` stay here, `rows` itself).  SegmentFull (on every rank) when an
    owner's segment cannot hold what it receives."""
    P, me = pybcl.nprocs(), pybcl.rank()
    width = rows.shape[1]
    counts = np.bincount(dest, minlength=P).astype(np.int64) if len(dest) else \
        np.zeros(P, dtype=np.int64)
    counts[me] = 0
    table = np.zeros((P, P), dtype=np.int64)
    table[me] = counts
    incoming = pybcl.allreduce(table, op="sum").sum(axis=0)
    # as one-dimensional records (a void view), rows are selected and
    # gathered at NumPy's 1-D speed: 2-D fancy indexing is several times slower
    records = np.ascontiguousarray(rows).view(np.dtype((np.void, 8 * width))).reshape(-1)
    stay = dest == me
    everything = bool(stay.all())
    kept = records if everything else records[stay]
    if not everything:
        away = ~stay
        records, dest = records[away], dest[away]
        # a stable argsort of small integers is a radix sort: one pass per byte
        kind = np.int8 if P < (1 << 7) else np.int16 if P < (1 << 15) else np.int32
        flat = records[np.argsort(dest.astype(kind), kind="stable")].view(np.int64)
    else:
        flat = np.empty(0, dtype=np.int64)
    kept = kept.view(np.int64).reshape(-1, width)
    del rows, records, dest, stay
    ends = np.cumsum(counts) * width
    step = max(width, PUSH_WORDS - PUSH_WORDS % width)
    queues = [pybcl.FastQueue(h, max(width, width * int(incoming[h])), "int64")
              for h in range(P)]
    try:
        for j in range(P - 1):                  # start with the next rank over
            r = (me + 1 + j) % P
            for s in range(int(ends[r] - counts[r] * width), int(ends[r]), step):
                if not queues[r].push_many(flat[s:min(s + step, int(ends[r]))]):
                    raise pybcl.ContainerFull(f"the edge queue of rank {r} is full")
        del flat
        pybcl.barrier()
        got = queues[me].local().reshape(-1, width)
        mine = np.concatenate([kept, got]) if len(got) else kept
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
    breadth-first search); every other edge goes to both endpoints' owners,
    as one int64 key ``row << bits | neighbour`` (a pair of int64 above 2^31
    vertices).  One sort of its keys orders a rank's rows and each row's
    neighbours; equal neighbours are then adjacent."""
    P, me = pybcl.nprocs(), pybcl.rank()
    n = vertex_count(edges)
    block = block_of(n, P)
    lo = min(me * block, n)
    hi = min(lo + block, n)
    bits = pair_bits(n)
    u, v = edges[:, 0], edges[:, 1]
    keep = u != v
    u, v = u[keep], v[keep]
    k = len(u)
    dest = np.empty(2 * k, dtype=np.int64)
    np.floor_divide(u, block, out=dest[:k])
    np.floor_divide(v, block, out=dest[k:])
    if bits > 31:
        return _csr_from_pairs(n, lo, hi, exchange_rows(
            np.concatenate([np.stack([u, v], axis=1), np.stack([v, u], axis=1)]), dest))
    key = np.empty(2 * k, dtype=np.int64)      # in place: fresh pages are dear
    np.left_shift(u, bits, out=key[:k])
    key[:k] |= v
    np.left_shift(v, bits, out=key[k:])
    key[k:] |= u
    del u, v, keep
    key = exchange_rows(key.reshape(-1, 1), dest).reshape(-1)
    del dest
    key -= lo << bits
    key.sort()
    if len(key):
        first = np.empty(len(key), dtype=bool)
        first[0] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        key = key[first]
    rowptr = np.searchsorted(key, np.arange(hi - lo + 1, dtype=np.int64) << bits)
    np.bitwise_and(key, (1 << bits) - 1, out=key)
    return Csr(n=n, lo=lo, hi=hi, rowptr=rowptr.astype(np.int64), col=key)


def _csr_from_pairs(n: int, lo: int, hi: int, got: NDArray[np.int64]) -> Csr:
    """build_csr's rows from (row, neighbour) pairs, for graphs whose pairs
    do not fit in one int64."""
    order = np.lexsort((got[:, 1], got[:, 0]))
    got = got[order]
    first = np.ones(len(got), dtype=bool)
    first[1:] = np.any(got[1:] != got[:-1], axis=1)
    got = got[first]
    rowptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(np.bincount(got[:, 0] - lo, minlength=hi - lo), out=rowptr[1:])
    return Csr(n=n, lo=lo, hi=hi, rowptr=rowptr, col=np.ascontiguousarray(got[:, 1]))


def expand_ranges(starts: NDArray[np.int64], lengths: NDArray[np.int64]) -> NDArray[np.int64]:
    """The concatenation of range(starts[i], starts[i] + lengths[i])."""
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    shift = starts - (np.cumsum(lengths) - lengths)
    return np.repeat(shift, lengths) + np.arange(total, dtype=np.int64)
