"""The game registry's rule: outside the registry and a game's own modules, no code tests a
game's name (docs/architecture.md). It asks ``dealer_station.registry`` instead.

A game's own modules are those of its package (``dealer_station/games/lapaire/``). Everywhere
else, these are
branches on a game and are refused: comparing with a game's name or with a module's
``GAME``, a dict keyed by game names (a dispatch table), and ``isinstance`` against one
game's table class.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dealer_station import registry as games

PACKAGE = Path(games.__file__).resolve().parent
TABLE_CLASSES = {"LaPaireTable", "BourreTable"}


def _own(path: Path) -> bool:
    """The registry, or a game's package (``dealer_station/games/<game>/``)."""
    return (path.name == "registry.py"
            or any(path.resolve().is_relative_to(PACKAGE / "games" / name)
                   for name in games.names()))


def _is_game_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and node.value in games.REGISTRY:
        return True
    if isinstance(node, ast.Name | ast.Attribute):
        return (node.id if isinstance(node, ast.Name) else node.attr) == "GAME"
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_game_name(e) for e in node.elts)
    return False


def branches(source: str) -> list[tuple[int, str]]:
    """Where ``source`` branches on a game: (line, what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(_is_game_name(n) for n in (node.left, *node.comparators)):
                found.append((node.lineno, "compares with a game's name"))
        elif isinstance(node, ast.Dict):
            if any(k is not None and _is_game_name(k) for k in node.keys):
                found.append((node.lineno, "a table keyed by game names"))
        elif isinstance(node, ast.MatchValue) and _is_game_name(node.value):
            found.append((node.lineno, "a case on a game's name"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "isinstance" and len(node.args) == 2):
            kinds = node.args[1]
            names = {e.id for e in (kinds.elts if isinstance(kinds, ast.Tuple) else [kinds])
                     if isinstance(e, ast.Name)}
            if names & TABLE_CLASSES:
                found.append((node.lineno, "isinstance against one game's table"))
    return found


def test_no_code_outside_the_registry_branches_on_a_game() -> None:
    offenders = []
    checked = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        if _own(path):
            continue
        checked += 1
        for line, what in branches(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {what}")
    assert checked > 60
    assert offenders == []


@pytest.mark.parametrize("source", [
    'if game == "lapaire": pass',
    'if r.get("game") != "bourre": pass',
    'x = "bourre" in data.games',
    'if info.game == GAME: pass',
    'SCENES = {"lapaire": 1, "bourre": 2}',
    'match game:\n    case "bourre": pass',
    'isinstance(table, (LaPaireTable, Other))',
    'if args.game in ("lapaire", "bourre"): pass',
])
def test_the_rule_catches_each_kind_of_branch(source: str) -> None:
    assert branches(source), source


def test_a_game_passed_along_is_no_branch() -> None:
    assert branches('open_station(journal, game="bourre")\nname = games.game(g).label') == []


KEY_MODULES = ("dealer_station.table.parts", "dealer_station.reports.parts",
               "dealer_station.ui.parts", "dealer_station.cli._parts",
               "dealer_station.events.parts", "dealer_station.tournament.engines")


def part_keys() -> dict[str, tuple[games.Part[object], type]]:
    """Every ``Part`` key the layers declare, by name (each declared once), with the
    Protocol it is typed by (its annotation, ``Part[Protocol]``)."""
    import importlib
    import typing

    keys: dict[str, tuple[games.Part[object], type]] = {}
    for name in KEY_MODULES:
        module = importlib.import_module(name)
        hints = typing.get_type_hints(module)
        for var, value in vars(module).items():
            if isinstance(value, games.Part):
                assert value.name not in keys, f"{value.name} is declared twice"
                (proto,) = typing.get_args(hints[var])
                keys[value.name] = (value, proto)
    return keys


def misfits(impl: object, proto: type) -> list[str]:
    """How ``impl``'s signature fails to take every call the Protocol allows: positional
    arguments by position, keyword-only ones by name; a default in the Protocol needs one in
    ``impl``; a parameter ``impl`` adds needs a default."""
    import inspect

    want = list(inspect.signature(proto.__call__).parameters.values())[1:]   # not self
    have = list(inspect.signature(impl).parameters.values())   # type: ignore[arg-type]
    positional = [p for p in have if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    by_name = {p.name: p for p in have if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    problems, used = [], set()
    for i, w in enumerate(p for p in want if p.kind is p.POSITIONAL_ONLY):
        if i >= len(positional):
            problems.append(f"takes no positional argument {i + 1} ({w.name})")
            continue
        used.add(positional[i].name)
        if w.default is not w.empty and positional[i].default is positional[i].empty:
            problems.append(f"{positional[i].name} needs a default")
    for w in (p for p in want if p.kind is p.KEYWORD_ONLY):
        found = by_name.get(w.name)
        if found is None:
            problems.append(f"takes no keyword {w.name}")
            continue
        used.add(found.name)
        if w.default is not w.empty and found.default is found.empty:
            problems.append(f"{w.name} needs a default")
    for extra in have:
        if (extra.name not in used and extra.default is extra.empty
                and extra.kind not in (extra.VAR_POSITIONAL, extra.VAR_KEYWORD)):
            problems.append(f"its own {extra.name} has no default")
    return problems


def test_every_part_name_has_one_typed_key() -> None:
    assert set(part_keys()) == set(games.PARTS)


def test_every_game_has_its_parts_and_each_takes_the_calls_its_key_allows() -> None:
    keys = part_keys()
    for g in games.REGISTRY.values():
        named = dict(g.parts).keys()
        for name, (key, proto) in keys.items():
            if not key.optional:
                assert name in named, f"{g.name} lacks the required part {name}"
            impl = g.supplies(key)
            if impl is not None:
                assert misfits(impl, proto) == [], (g.name, name, misfits(impl, proto))
        assert g.deck.size == len(g.deck.cards())


def test_the_signature_check_catches_a_part_that_does_not_fit() -> None:
    from typing import Protocol

    class Takes(Protocol):
        def __call__(self, a: int, /, *, b: str = "", c: int) -> None: ...

    def fits(x: int, *, b: str = "x", c: int, extra: int = 0) -> None: ...
    def no_b(x: int, *, c: int) -> None: ...
    def no_default(x: int, *, b: str, c: int) -> None: ...
    def wants_more(x: int, y: int, *, b: str = "", c: int) -> None: ...
    def nothing() -> None: ...

    assert misfits(fits, Takes) == []
    assert misfits(no_b, Takes) == ["takes no keyword b"]
    assert misfits(no_default, Takes) == ["b needs a default"]
    assert misfits(wants_more, Takes) == ["its own y has no default"]
    assert misfits(nothing, Takes) == ["takes no positional argument 1 (a)", "takes no keyword b",
                                       "takes no keyword c"]


def test_a_game_without_an_optional_part_supplies_none_and_a_required_one_is_named() -> None:
    from dealer_station.errors import StationError
    from dealer_station.table.parts import TABLE, WINS

    bourre = games.game("bourre")
    assert bourre.supplies(WINS) is None
    with pytest.raises(StationError, match="Bourré has no 'wins' part"):
        bourre.part(WINS)
    assert callable(bourre.part(TABLE))
    with pytest.raises(ValueError, match="unknown game part 'tabel'"):
        games.Part("tabel")


def test_an_unknown_game_is_refused_by_name() -> None:
    from dealer_station.errors import StationError

    with pytest.raises(StationError, match=r"unknown game 'poker': this station plays "
                                           r"lapaire \(La Pair'e\), bourre \(Bourré\)"):
        games.game("poker")
    assert games.label("poker") == "poker"


@pytest.mark.parametrize(("argv", "said"), [
    (["--game", "bourre", "--gaming-days", "1"],
     "--gaming-days simulates a banked table's chip tray; Bourré has none"),
    (["--game", "lapaire", "--profile", "cash"],
     "--profile: La Pair'e has no rule profiles to choose from"),
])
def test_a_capability_the_game_lacks_is_refused_by_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    from dealer_station.cli.main import main

    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]
    assert main(["simulate", "--rounds", "1", *argv, *store]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err, err


def test_no_two_games_share_a_file_or_an_option() -> None:
    """``settle`` takes every game's file by its own option, and the configuration folder
    holds each game's file by name: two games with one would collide (a third game's entry
    once did, on ``--config``)."""
    entries = list(games.REGISTRY.values())
    for attr in ("name", "label", "config_file", "config_option"):
        values = [getattr(g, attr) for g in entries]
        assert len(set(values)) == len(values), (attr, values)
