"""Entry point: one sub-command per module in this package.

Each module (except this one and those starting with ``_``) offers ``register(subparsers)``,
which adds its parser and sets ``func`` via ``set_defaults(func=...)``; ``func`` takes the parsed
namespace and returns the exit status. Modules keep heavy imports (Qt, SQLAlchemy) inside
``func`` so that ``--help`` and the light commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from dealer_station import __version__
from dealer_station.cards import CardError
from dealer_station.errors import StationError


def command_modules() -> list[str]:
    """Sub-command module names, discovered so that adding a command touches no shared file."""
    import dealer_station.cli as package

    return sorted(
        info.name for info in pkgutil.iter_modules(package.__path__)
        if info.name != "main" and not info.name.startswith("_")
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealer-station",
        description="Dealer Station: La Pair'e and Bourré table settlement, devices and journal.",
    )
    parser.add_argument("--version", action="version", version=f"dealer-station {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
        module = importlib.import_module(f"dealer_station.cli.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args))
    except (StationError, CardError) as exc:
        print(f"dealer-station {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
