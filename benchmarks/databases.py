"""Run a benchmark on SQLite, on a throwaway PostgreSQL cluster, or both."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from dealer_station.audit.pgcluster import MISSING_MESSAGE, PgCluster, find_bindir

BACKENDS = ("sqlite", "postgresql", "both")


def on_databases(backend: str, bench: Callable[[str, Path, str], None]) -> None:
    """Call ``bench(url, scratch_dir, label)`` for each database ``backend`` names."""
    with tempfile.TemporaryDirectory(prefix="ds-bench-") as tmp:
        root = Path(tmp)
        if backend in ("sqlite", "both"):
            bench(f"sqlite:///{root / 'journal.db'}", root, "sqlite")
        if backend in ("postgresql", "both"):
            bindir = find_bindir()
            if bindir is None:
                print(f"postgresql: skipped: {MISSING_MESSAGE}", file=sys.stderr)
                return
            with PgCluster(bindir, durable=True) as cluster:
                bench(cluster.create_database("bench"), root, "postgresql")
