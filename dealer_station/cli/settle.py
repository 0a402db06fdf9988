"""``dealer-station settle``: settle rounds given as JSON Lines on stdin.

One JSON line out per line in, in order. A line that is not JSON, not an object, names an
unknown game, or holds a round that cannot be settled gives an error line
(``{"round_id": ..., "error": ...}``) and the command goes on; the exit status is 1 if any line
failed, 0 otherwise. La Pair'e rounds use ``--config``; Bourré rounds (``"game": "bourre"``) use
the profiles of ``--bourre-config``, loaded only when a Bourré line appears.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

Settler = Callable[[dict[str, Any]], dict[str, Any]]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "settle", help="settle rounds read as JSON Lines on stdin, one result line per line",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="the La Pair'e table file (default: config/lapaire.toml)")
    p.add_argument("--bourre-config", type=Path, metavar="FILE",
                   help="the Bourré rule profiles (default: config/bourre.toml)")
    p.set_defaults(func=run)


class _Dispatcher:
    """Finds the settler for each record's game, loading Bourré support only on first use."""

    def __init__(self, lapaire_config: Path | None, bourre_config: Path | None) -> None:
        from dealer_station.gameconfig import load_lapaire_config
        from dealer_station.settlement.lapaire_json import settle_lapaire_record

        config = load_lapaire_config(lapaire_config)  # a bad table file stops the command
        self._lapaire: Settler = lambda record: settle_lapaire_record(record, config)
        self._bourre_path = bourre_config
        self._bourre: Settler | None = None
        self._bourre_error: str | None = None

    def _load_bourre(self) -> None:
        from dealer_station.errors import StationError

        try:
            from dealer_station.gameconfig import load_bourre_profiles
            from dealer_station.settlement.bourre_json import settle_bourre_record

            profiles = load_bourre_profiles(self._bourre_path)
        except ImportError:
            self._bourre_error = "Bourré settlement is not available in this installation"
            return
        except StationError as exc:
            self._bourre_error = f"Bourré profiles cannot be loaded: {exc}"
            return
        self._bourre = lambda record: settle_bourre_record(record, profiles)

    def settle(self, record: dict[str, Any]) -> dict[str, Any]:
        game = record.get("game")
        if game == "lapaire":
            return self._lapaire(record)
        if game == "bourre":
            if self._bourre is None and self._bourre_error is None:
                self._load_bourre()
            if self._bourre is None:
                return _error(record, "hand_id", self._bourre_error or "")
            try:
                return self._bourre(record)
            except Exception as exc:  # one answer per line, even if that module has a defect
                return _error(record, "hand_id", f"internal error settling this hand: {exc!r}")
        if game is None:
            return _error(record, "round_id", '"game" is missing: say "lapaire" or "bourre"')
        return _error(record, "round_id",
                      f'unknown game {game!r}: this settles "lapaire" and "bourre" rounds')


def _error(record: dict[str, Any], id_key: str, message: str) -> dict[str, Any]:
    """An error line carrying the record's own id (La Pair'e rounds have ``round_id``, Bourré
    hands ``hand_id``), so a reader can match it to its input."""
    return {id_key: record.get(id_key), "error": message}


def _no_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity, which are not JSON and could not be echoed back.
    raise ValueError(f"{name} is not a JSON value")


def settle_stream(lines: TextIO, out: TextIO, dispatcher: _Dispatcher) -> int:
    """Settle every line of ``lines`` onto ``out``; return how many lines failed."""
    failed = 0
    for number, line in enumerate(lines, start=1):
        answer: dict[str, Any]
        text = line.rstrip("\r\n")
        why = None
        try:
            record = json.loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            why = "empty line" if not text.strip() else f"{exc.msg} at column {exc.colno}"
        except ValueError as exc:
            why = str(exc)
        except RecursionError:
            why = "nested too deeply"
        if why is not None:
            answer = {"round_id": None, "line": number,
                      "error": f"line {number}: not valid JSON ({why})"}
        elif isinstance(record, dict):
            answer = dispatcher.settle(record)
        else:
            answer = {"round_id": None, "line": number,
                      "error": f"line {number}: a round must be a JSON object, got "
                               f"{type(record).__name__}"}
        if "error" in answer:
            failed += 1
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()  # a driving program may wait for each answer before sending the next round
    return failed


def run(args: argparse.Namespace) -> int:
    dispatcher = _Dispatcher(args.config, args.bourre_config)
    # JSON is UTF-8; bytes that are not become U+FFFD instead of stopping the whole stream.
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    failed = settle_stream(sys.stdin, sys.stdout, dispatcher)
    return 1 if failed else 0
