"""Entry point: one sub-command per module in this package.

Each module (except this one and those starting with ``_``) offers ``register(subparsers)``,
which adds its parser and sets ``func`` via ``set_defaults(func=...)``; ``func`` takes the parsed
namespace and returns the exit status. Modules keep heavy imports (Qt, SQLAlchemy) inside
``func`` so that ``--help`` and the light commands start fast.

Whatever a command meets, a person gets one line, never a traceback: a StationError (bad input,
config, device data) and a journal database that cannot be read (a missing table, a damaged
file, a record that is not JSON) are both ``dealer-station CMD: error: ...`` with exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Sequence

from dealer_station import __version__
from dealer_station.cards import CardError
from dealer_station.errors import StationError

#: Commands that read the journal back (and re-settle what it holds). A damaged record can be
#: valid JSON of the wrong shape, which the readers meet as a KeyError or TypeError; for these
#: commands such a failure is reported as a journal that cannot be read, like a damaged file.
JOURNAL_READERS = frozenset({"audit", "recall", "report"})
#: Set to 1 to see the traceback of a failure reported as a journal that cannot be read.
DEBUG_ENV = "DEALER_STATION_DEBUG"
#: What a record of the wrong shape raises in the code that reads it (never OSError: a PDF
#: that cannot be written is not the journal's fault).
_SHAPE_ERRORS = (LookupError, TypeError, AttributeError, ValueError, ArithmeticError,
                 AssertionError, RecursionError)

#: Exit status when the reader of our standard output went away (``audit replay | head``):
#: 128 + SIGPIPE, what the shell reports for any program stopped by a closed pipe, so that
#: ``set -o pipefail`` scripts still see it, while nothing is printed.
EXIT_BROKEN_PIPE = 141


def command_modules() -> list[str]:
    """Sub-command modules (full names), discovered so that adding a command touches no shared
    file: the station's own in ``dealer_station.cli``, and a game's in its package's ``cli``
    (``dealer_station.games.<game>.cli``). A module whose name starts with ``_`` serves the
    commands and is not one."""
    import dealer_station.cli as package
    import dealer_station.games as games

    found = [f"dealer_station.cli.{info.name}"
             for info in pkgutil.iter_modules(package.__path__)
             if info.name != "main" and not info.name.startswith("_")]
    for game in pkgutil.iter_modules(games.__path__):
        if not game.ispkg:
            continue
        cli = importlib.util.find_spec(f"dealer_station.games.{game.name}.cli")
        if cli is None or not cli.submodule_search_locations:
            continue
        found += [f"dealer_station.games.{game.name}.cli.{info.name}"
                  for info in pkgutil.iter_modules(cli.submodule_search_locations)
                  if not info.name.startswith("_")]
    return sorted(found, key=lambda name: name.rpartition(".")[2])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealer-station",
        description="Dealer Station: La Pair'e and Bourré table settlement, devices and journal.",
    )
    parser.add_argument("--version", action="version", version=f"dealer-station {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(name).register(sub)
    return parser


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def database_failure(exc: BaseException, *, reading: bool = False) -> str | None:
    """The one-line reason when ``exc`` says the journal database cannot be read, else None.
    ``reading``: the command reads records back, so a record of the wrong shape counts too.

    Only the libraries a command has already imported are consulted, so a command that never
    touched a database pays nothing for this.
    """
    sa_exc = sys.modules.get("sqlalchemy.exc")
    if sa_exc is not None:
        if isinstance(exc, sa_exc.DBAPIError):
            orig = exc.orig
            reason = _one_line(str(orig)) if orig is not None else ""
            return reason or _one_line(str(exc)) or type(exc).__name__
        if isinstance(exc, sa_exc.SQLAlchemyError):
            return _one_line(str(exc)) or type(exc).__name__
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is not None and isinstance(exc, sqlite3.Error):
        return _one_line(str(exc)) or type(exc).__name__
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(exc, psycopg.Error):
        return _one_line(str(exc)) or type(exc).__name__
    import json

    if isinstance(exc, json.JSONDecodeError):
        # A record's payload that is not JSON. (The journal's reader does not yet say which
        # record; ``audit verify`` names it.)
        return f"a record's payload is not JSON ({exc.msg} at column {exc.colno})"
    if isinstance(exc, UnicodeDecodeError):
        return f"a record holds bytes that are not UTF-8 text ({exc.reason})"
    if reading and isinstance(exc, _SHAPE_ERRORS):
        detail = _one_line(str(exc))
        return (f"a record is not in the form this station writes ({type(exc).__name__}"
                f"{': ' + detail if detail else ''}); `dealer-station audit verify` names a "
                f"damaged record, and if the journal verifies, please report this as a defect")
    return None


def _database_shown(args: argparse.Namespace) -> str:
    """The journal database a command was pointed at, any password masked."""
    try:
        from dealer_station.audit.db import default_db_url, mask_url

        return mask_url(args.db or default_db_url())
    except Exception:  # only for the message: never fail while reporting a failure
        return str(args.db or "(the default journal database)")


def _quiet_stdout() -> None:
    """Point standard output at the null device so that the interpreter's last flush of
    whatever is still buffered cannot raise again on the closed pipe."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (captured in-process): nothing will be flushed to a pipe
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        status = int(func(args))
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at exit
        return status
    except (StationError, CardError) as exc:
        print(f"dealer-station {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped (`... | head`): not an error of ours, so no message; see
        # EXIT_BROKEN_PIPE for the status.
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        reason = None
        if hasattr(args, "db") and os.environ.get(DEBUG_ENV) != "1":
            reason = database_failure(exc, reading=args.command in JOURNAL_READERS)
        if reason is None:
            raise
        print(f"dealer-station {args.command}: error: the journal database "
              f"{_database_shown(args)} cannot be read: {reason}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
