"""The pure packages import no Qt, database, serial or PDF library.

import-linter enforces this statically in scripts/test.sh; this test proves it at run time
too, in a fresh interpreter, so an import hidden behind a function call is caught when it runs.
"""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("PySide6", "sqlalchemy", "alembic", "serial", "reportlab", "psycopg")
PURE_MODULES = ["dealer_station.cards", "dealer_station.settlement", "dealer_station.tomlconfig"]


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
