"""Files that are not whole pybcl files: pybcl.load raises the same clear
exception, naming the path, on every rank (no rank hangs, none crashes);
pybcl.io.read and pybcl.io.info raise it too, in this process.  A damaged
part is found by whichever rank reads it, and every rank raises."""
import os

import numpy as np
import pytest

import pybcl
from conftest import all_ok


@pytest.fixture
def shared_dir(tmp_path):
    return pybcl.broadcast(str(tmp_path) if pybcl.rank() == 0 else None)


def _damaged_copies(good, folder):
    """name -> (path, exception type, words in its message): written by rank 0."""
    data = open(good, "rb").read()
    last = len(data) - 1                       # in the last rank's part
    cases = {
        "truncated": (data[:len(data) // 2], ValueError, "truncated"),
        "header_only": (data[:100], ValueError, "truncated"),
        "data_byte": (data[:last] + bytes([data[last] ^ 0x40]), ValueError, "checksum"),
        "header_byte": (data[:40] + bytes([data[40] ^ 1]) + data[41:], ValueError, "checksum"),
        "version": (data[:8] + (2).to_bytes(4, "little") + data[12:], ValueError, "version 2"),
        "random": (np.random.default_rng(7).bytes(len(data)), ValueError, "not a pybcl file"),
        "empty": (b"", ValueError, "not a pybcl file"),
        "appended": (data + b"\0" * 9, ValueError, "9 bytes follow"),
    }
    out = {}
    for name, (content, exc, words) in cases.items():
        path = os.path.join(folder, name)
        if pybcl.rank() == 0:
            with open(path, "wb") as f:
                f.write(content)
        out[name] = (path, exc, words)
    out["missing"] = (os.path.join(folder, "missing"), FileNotFoundError, "No such file")
    out["directory"] = (folder, IsADirectoryError, "directory")
    pybcl.barrier()
    return out


def _raises(fn, path, exc, words):
    try:
        fn(path)
    except exc as e:
        return None if words in str(e) and path in str(e) else f"{path}: {e}"
    except Exception as e:              # noqa: BLE001 -- the wrong one, reported
        return f"{path}: {type(e).__name__}: {e}"
    return f"{path}: no error"


@pytest.mark.parametrize("kind", ["darray", "map"])
def test_bad_files_raise_clearly_on_every_rank(shared_dir, kind):
    P = pybcl.nprocs()
    good = os.path.join(shared_dir, "good")
    if kind == "darray":
        a = pybcl.DArray(1000 * P + 3, dtype="int64")
        a.local()[:] = 1
    else:
        a = pybcl.HashMap(64 * P, key_type=str, value_type="int64")
        a[f"key{pybcl.rank()}"] = pybcl.rank()
    pybcl.barrier()
    a.save(good)
    problems = []
    for name, (path, exc, words) in _damaged_copies(good, shared_dir).items():
        problem = _raises(pybcl.load, path, exc, words)
        if problem:
            problems.append(("load", name, problem))
        if pybcl.rank() == 0:
            for fn in (pybcl.io.read, pybcl.io.info):
                if fn is pybcl.io.info and name == "data_byte":
                    continue                  # info reads the descriptor only
                problem = _raises(fn, path, exc, words)
                if problem:
                    problems.append((fn.__name__, name, problem))
    # every rank raised: the next collective meets all of them
    assert all_ok(not problems), problems
    assert all_ok((np.asarray(pybcl.load(good)) == 1).all() if kind == "darray"
                  else pybcl.load(good).size() == P)


def test_a_directory_is_both_kinds_of_error(shared_dir):
    try:
        pybcl.load(shared_dir)
        ok = False
    except ValueError as e:
        ok = isinstance(e, IsADirectoryError) and e.errno == 21
    assert all_ok(ok)
