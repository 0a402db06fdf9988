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
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from dealer_station import registry as games
from dealer_station.cli._parts import SETTLER
from dealer_station.errors import StationError

Settler = Callable[[dict[str, Any]], dict[str, Any]]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "settle", help="settle rounds read as JSON Lines on stdin, one result line per line",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    for g in games.REGISTRY.values():
        p.add_argument(g.config_option, type=Path, metavar="FILE", dest=f"config_{g.name}",
                       help=f"the {g.label} {g.config_noun} (default: config/{g.config_file})")
    p.set_defaults(func=run)


class _Dispatcher:
    """Finds the settler for each record's game (the registry's ``settler`` part). A game
    whose configuration is ``settle_loads_at_start`` is loaded now (a bad file stops the
    command); any other only when its first line appears, and a file it cannot load is then
    answered on each of its lines."""

    def __init__(self, config_paths: dict[str, Path | None]) -> None:
        self._paths = config_paths
        self._settlers: dict[str, Settler] = {}
        self._errors: dict[str, str] = {}
        for g in games.REGISTRY.values():
            if g.settle_loads_at_start:
                self._settlers[g.name] = g.part(SETTLER)(config_paths.get(g.name))

    def _load(self, g: games.Game) -> None:
        try:
            self._settlers[g.name] = g.part(SETTLER)(self._paths.get(g.name))
        except ImportError:
            self._errors[g.name] = f"{g.label} settlement is not available in this installation"
        except StationError as exc:
            self._errors[g.name] = f"{g.label} {g.config_noun} cannot be loaded: {exc}"

    def settle(self, record: dict[str, Any]) -> dict[str, Any]:
        name = record.get("game")
        g = games.REGISTRY.get(name) if isinstance(name, str) else None
        if g is None:
            said = " or ".join(f'"{n}"' for n in games.names())
            if name is None:
                return _error(record, "round_id", f'"game" is missing: say {said}')
            return _error(record, "round_id", f"unknown game {name!r}: this settles "
                                              f"{said.replace(' or ', ' and ')} rounds")
        if g.name not in self._settlers and g.name not in self._errors:
            self._load(g)
        settler = self._settlers.get(g.name)
        if settler is None:
            return _error(record, g.id_key, self._errors[g.name])
        try:
            return settler(record)
        except Exception as exc:  # one answer per line, even if that module has a defect
            return _error(record, g.id_key,
                          f"internal error settling this {g.unit}: {exc!r}")


def _error(record: dict[str, Any], id_key: str, message: str) -> dict[str, Any]:
    """An error line carrying the record's own id (La Pair'e rounds have ``round_id``, Bourré
    hands ``hand_id``), so a reader can match it to its input."""
    return {id_key: record.get(id_key), "error": message}


def _no_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity, which are not JSON and could not be echoed back.
    raise ValueError(f"{name} is not a JSON value")


class _Unreadable(ValueError):
    """A line that is JSON by its grammar but holds a value this command cannot take in and
    echo back as strict JSON (a number out of range, half of a UTF-16 surrogate pair)."""


#: Longest whole number read: Python's own limit on converting digits to an int.
MAX_INT_DIGITS = 4300


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: a double cannot hold it; echoed it would be Infinity
        raise _Unreadable(f"the number {_clip(text)} is out of range: a JSON number here must "
                          f"be less than about 1.8e308 in size")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise _Unreadable(f"a whole number of {digits} digits is too long: at most "
                          f"{MAX_INT_DIGITS} digits are read")
    return int(text)


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width] + "..."


#: A ``\uD800``-``\uDFFF`` escape or such a character: only then is a record searched.
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) in ``value`` holding a lone surrogate, else None.
    JSON's ``\\ud800`` escape parses to one, but it is not a character: it cannot be written
    as UTF-8, so it cannot be echoed back."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def read_line(text: str) -> Any:
    """One input line as JSON. Raises ValueError (``_Unreadable`` for a value out of range),
    json.JSONDecodeError or RecursionError."""
    record = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                        parse_int=_bounded_int)
    if _SURROGATE_HINT.search(text):
        bad = _lone_surrogate(record)
        if bad is not None:
            where = _SURROGATE.search(bad)
            assert where is not None
            code = f"\\u{ord(where.group()):04x}"
            raise _Unreadable(f"a string holds {code}, half of a UTF-16 surrogate pair, which "
                              f"is not a character")
    return record


#: Characters that JSON lets stand unescaped in a string but that many line readers (Python's
#: ``str.splitlines``, older JavaScript) take for a line break: always written escaped, so that
#: one answer is always one line.
_LINE_BREAKS = re.compile("[\x85\u2028\u2029]")


def encode_answer(answer: dict[str, Any], number: int) -> tuple[str, bool]:
    """``answer`` as one line of strict JSON (UTF-8, no NaN or Infinity), and whether it is an
    error line. An answer that cannot be written so becomes an error line for its input line."""
    try:
        text = json.dumps(answer, ensure_ascii=False, allow_nan=False)
        if _SURROGATE.search(text):
            raise ValueError("it holds half of a UTF-16 surrogate pair")
    except RecursionError:
        why = "it is nested too deeply"
    except (ValueError, TypeError) as exc:
        why = str(exc)
    else:
        if _LINE_BREAKS.search(text):
            text = _LINE_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        return text, "error" in answer
    fallback = {"round_id": None, "line": number,
                "error": f"line {number}: the answer cannot be written as JSON ({why})"}
    return json.dumps(fallback, ensure_ascii=False), True


def settle_stream(lines: TextIO, out: TextIO, dispatcher: _Dispatcher) -> int:
    """Settle every line of ``lines`` onto ``out``; return how many lines failed."""
    failed = 0
    for number, line in enumerate(lines, start=1):
        answer: dict[str, Any]
        text = line.rstrip("\r\n")
        why = None
        problem = "not valid JSON"
        try:
            record = read_line(text)
        except json.JSONDecodeError as exc:
            why = "empty line" if not text.strip() else f"{exc.msg} at column {exc.colno}"
        except _Unreadable as exc:
            problem, why = "cannot be read", str(exc)
        except ValueError as exc:
            why = str(exc)
        except RecursionError:
            why = "nested too deeply"
        if why is not None:
            answer = {"round_id": None, "line": number,
                      "error": f"line {number}: {problem} ({why})"}
        elif isinstance(record, dict):
            answer = dispatcher.settle(record)
        else:
            answer = {"round_id": None, "line": number,
                      "error": f"line {number}: a round must be a JSON object, got "
                               f"{type(record).__name__}"}
        encoded, is_error = encode_answer(answer, number)
        if is_error:
            failed += 1
        out.write(encoded + "\n")
        out.flush()  # a driving program may wait for each answer before sending the next round
    return failed


def run(args: argparse.Namespace) -> int:
    dispatcher = _Dispatcher({g: getattr(args, f"config_{g}") for g in games.names()})
    # JSON is UTF-8; bytes that are not become U+FFFD instead of stopping the whole stream.
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    failed = settle_stream(sys.stdin, sys.stdout, dispatcher)
    return 1 if failed else 0
