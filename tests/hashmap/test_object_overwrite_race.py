"""Every rank overwrites the SAME few keys of a map with out-of-line values.

Each overwrite releases the old value's block to its owner (at once when it
is ours, else through the owner's remote-free stack, drained at barriers).
A block released twice, or freed while still referenced, shows up as an
error at a later barrier ("not the start of a block allocated by this
rank") or as a find returning bytes no rank wrote.  Values have varying
sizes so freed blocks are reused for different lengths.
"""
import numpy as np
import pytest

import pybcl
from conftest import all_ok

N_KEYS = 4          # few keys: every rank collides on every one of them
ROUNDS = 6          # each of the three write paths twice; barriers between
                    # rounds drain the remote-free stacks
PER_ROUND_ALL = 48  # overwrites of each key per round, all ranks together:
                    # constant in P, since every overwrite of a key is serialised


def per_round(p):
    return max(3, PER_ROUND_ALL // p)


def _value(rank, rnd, i, kind):
    # The size varies with (rank, round, i), and the content names its writer,
    # so a find can check the value is one some rank actually wrote.
    n = 1 + (rank * 7 + rnd * 13 + i * 5) % 97
    tag = f"r{rank}.{rnd}.{i}:"
    body = tag + "x" * n
    if kind == "bytes":
        return body.encode()
    if kind == "str":
        return body
    return (rank, rnd, i, body)


def _parse(v, kind):
    if kind == "object":
        rank, rnd, i, body = v
        assert body == _value(rank, rnd, i, kind)[3]
        return rank, rnd, i
    s = v.decode() if kind == "bytes" else v
    tag = s.split(":", 1)[0]
    rank, rest = tag[1:].split(".", 1)
    rnd, i = rest.split(".")
    rank, rnd, i = int(rank), int(rnd), int(i)
    assert v == _value(rank, rnd, i, kind), "a find returned bytes no rank wrote"
    return rank, rnd, i


def _check_all(m, kind, rnd, P):
    ok = True
    for key in range(N_KEYS):
        v = m.find(key)
        try:
            rank, vr, _ = _parse(v, kind)
            ok = ok and 0 <= rank < P and vr == rnd
        except Exception:
            ok = False
    return ok


@pytest.mark.parametrize("kind", ["object", "bytes", "str"])
def test_same_key_overwrites_release_each_block_once(kind):
    P, me = pybcl.nprocs(), pybcl.rank()
    m = pybcl.HashMap(64 * P, key_type="int64", value_type=kind)
    ok = True
    error = None
    PER_ROUND = per_round(P)
    try:
        for rnd in range(ROUNDS):
            mode = rnd % 3
            if mode == 0:
                for i in range(PER_ROUND):
                    for key in range(N_KEYS):
                        m.insert(key, _value(me, rnd, i, kind))
            elif mode == 1:
                for i in range(PER_ROUND):
                    m.insert_many(list(range(N_KEYS)),
                                  [_value(me, rnd, i, kind)] * N_KEYS)
            else:
                # HashMapBuffer takes fixed-size types only; modify() is the
                # other path that replaces an out-of-line value.
                for i in range(PER_ROUND):
                    for key in range(N_KEYS):
                        m.modify(key, lambda _old, v=_value(me, rnd, i, kind): v)
            pybcl.barrier()
            ok = ok and _check_all(m, kind, rnd, P)
            pybcl.barrier()
    except Exception as e:                      # noqa: BLE001 -- reported below
        error = e
        ok = False
    assert all_ok(ok), f"rank {me}: {error!r}"
    # Every overwritten block went back: a second map of the same shape fits.
    del m
    pybcl.barrier()
