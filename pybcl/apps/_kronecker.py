"""The Graph500 Kronecker edge generator (the specification's
kronecker_generator.m), in NumPy, split between ranks.

An edge picks one quadrant of the adjacency matrix per bit of its endpoints,
SCALE times, with the initiator probabilities A = 0.57, B = C = 0.19 and
D = 0.05: quadrant (0, 0) with A, (0, 1) with B, (1, 0) with C, (1, 1) with
D.  The Octave code draws two uniforms per bit (the row bit with
P(1) = 1 - (A + B), then the column bit conditioned on it); one uniform
against the cumulative A, A + B, A + B + C gives the same four
probabilities at half the draws (32-bit uniforms against the thresholds
rounded to 2^-32).  Then the vertex labels go through one
random permutation of [0, 2^SCALE), so that degree says nothing about a
label.

The edges are generated in pieces of CHUNK edges, piece c from its own
random stream (NumPy's PCG64 seeded with SeedSequence(seed, spawn_key=(1,
c))), and the permutation from another (spawn_key (0,)); a rank generates
a contiguous run of pieces.  So the graph depends on the seed and scale
only, never on the number of ranks, and no rank waits for another.  The
specification also shuffles the list of edges; edges drawn independently
are already in random order, so the shuffle would change nothing.
"""
import numpy as np
from numpy.typing import NDArray

A, B, C = 0.57, 0.19, 0.19
CHUNK = 1 << 16        # edges per independently seeded piece


def vertex_permutation(scale: int, seed: int) -> NDArray[np.int64]:
    """The random relabelling of the 2^scale vertices (the same on every rank)."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))))
    return rng.permutation(1 << scale).astype(np.int64, copy=False)


# The cumulative initiator probabilities as thresholds on uniform 32-bit draws.
_T_A, _T_AB, _T_ABC = (np.uint32(round(p * 2.0**32)) for p in (A, A + B, A + B + C))


def _pack_bits(bits: NDArray[np.bool_]) -> NDArray[np.int64]:
    """(count, W) booleans (W a multiple of 8, bit b of each row in column
    b) as count int64 numbers: packbits over the flat rows, then each
    number's W / 8 bytes widened to 8."""
    count, width = bits.shape
    packed = np.packbits(bits.reshape(-1), bitorder="little").reshape(count, width // 8)
    out = np.zeros((count, 8), dtype=np.uint8)
    out[:, :width // 8] = packed
    return out.view("<i8").reshape(count).astype(np.int64, copy=False)


def _piece(scale: int, count: int, seed: int, index: int) -> NDArray[np.int64]:
    """Piece `index`'s count edges, before the permutation: (count, 2) int64."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed,
                                                                      spawn_key=(1, index))))
    n32 = count * scale
    r = rng.bit_generator.random_raw((n32 + 1) // 2).view(np.uint32)[:n32].reshape(count, scale)
    width = 8 * -(-scale // 8)
    row = np.zeros((count, width), dtype=bool)
    col = np.zeros((count, width), dtype=bool)
    np.greater_equal(r, _T_AB, out=row[:, :scale])        # quadrants (1, 0), (1, 1)
    col[:, :scale] = (r >= _T_A) ^ row[:, :scale]        # (0, 1) ...
    col[:, :scale] |= r >= _T_ABC                         # ... and (1, 1)
    return np.stack([_pack_bits(row), _pack_bits(col)], axis=1)


def pieces_of(rank: int, nprocs: int, nedges: int) -> range:
    """The pieces rank `rank` generates: a contiguous share of them all."""
    total = -(-nedges // CHUNK)
    return range(rank * total // nprocs, (rank + 1) * total // nprocs)


def kronecker_edges(scale: int, edgefactor: int, seed: int, rank: int, nprocs: int,
                    perm: NDArray[np.int64]) -> NDArray[np.int64]:
    """This rank's share of the edgefactor * 2^scale edges, labels permuted
    by `perm` (vertex_permutation(scale, seed)): an (m, 2) int64 array."""
    nedges = edgefactor << scale
    parts = [_piece(scale, min(CHUNK, nedges - c * CHUNK), seed, c)
             for c in pieces_of(rank, nprocs, nedges)]
    if not parts:
        return np.empty((0, 2), dtype=np.int64)
    return perm[np.concatenate(parts)]
