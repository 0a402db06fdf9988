"""``dealer-station pit``: the pit podium's window over the floor database.

It reads only the floor database (and the journal key, to verify the tables' chains and to
chain its own acknowledgements in the stream ``pit-NAME``). ``--alerts`` prints the open
alerts instead of opening the window (exit 0 when none are open, 1 when some are);
``--screenshots DIR`` writes the window's screenshots from a throwaway demo pit. With
``--alerts``, the floor's server (primary or standby, and how far behind) is said on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("pit", help="the pit podium: tables, alerts, drill-down (floor database)",
                       description=__doc__)
    p.add_argument("--floor", metavar="URL",
                   help="the floor's PostgreSQL database, e.g. "
                        "postgresql+psycopg://pit@floor-host/floor (required unless "
                        "--screenshots)")
    p.add_argument("--key", metavar="FILE",
                   help="the tables' journal key file (default: $DEALER_STATION_KEY or "
                        "journal.key in the station's config folder)")
    p.add_argument("--pit", default="main", metavar="NAME",
                   help="this pit's name; its acknowledgements are chained as pit-NAME "
                        "(default: main)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--group", metavar="NAME",
                       help="watch only this floor group's tables (see floor groups); "
                            "default: every table of the floor")
    which.add_argument("--tables", metavar="T1,T2",
                       help="watch only these tables, comma-separated")
    p.add_argument("--config", metavar="FILE",
                   help="the alert thresholds (TOML, a [pit] table; see docs/pit.md)")
    p.add_argument("--reports", metavar="DIR",
                   help="where the drill-down's PDF reports are saved (default: ~/pit-reports)")
    p.add_argument("--printer", metavar="QUEUE", help="print the reports on this CUPS queue")
    p.add_argument("--fullscreen", action="store_true", help="fill the screen")
    p.add_argument("--alerts", action="store_true",
                   help="print the open alerts (id, time, table, alert, what) and exit")
    p.add_argument("--exit-after", type=float, metavar="SECONDS", help=argparse.SUPPRESS)
    p.add_argument("--screenshots", metavar="DIR",
                   help="write pit-*.png screenshots of the window from a demo pit (needs the "
                        "PostgreSQL server binaries) and exit")
    p.set_defaults(func=run_pit)


def run_pit(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError

    if args.screenshots:
        from dealer_station.ui.pit_screenshots import pit_screenshots

        for path in pit_screenshots(Path(args.screenshots)):
            print(path)
        return 0
    if not args.floor:
        raise StationError("give the floor database with --floor URL")

    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import default_key_path, load_key
    from dealer_station.floor.alerts import Pit, alert_lines, load_settings
    from dealer_station.floor.server import server_words

    settings = load_settings(args.config)
    key = load_key(Path(args.key) if args.key else default_key_path())
    floor = open_database(args.floor, upgrade=False)
    try:
        journal = Journal(floor, key)
        pit = Pit(journal, args.pit, settings, tables=_pit_tables(journal, args))
        if args.alerts:
            view = pit.view()
            if view.server is not None:     # the server read, for the person at the terminal
                print(server_words(view.server), file=sys.stderr)
            for line in alert_lines(view.alerts):
                print(line)
            for problem in view.problems:
                print(f"problem: {problem}")
            return 1 if view.alerts else 0
        return _window(pit, args)
    finally:
        floor.close()


def _pit_tables(journal: object, args: argparse.Namespace) -> list[str] | None:
    """The tables this pit watches: a floor group's, a list, or None for the whole floor."""
    from dealer_station.audit.journal import Journal
    from dealer_station.errors import StationError
    from dealer_station.floor.central import Floor

    assert isinstance(journal, Journal)
    if args.tables:
        tables = [t.strip() for t in args.tables.split(",") if t.strip()]
        if not tables:
            raise StationError("--tables: give at least one table, e.g. --tables T1,T2")
        return tables
    if args.group:
        groups = Floor(journal).groups()
        group = groups.get(args.group)
        if group is None:
            raise StationError(f"the floor has no group {args.group!r}"
                               + (f" (groups: {', '.join(sorted(groups))})" if groups
                                  else "; define one with dealer-station floor groups "
                                       "--define"))
        return list(group.tables)
    return None


def _window(pit: object, args: argparse.Namespace) -> int:
    from dealer_station.floor.alerts import Pit
    from dealer_station.ui.app import run_window
    from dealer_station.ui.pit_window import PitWindow

    assert isinstance(pit, Pit)
    return run_window(lambda: PitWindow(pit, reports_dir=Path(args.reports) if args.reports
                                        else None, printer=args.printer),
                      fullscreen=args.fullscreen, exit_after=args.exit_after)
