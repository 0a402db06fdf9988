"""Opening a station's pieces from command-line options: database, key, journal, table."""

from __future__ import annotations

import argparse
from pathlib import Path

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key, load_or_create_key

DEFAULT_TABLE = "T1"


def add_db_options(p: argparse.ArgumentParser, *, table: bool = True) -> None:
    """The options every command that touches the journal takes."""
    p.add_argument("--db", metavar="URL",
                   help="database URL (default: SQLite in the platform's data folder, or "
                        "$DEALER_STATION_DB)")
    p.add_argument("--key", metavar="FILE", type=Path,
                   help="journal key file (default: in the platform's config folder, or "
                        "$DEALER_STATION_KEY)")
    if table:
        p.add_argument("--table", metavar="T", default=None,
                       help=f"table id (default {DEFAULT_TABLE})")


def open_journal(db_url: str | None, key_path: Path | None, *, create_key: bool = True
                 ) -> Journal:
    """The journal on ``db_url`` under the key at ``key_path``.

    The embedded default creates its key on first use; an explicit key file must exist (the
    installer creates it), so a typo cannot start a second, unrelated chain.
    """
    key = (load_key(key_path) if key_path is not None and not create_key
           else load_or_create_key(key_path))
    return Journal(open_database(db_url), key)
