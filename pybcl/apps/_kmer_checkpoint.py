"""Checkpoints of a k-mer count: ``kmer --checkpoint DIR [--resume]``.

A checkpoint is one folder: the containers of the count (the counts map,
the Bloom filters under ``--bloom``), each saved with ``save`` (MPI-IO,
atomic replacement) under a name that carries the round, and a small
manifest written last by rank 0 (a temporary file, flushed, renamed, the
folder synced).  The manifest names the round, the pass, the files and
every rank's position in its share of the input; a job killed at any
moment leaves the last manifest and the files it names whole, so a
checkpoint is wholly the old one or wholly the new one.  Files of other
rounds (an older checkpoint, or a round that died while saving) are
removed once a new manifest is in place.

A rank's position is the number of k-mers of its share it has handed to
the count in the current pass.  Its share is fixed by the inputs and the
rank count (which is why resuming needs the same of both), so a resumed
rank reads its share again from the start and drops that many k-mers
before counting: exact for plain, gzip and BGZF inputs alike, at the cost
of parsing the part already counted once more.
"""
import json
import os
import re
import time
from typing import Any, Optional, Sequence

import pybcl
from pybcl.apps import _cli

MANIFEST = "manifest.json"
FORMAT = 1
CONTAINER = re.compile(r"^(counts|seen|twice)\.\d+\.bcl$")


class CheckpointError(_cli.InputError):
    """A checkpoint that cannot be resumed (same message on every rank)."""


def identity(sources: Sequence[Any], k: int, bloom: bool, nprocs: int) -> dict[str, Any]:
    """What a resumed job must share with the checkpoint's: the rank count
    (it fixes each rank's share of the input), the inputs (name and size),
    k, and whether a Bloom filter keeps singletons out."""
    return {"ranks": nprocs, "k": k, "bloom": bool(bloom),
            "inputs": [[str(s), int(s.size)] for s in sources]}


def _describe_inputs(inputs: Sequence[Sequence[Any]]) -> str:
    return ", ".join(f"{name} ({size} bytes)" for name, size in inputs)


def mismatch(saved: dict[str, Any], now: dict[str, Any]) -> Optional[str]:
    """Why a job with identity `now` cannot resume a checkpoint of `saved`."""
    if saved["ranks"] != now["ranks"]:
        return f"written by {saved['ranks']} rank(s), this job has {now['ranks']}"
    if saved["k"] != now["k"]:
        return f"counted with k={saved['k']}, this job has k={now['k']}"
    if saved["bloom"] != now["bloom"]:
        return ("counted with --bloom, this job without" if saved["bloom"] else
                "counted without --bloom, this job with it")
    if [list(i) for i in saved["inputs"]] != [list(i) for i in now["inputs"]]:
        return (f"inputs were {_describe_inputs(saved['inputs'])}, this job has "
                f"{_describe_inputs(now['inputs'])}")
    return None


def read_manifest(directory: str, now: dict[str, Any]) -> dict[str, Any]:
    """Collective (COMM_WORLD; works before pybcl starts): rank 0 reads the
    checkpoint's manifest and checks it against this job's identity; every
    rank gets the manifest, or raises the same CheckpointError."""
    comm = _cli.world()[2]
    found: Any = None
    if comm.Get_rank() == 0:
        path = os.path.join(directory, MANIFEST)
        try:
            with open(path) as fh:
                found = json.load(fh)
            if not isinstance(found, dict) or found.get("format") != FORMAT:
                found = f"--resume: {path}: not a k-mer checkpoint manifest of format {FORMAT}"
            else:
                why = mismatch(found["identity"], now)
                if why:
                    found = f"--resume: the checkpoint in {directory} was {why}"
        except FileNotFoundError:
            found = f"--resume: no checkpoint in {directory} (no {MANIFEST})"
        except (OSError, ValueError, KeyError, TypeError) as e:
            found = f"--resume: {path}: unreadable checkpoint manifest ({e})"
    found = comm.bcast(found, root=0)
    if isinstance(found, str):
        raise CheckpointError(found)
    manifest: dict[str, Any] = found
    return manifest


def forget(directory: str) -> None:
    """Collective (COMM_WORLD): a fresh count in `directory` first removes any
    earlier checkpoint's manifest there, so a round of the new count never
    joins a manifest of the old one."""
    comm = _cli.world()[2]
    problem = None
    if comm.Get_rank() == 0:
        try:
            os.makedirs(directory, exist_ok=True)
            try:
                os.unlink(os.path.join(directory, MANIFEST))
            except FileNotFoundError:
                pass
        except OSError as e:
            problem = f"--checkpoint: {directory}: {e.strerror or e}"
    problem = comm.bcast(problem, root=0)
    if problem:
        raise CheckpointError(problem)


def _sync_folder(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Checkpointer:
    """Commits checkpoints into `directory` after count rounds: at every
    round when `every` is 0, else after the first round that ends at least
    `every` seconds after the last commit (rank 0's clock decides)."""

    def __init__(self, directory: str, ident: dict[str, Any], every: float = 0.0,
                 round_no: int = 0) -> None:
        self.directory, self.ident, self.every = directory, ident, float(every)
        self.round = round_no         # the last committed round (0: none yet)
        self.commits = 0
        self.last = time.monotonic()

    def due(self) -> bool:
        """Collective: commit after this round?"""
        if self.every <= 0:
            return True
        late = time.monotonic() - self.last >= self.every
        return bool(pybcl.comm().bcast(late, root=0))

    def commit(self, phase: str, position: int, containers: dict[str, Any],
               state: Optional[dict[str, Any]] = None) -> None:
        """Collective: save `containers` (name -> container, every buffer
        flushed), then make them the checkpoint, with this rank's
        `position` (k-mers of its share counted in pass `phase`) and `state`
        (small per-rank figures the pass needs back)."""
        r = self.round + 1
        files = {name: f"{name}.{r}.bcl" for name in containers}
        for name, c in containers.items():
            c.save(os.path.join(self.directory, files[name]),
                   meta={"app": "pybcl.apps.kmer", "checkpoint_round": r})
        comm = pybcl.comm()
        ranks = comm.gather(dict(state or {}, position=int(position)), root=0)
        problem = None
        if comm.Get_rank() == 0:
            manifest = {"format": FORMAT, "app": "pybcl.apps.kmer", "round": r,
                        "phase": phase, "identity": self.ident, "files": files,
                        "ranks": ranks}
            try:
                self._write(manifest)
            except OSError as e:
                problem = f"--checkpoint: {self.directory}: {e.strerror or e}"
        problem = comm.bcast(problem, root=0)
        if problem:
            raise CheckpointError(problem)
        self.round = r
        self.commits += 1
        self.last = time.monotonic()

    def _write(self, manifest: dict[str, Any]) -> None:
        path = os.path.join(self.directory, MANIFEST)
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(manifest, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _sync_folder(self.directory)
        keep = set(manifest["files"].values())
        for name in os.listdir(self.directory):
            # other rounds' containers and the temporary files of a save
            # that died (save's `.NAME.<token>.pybcl-tmp`)
            stale = (CONTAINER.match(name) and name not in keep) or (
                name.startswith(".") and name.endswith(".pybcl-tmp")
                and CONTAINER.match(name[1:].split(".bcl.")[0] + ".bcl"))
            if stale:
                try:
                    os.unlink(os.path.join(self.directory, name))
                except OSError:
                    pass


def load(directory: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """Collective: the checkpoint's containers, name -> container."""
    out = {}
    for name, f in manifest["files"].items():
        try:
            out[name] = pybcl.load(os.path.join(directory, f))
        except (ValueError, OSError) as e:     # raised on every rank alike
            for c in out.values():
                c.close()
            raise CheckpointError(f"--resume: {e}") from None
    return out
