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
import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

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

    module: ModuleType | None = None

    def holds_a_kind(value: object) -> bool:
        if isinstance(value, str):
            return value in kinds
        if isinstance(value, tuple | list | set | frozenset):
            return any(isinstance(v, str) and v in kinds for v in value)
        return False

    def names_a_kind(n: ast.AST) -> bool:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            return n.value in kinds
        if isinstance(n, ast.Tuple | ast.List | ast.Set):
            return any(names_a_kind(e) for e in n.elts)
        if isinstance(n, ast.Attribute) and n.attr == "KIND":
            return True                    # an event class's own kind
        # A module's constant counts by what it holds: a set of record kinds does, a set of
        # wager kinds or report names (SPOT_KINDS, JSON_KINDS) does not.
        if isinstance(n, ast.Name) and n.id.isupper() and "KIND" in n.id:
            found = getattr(module, n.id, None) if module is not None else None
            return found is None or holds_a_kind(found)
        return False

    def is_kind(n: ast.AST) -> bool:
        if isinstance(n, ast.Attribute) and n.attr == "kind":
            # A SQL filter on the journal's kind column (``J.c.kind == X.KIND``) selects rows
            # by what an event class declares; it branches on nothing in Python.
            return not (isinstance(n.value, ast.Attribute) and n.value.attr == "c")
        return isinstance(n, ast.Name) and n.id == "kind"

    comparisons: dict[str, int] = {}
    payload_reads = 0
    read_at: dict[str, int] = {}
    # The journal's methods that station code writes records through (outside the chain's
    # own modules): one way in is {"write"}.
    write_paths: set[str] = set()
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
        name = ".".join(rel.with_suffix("").parts)
        try:    # (not __main__, which would run the command line)
            module = (None if name.endswith("__main__")
                      else importlib.import_module(name.removesuffix(".__init__")))
        except Exception:           # one that will not import: its names judged by shape
            module = None
        tree = ast.parse(source)
        # A payload held under another name (``p = rec.payload``) and read through it.
        aliases = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
                   and isinstance(n.value, ast.Attribute) and n.value.attr == "payload"
                   for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(tree):
            if not in_events and isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
                if any(is_kind(s) for s in sides) and any(names_a_kind(s) for s in sides):
                    comparisons[str(rel)] = comparisons.get(str(rel), 0) + 1
            if not in_events and isinstance(n, ast.Subscript):
                v = n.value
                if (isinstance(v, ast.Attribute) and v.attr == "payload") or (
                        isinstance(v, ast.Name) and (v.id == "payload" or v.id in aliases)):
                    payload_reads += 1
                    read_at[str(rel)] = read_at.get(str(rel), 0) + 1
            # ``rec.payload.get("x")`` is the same raw read.
            if (not in_events and isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "get" and (
                        (isinstance(n.func.value, ast.Attribute)
                         and n.func.value.attr == "payload")
                        or (isinstance(n.func.value, ast.Name)
                            and n.func.value.id in aliases))):
                payload_reads += 1
                read_at[str(rel)] = read_at.get(str(rel), 0) + 1
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and n.func.attr in ("write", "append", "append_many")
                    and not (rel.parts[1] == "audit" and path.name.startswith("journal"))):
                r = n.func.value
                name = r.attr if isinstance(r, ast.Attribute) else getattr(r, "id", "")
                if name.endswith("journal"):
                    write_paths.add(f"Journal.{n.func.attr}")
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
    print(f"payload[...] and payload.get() reads outside events/: {payload_reads}")
    for where, count in sorted(read_at.items(), key=lambda x: -x[1]):
        print(f"  {count:3d} {where}")
    print(f"write paths (the journal's methods station code writes through): "
          f"{len(write_paths)} {sorted(write_paths)}")
    print(f"Any in the registry: {anys}")
    print(f"modules over 800 lines: {len(big)} {big}")
    print(f"generic modules importing a game's module: {len(game_imports)}")
    for line in game_imports:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
