"""How far the code is from its architecture (docs/architecture.md), read from the source
(run: python3 scripts/architecture_measures.py):

- a record's kind compared with a kind's name (or a ``*KINDS`` constant) outside ``events/``;
- raw ``payload[...]`` reads outside ``events/``;
- ``Any`` in the game registry (``registry.py``);
- modules over 800 lines;
- generic modules importing a game's own module (one of its package, ``games/<game>/``, or
  one whose file name holds a game's name).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "dealer_station"
GAMES = ("lapaire", "bourre")


def record_kinds() -> set[str]:
    """Every record kind the typed events declare, and those the journal names itself."""
    kinds = {"round.open", "hand.open", "round.close", "hand.close", "void", "card", "halt",
             "resolve", "startup", "shutdown", "verify", "recovery"}
    for module in [*(ROOT / "events").glob("*.py"), *(ROOT / "games").glob("*/events.py")]:
        kinds |= set(re.findall(r'KIND = "([^"]+)"', module.read_text(encoding="utf-8")))
    return kinds


def main() -> int:
    kinds = record_kinds()

    def names_a_kind(n: ast.AST) -> bool:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            return n.value in kinds
        if isinstance(n, ast.Tuple | ast.List | ast.Set):
            return any(names_a_kind(e) for e in n.elts)
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
        return name.isupper() and "KIND" in name

    def is_kind(n: ast.AST) -> bool:
        return (isinstance(n, ast.Attribute) and n.attr == "kind") or (
            isinstance(n, ast.Name) and n.id == "kind")

    comparisons: dict[str, int] = {}
    payload_reads = 0
    big: list[str] = []
    game_imports: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent)
        source = path.read_text(encoding="utf-8")
        if len(source.splitlines()) > 800:
            big.append(str(rel))
        # A game's own events module is one of the typed events' modules.
        in_events = rel.parts[1] == "events" or (rel.parts[1] == "games"
                                                 and path.name == "events.py")
        # The registry, a game's package, or a shared module named for one game.
        own = (path.name == "registry.py" or rel.parts[1] == "games"
               or any(g in path.stem for g in GAMES))
        for n in ast.walk(ast.parse(source)):
            if not in_events and isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
                if any(is_kind(s) for s in sides) and any(names_a_kind(s) for s in sides):
                    comparisons[str(rel)] = comparisons.get(str(rel), 0) + 1
            if not in_events and isinstance(n, ast.Subscript):
                v = n.value
                if (isinstance(v, ast.Attribute) and v.attr == "payload") or (
                        isinstance(v, ast.Name) and v.id == "payload"):
                    payload_reads += 1
            if not own and isinstance(n, ast.Import | ast.ImportFrom):
                modules = ([a.name for a in n.names] if isinstance(n, ast.Import)
                           else [n.module or ""])
                game_imports += [f"{rel}: {m}" for m in modules if m.startswith(
                    "dealer_station") and any(m.startswith(f"dealer_station.games.{g}")
                                              or g in m.rsplit(".", 1)[-1] for g in GAMES)]
    registry = ast.parse((ROOT / "registry.py").read_text(encoding="utf-8"))
    anys = sum(isinstance(n, ast.Name) and n.id == "Any" for n in ast.walk(registry))
    print(f"record kinds compared by name outside events/: {sum(comparisons.values())}")
    for where, count in sorted(comparisons.items(), key=lambda x: -x[1]):
        print(f"  {count:3d} {where}")
    print(f"payload[...] reads outside events/: {payload_reads}")
    print(f"Any in the registry: {anys}")
    print(f"modules over 800 lines: {len(big)} {big}")
    print(f"generic modules importing a game's module: {len(game_imports)}")
    for line in game_imports:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
