"""python -m pybcl --info: print pybcl.info() (rank 0 only under mpiexec);
python -m pybcl --version: print the version (no MPI job needed)."""
import argparse
import json
from typing import Optional, Sequence

from . import _core, _info


def _version() -> str:
    from . import __version__
    return __version__


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pybcl",
                                     description="pybcl: the Berkeley Container Library for Python")
    parser.add_argument("--info", action="store_true",
                        help="print version, MPI library, transport, wait policy, ... "
                             "(paste it into bug reports)")
    parser.add_argument("--json", action="store_true", help="with --info: as JSON")
    parser.add_argument("--version", action="version", version=f"pybcl {_version()}")
    args = parser.parse_args(argv)
    if not args.info:
        parser.print_help()
        return 0
    d = _info.info()
    if _core.rank() == 0:
        print(json.dumps(d, indent=2) if args.json else _info.format_info(d), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
