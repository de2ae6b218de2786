"""Command-line plumbing shared by the apps: one error line from rank 0,
inputs and outputs checked before any work, figures written as JSON, and
files written by the ranks in turn.

Every rank parses the same argv and checks the same files, so they all reach
the same verdict; only rank 0 prints it (``prog: error: ...``) and every rank
exits with the same status: 2 for a usage error, 1 for an input error.  The
checks run before any MPI window or table is made, so a bad run costs
nothing.  Checks that could differ between ranks (files on different hosts)
are agreed on with one allgather, so no rank goes on alone.
"""
import argparse
import json
import os
import sys
from typing import Any, Callable, NoReturn, Optional, Sequence, TypeVar

T = TypeVar("T")

USAGE, INPUT = 2, 1


def world() -> tuple[int, int, Any]:
    """(rank, size, comm) of the job, without starting pybcl."""
    from mpi4py import MPI
    c = MPI.COMM_WORLD
    return c.Get_rank(), c.Get_size(), c


class InputError(ValueError):
    """Bad input found on some rank; raised on every rank with the same text."""


def say_error(prog: str, message: str, rank: Optional[int] = None) -> None:
    if rank is None:
        rank = world()[0]
    if rank == 0:
        sys.stderr.write(f"{prog}: error: {message}\n")
        sys.stderr.flush()


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line from rank 0 and exit status 2."""

    def error(self, message: str) -> NoReturn:
        say_error(self.prog, message)
        # every rank parses the same argv: a collective exit, not the
        # one-rank sys.exit(n) that pybcl turns into MPI_Abort (docs/api.md)
        raise SystemExit(USAGE)

    def at_least(self, option: str, value: Optional[int], lo: int) -> None:
        """A usage error unless `value` (None: not given) is >= lo."""
        if value is not None and value < lo:
            self.error(f"argument {option}: must be >= {lo}, got {value}")

    def add_reads(self, demo_help: str) -> None:
        """The READS... files and --demo (simulated reads) of the sequence apps."""
        self.add_argument("reads", nargs="*", metavar="READS", help="FASTA/FASTQ files (.gz ok)")
        self.add_argument("--demo", action="store_true", help=demo_help)

    @classmethod
    def for_reads(cls, app: str, description: str, demo_help: str, k_help: str) -> "Parser":
        """The parser of a sequence app: READS..., --demo and -k (default 31)."""
        ap = cls(prog=f"python -m pybcl.apps.{app}", description=description)
        ap.add_reads(demo_help)
        ap.add_argument("-k", type=int, default=31, help=k_help)
        return ap

    def check_reads(self, args: argparse.Namespace) -> None:
        """A usage error unless exactly one of READS and --demo was given."""
        if args.demo == bool(args.reads):
            self.error("give READS files, or --demo (not both)")


def agree(problem: Optional[str], comm: Any = None) -> Optional[str]:
    """Collective (over comm, default COMM_WORLD): the first rank's problem
    text (or None) on every rank."""
    everyone = (comm or world()[2]).allgather(problem)
    return next((p for p in everyone if p), None)


def check_outputs(prog: str, outputs: Sequence[tuple[str, Optional[str]]]) -> bool:
    """Collective: can every (option, path) output be written?  If not, rank
    0 has said the first problem."""
    problem = next(filter(None, (output_file_problem(o, p) for o, p in outputs)), None)
    problem = agree(problem)
    if problem:
        say_error(prog, problem)
    return problem is None


def open_inputs(prog: str, outputs: Sequence[tuple[str, Optional[str]]],
                opener: Callable[[], T], error: type[Exception]) -> Optional[T]:
    """Collective: check every (option, path) output, then open the inputs
    (opener() raising `error` when one is bad), before any work; the ranks
    agree.  The inputs, or None once rank 0 has said the first problem."""
    problem = next(filter(None, (output_file_problem(o, p) for o, p in outputs)), None)
    inputs = None
    if problem is None:
        try:
            inputs = opener()
        except error as e:
            problem = str(e)
    problem = agree(problem)
    if problem:
        say_error(prog, problem)
        return None
    return inputs


def write_json(path: Optional[str], figures: Any) -> None:
    """The run's figures as JSON at `path` (if given); stdout flushed."""
    if path:
        with open(path, "w") as fh:
            json.dump(figures, fh, indent=1)
    sys.stdout.flush()


def append_in_turn(path: str, data: bytes, rank: int, nprocs: int, barrier: Callable[[], Any]
                   ) -> None:
    """Collective: the ranks write their `data` to `path` in turn, rank 0
    first (creating the file), the others appending."""
    for r in range(nprocs):
        if r == rank:
            with open(path, "wb" if r == 0 else "ab") as fh:
                fh.write(data)
        barrier()


def input_file_problem(path: str) -> Optional[str]:
    """Why `path` cannot be read as an input file, or None."""
    if not os.path.exists(path):
        return f"{path}: no such file"
    if os.path.isdir(path):
        return f"{path}: is a directory"
    if not os.access(path, os.R_OK):
        return f"{path}: permission denied"
    return None


def output_file_problem(option: str, path: Optional[str]) -> Optional[str]:
    """Why `path` cannot be written (checked now, not after the run), or None."""
    if path is None:
        return None
    if os.path.isdir(path):
        return f"{option} {path}: is a directory"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"{option} {path}: directory {parent} does not exist"
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            return f"{option} {path}: permission denied"
    elif not os.access(parent, os.W_OK | os.X_OK):
        return f"{option} {path}: cannot create a file in {parent} (permission denied)"
    return None
