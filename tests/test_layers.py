"""The pure packages import no Qt, database, serial or PDF library.

import-linter enforces this statically in scripts/test.sh; this test proves it at run time
too, in a fresh interpreter, so an import hidden behind a function call is caught when it runs.
"""

from __future__ import annotations

import subprocess
import sys
from typing import ClassVar

FORBIDDEN = ("PySide6", "sqlalchemy", "alembic", "serial", "reportlab", "psycopg")
PURE_MODULES = ["dealer_station.cards", "dealer_station.games.lapaire.rules",
                "dealer_station.games.lapaire.events", "dealer_station.games.bourre.rules",
                "dealer_station.games.bourre.events", "dealer_station.tomlconfig",
                "dealer_station.money"]


def test_pure_packages_load_no_forbidden_library() -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        f"for name in {PURE_MODULES!r}:\n"
        "    mod = importlib.import_module(name)\n"
        "    for info in pkgutil.walk_packages(getattr(mod, '__path__', []), name + '.'):\n"
        "        importlib.import_module(info.name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _cycles(graph: object, modules: set[str]) -> list[list[str]]:
    """The import cycles among ``modules`` (Tarjan's strongly connected components)."""
    imported_by: dict[str, set[str]] = {
        m: graph.find_modules_directly_imported_by(m) & modules  # type: ignore[attr-defined]
        for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in imported_by[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return found


def test_the_package_has_no_import_cycle() -> None:
    """Counting the imports inside functions too: a module never needs one that needs it."""
    import grimp

    graph = grimp.build_graph("dealer_station", exclude_type_checking_imports=True)
    assert _cycles(graph, set(graph.modules)) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    class Graph:
        edges: ClassVar[dict[str, set[str]]] = {"a": {"b"}, "b": {"c"}, "c": {"a"},
                                                "d": {"a"}}

        def find_modules_directly_imported_by(self, m: str) -> set[str]:
            return self.edges[m]

    assert _cycles(Graph(), {"a", "b", "c", "d"}) == [["a", "b", "c"]]
