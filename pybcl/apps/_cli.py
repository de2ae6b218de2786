"""Command-line plumbing shared by the apps: one error line from rank 0.

Every rank parses the same argv and checks the same files, so they all reach
the same verdict; only rank 0 prints it (``prog: error: ...``) and every rank
exits with the same status: 2 for a usage error, 1 for an input error.  The
checks run before any MPI window or table is made, so a bad run costs
nothing.  Checks that could differ between ranks (files on different hosts)
are agreed on with one allgather, so no rank goes on alone.
"""
import argparse
import os
import sys

USAGE, INPUT = 2, 1


def world():
    """(rank, size, comm) of the job, without starting pybcl."""
    from mpi4py import MPI
    c = MPI.COMM_WORLD
    return c.Get_rank(), c.Get_size(), c


class InputError(ValueError):
    """Bad input found on some rank; raised on every rank with the same text."""


def say_error(prog, message, rank=None):
    if rank is None:
        rank = world()[0]
    if rank == 0:
        sys.stderr.write(f"{prog}: error: {message}\n")
        sys.stderr.flush()


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line from rank 0 and exit status 2."""

    def error(self, message):
        say_error(self.prog, message)
        # every rank parses the same argv: a collective exit, not the
        # one-rank sys.exit(n) that pybcl turns into MPI_Abort (docs/api.md)
        raise SystemExit(USAGE)


def agree(problem, comm=None):
    """Collective (over comm, default COMM_WORLD): the first rank's problem
    text (or None) on every rank."""
    everyone = (comm or world()[2]).allgather(problem)
    return next((p for p in everyone if p), None)


def input_file_problem(path):
    """Why `path` cannot be read as an input file, or None."""
    if not os.path.exists(path):
        return f"{path}: no such file"
    if os.path.isdir(path):
        return f"{path}: is a directory"
    if not os.access(path, os.R_OK):
        return f"{path}: permission denied"
    return None


def output_file_problem(option, path):
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
