"""The game registry's rule: outside the registry and a game's own modules, no code tests a
game's name (docs/architecture.md). It asks ``dealer_station.games`` instead.

A game's own modules are those whose file name holds the game's name (``lapaire_table.py``,
``_bourre_text.py``). Everywhere else, these are branches on a game and are refused:
comparing with a game's name or with a module's ``GAME``, a dict keyed by game names (a
dispatch table), and ``isinstance`` against one game's table class.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dealer_station import games

PACKAGE = Path(games.__file__).resolve().parent
TABLE_CLASSES = {"LaPaireTable", "BourreTable"}


def _own(path: Path) -> bool:
    return path.name == "games.py" or any(name in path.stem for name in games.names())


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


def test_every_game_has_every_part_and_each_loads() -> None:
    for g in games.REGISTRY.values():
        assert dict(g.parts).keys() == set(games.PARTS), g.name
        for part in games.PARTS:
            assert callable(g.part(part)), (g.name, part)
        assert g.deck.size == len(g.deck.cards())


def test_an_unknown_game_is_refused_by_name() -> None:
    from dealer_station.errors import StationError

    with pytest.raises(StationError, match=r"unknown game 'poker': this station plays "
                                           r"lapaire \(La Pair'e\), bourre \(Bourré\)"):
        games.game("poker")
    assert games.label("poker") == "poker"
