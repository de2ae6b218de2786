"""Command-line plumbing shared by the apps: one error line from rank 0,
inputs and outputs checked before any work, figures written as JSON, and
files written by the ranks in turn.

Every rank parses the same argv and checks the same files, so they all reach
the same verdict; only rank 0 prints it (``prog: error: ...``) and every rank
exits with the same status: 2 for a usage error, 1 for an input or output
error.  The checks run before any MPI window or table is made, so a bad run
costs nothing.  Checks that could differ between ranks (files on different
hosts) are agreed on with one allgather, so no rank goes on alone.

An output can still fail after the work (a disk that fills, a folder that
vanishes): every app writes its outputs, and prints its report, inside one
``with Outputs(prog) as out:`` block on every rank, and returns
``out.status(code)``.  A write that fails there (OSError, on any rank) ends
that rank's part of the block; the block's end agrees on the first problem,
rank 0 says it in one line and every rank returns 1, with no traceback and
no job abort::

    with _cli.Outputs(prog) as out:
        _cli.append_in_turn(path, data, rank, nprocs, pybcl.barrier, "-o")  # collective
        if rank == 0:
            print(report)
            _cli.write_json(args.json, figures)
    return out.status(0)
"""
import argparse
import json
import os
import stat
import sys
from types import TracebackType
from typing import Any, Callable, NoReturn, Optional, Sequence, TypeVar, Union

T = TypeVar("T")

USAGE, INPUT, OUTPUT = 2, 1, 1


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


class OutputError(OSError):
    """An output could not be written; the text names the option and path."""


def output_error(option: str, path: str, e: OSError) -> OutputError:
    return OutputError(f"{option} {path}: {e.strerror or e}")


def write_file(option: str, path: Optional[str], data: Union[str, bytes]) -> None:
    """`data` to `path` (if given); OutputError naming `option` if that fails."""
    if not path:
        return
    try:
        with open(path, "wb" if isinstance(data, bytes) else "w") as fh:
            fh.write(data)
    except OSError as e:
        raise output_error(option, path, e) from None


def write_json(path: Optional[str], figures: Any, option: str = "--json") -> None:
    """The run's figures as JSON at `path` (if given); stdout flushed."""
    write_file(option, path, json.dumps(figures, indent=1))
    sys.stdout.flush()


def append_in_turn(path: str, data: bytes, rank: int, nprocs: int, barrier: Callable[[], Any],
                   option: str = "output") -> None:
    """Collective: the ranks write their `data` to `path` in turn, rank 0
    first (creating the file), the others appending.  If a rank's write
    fails, every rank raises the first failure's OutputError (naming
    `option`) once all have had their turn."""
    problem = None
    for r in range(nprocs):
        if r == rank:
            try:
                with open(path, "wb" if r == 0 else "ab") as fh:
                    fh.write(data)
            except OSError as e:
                problem = str(output_error(option, path, e))
        barrier()
    problem = agree(problem)
    if problem:
        raise OutputError(problem)


class Outputs:
    """The output phase of an app, entered on every rank (module docstring).
    Its end is collective: the ranks agree on the first write that failed
    (OSError) inside the block on any rank, and rank 0 says it."""

    def __init__(self, prog: str) -> None:
        self.prog = prog
        self.problem: Optional[str] = None

    def __enter__(self) -> "Outputs":
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> bool:
        if exc_type is not None and not issubclass(exc_type, OSError):
            return False        # a bug, not an output problem: the job ends as usual
        if isinstance(exc, OutputError):
            self.problem = str(exc)
        elif isinstance(exc, OSError):          # stdout, or a write of the app's own
            where = exc.filename if exc.filename is not None else "writing the output"
            self.problem = f"{where}: {exc.strerror or exc}"
        self.problem = agree(self.problem)
        if self.problem:
            say_error(self.prog, self.problem)
        return True

    def status(self, code: int) -> int:
        """The exit status: `code`, or 1 if an output failed."""
        return OUTPUT if self.problem else code


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
        refused = write_refused(path)
        if refused:
            return f"{option} {path}: {refused}"
    elif not os.access(parent, os.W_OK | os.X_OK):
        return f"{option} {path}: cannot create a file in {parent} (permission denied)"
    return None


def write_refused(path: str) -> Optional[str]:
    """Why a write of nothing to the existing file or device `path` fails
    (a full device such as /dev/full, a read-only file system), or None.
    It is opened without creating or truncating it, and left unchanged;
    pipes and sockets are not tried (opening one could wait for a reader)."""
    mode = os.stat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISCHR(mode)):
        return None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        return e.strerror or str(e)
    try:
        os.write(fd, b"")
    except OSError as e:
        return e.strerror or str(e)
    finally:
        os.close(fd)
    return None
