"""``dealer-station report``: audit reports as PDF files, printed if asked, from the journal."""

from __future__ import annotations

import argparse
from datetime import date, datetime
from typing import Any

from dealer_station import registry
from dealer_station.cli.audit import parse_time, store_options

#: The station's reports, and each game's own (the registry's ``Game.reports``) after events.
GAME_REPORTS = tuple(registry.game_reports())
KINDS = ("shift", "recall", "events", *GAME_REPORTS, "config", "pit", "game-protection",
         "master-game", "discrepancies")
#: Reports that can print JSON for other tools instead of a PDF.
JSON_KINDS = (*(n for n, (_, r) in registry.game_reports().items() if r.json), "master-game")
#: The accounting reports: by gaming day (every one, or --gaming-day), never a free period.
ACCOUNTING_KINDS = ("master-game", "discrepancies")


def parse_day(text: str) -> date:
    """A gaming day as the command line takes it: ``YYYY-MM-DD``."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-11-25") from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "report", parents=[store_options()],
        help=f"write an audit report as a PDF ({', '.join(KINDS)})",
        description="Write an audit report as a PDF, built only from the journal. Every page "
                    "shows the table, the period, page N of M, when it was printed and the "
                    "software version; the last page shows the journal's verification and "
                    "the hash of the last record the report covers.",
        epilog="reports: shift (rounds, wagered/paid/won per kind, hold, charts, meters, "
               "dealers, exceptions); recall (one round or hand: --round N, default the "
               "latest); events (significant events); "
               + "".join(f"{r.name} ({r.about}{'; --json' if r.json else ''}); "
                         for _, r in registry.game_reports().values())
               + "config (configuration changes and par sheets); pit (every table side "
               "by side, --tables T1,T2 or all); game-protection (the integrity monitor's "
               "alerts with their evidence and acknowledgements, each rule's state per table "
               "and dealer, the hold bands; --table T or every table); master-game (per "
               "table per gaming day: opener, closer, fills, credits, drop, win, hold, "
               "computed win, variance, theoretical win, month and year to date; --json: one "
               "JSON object per line; --by-shift or --shift NAME: by shift); "
               "discrepancies (accounting exceptions: variances above the threshold, openers "
               "that differ from the previous closer, voided slips). Times are local unless a "
               "zone is given; --from is inclusive, --to exclusive. --gaming-day (and --shift) "
               "take the period from [gaming_day] in config/station.toml.")
    p.add_argument("kind", choices=KINDS, metavar="REPORT",
                   help=", ".join(KINDS[:-1]) + f" or {KINDS[-1]}")
    p.add_argument("--table", help="table id (may be left out when the journal holds one; "
                                   "game-protection: every table when left out)")
    p.add_argument("--tables", metavar="T1,T2",
                   help="pit: the tables, comma-separated (default: every table)")
    p.add_argument("--gaming-day", type=parse_day, metavar="YYYY-MM-DD",
                   help="the period: this gaming day (instead of --from/--to)")
    p.add_argument("--shift", metavar="NAME",
                   help="only this shift (e.g. Swing) of --gaming-day (default: today's gaming "
                        "day)")
    p.add_argument("--json", action="store_true",
                   help=f"{', '.join(JSON_KINDS)}: JSON for other tools instead of the PDF "
                        "(one object per table per gaming day, money in minor units)")
    p.add_argument("--by-shift", action="store_true",
                   help="master-game: each gaming day shift by shift too (the tray counted "
                        "at each shift change; --json: one object per table per shift, with "
                        "'shift')")
    p.add_argument("--accounting-config", metavar="FILE",
                   help="master-game, discrepancies, card-room: accounting settings "
                        "(default config/accounting.toml)")
    p.add_argument("--station-config", metavar="FILE",
                   help="the [gaming_day] settings, and [monitor] for game-protection "
                        "(default config/station.toml)")
    p.add_argument("--from", dest="since", type=parse_time, metavar="TIME",
                   help="period start, e.g. 2026-03-01T18:00 (default: the first record)")
    p.add_argument("--to", dest="until", type=parse_time, metavar="TIME",
                   help="period end, exclusive (default: the last record)")
    p.add_argument("--round", type=int, metavar="N",
                   help="recall: the round or hand number (default: the latest)")
    p.add_argument("--out", metavar="FILE.pdf",
                   help="where to write the PDF (default: REPORT-TABLE-YYYYMMDD-HHMMSS.pdf "
                        "here)")
    p.add_argument("--print", dest="print_", action="store_true",
                   help="also send it to the printer named in config/station.toml")
    p.add_argument("--printer", metavar="QUEUE", help="print on this CUPS queue instead")
    p.add_argument("--paper", choices=("A4", "letter"),
                   help="paper size (default: config/station.toml, else A4)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_station.cli.audit import open_store
    from dealer_station.errors import StationError
    from dealer_station.reports.catalog import build_report
    from dealer_station.reports.printing import load_print_settings, print_pdf
    from dealer_station.reports.source import Period, gaming_period, pick_table

    if args.kind in ACCOUNTING_KINDS:
        from dealer_station.cli._master_game import run as master_game

        return master_game(args)
    if args.kind == "recall" and (args.since or args.until or args.gaming_day):
        raise StationError("the recall report takes --round, not a period")
    if (args.gaming_day or args.shift) and (args.since or args.until):
        raise StationError("give the period either as --gaming-day/--shift or as --from/--to, "
                           "not both")
    if args.json and args.kind not in JSON_KINDS:
        raise StationError(f"--json applies to the {' and '.join(JSON_KINDS)} report only")
    if args.tables is not None and args.kind != "pit":
        raise StationError(f"--tables applies to the pit report only; {args.kind} takes "
                           f"--table")
    if args.kind != "recall" and args.round is not None:
        raise StationError(f"--round applies to the recall report only, not to {args.kind}")
    if args.printer and not args.print_:
        args.print_ = True
    settings = load_print_settings()
    paper = args.paper or settings.paper
    period, period_name = Period(args.since, args.until), ""
    if args.gaming_day or args.shift:
        from dealer_station.gameconfig import load_gaming_calendar

        period, period_name = gaming_period(args.gaming_day, args.shift,
                                            load_gaming_calendar(args.station_config))
    own = registry.game_reports().get(args.kind)
    if own is not None and args.json:
        from dealer_station.cli._parts import REPORT_JSON

        return own[0].part(REPORT_JSON)(args.kind, args, period)
    out = args.out
    if out is not None and not str(out).lower().endswith(".pdf"):
        raise StationError(f"--out {out}: give a file name ending in .pdf")
    with open_store(args, write=False) as store:
        if args.kind == "pit":
            from dealer_station.reports.pit_summary import build_pit_report

            tables = [t.strip() for t in args.tables.split(",") if t.strip()] \
                if args.tables else None
            table = ", ".join(tables) if tables else "every table"
            if out is None:
                out = f"pit-{datetime.now():%Y%m%d-%H%M%S}.pdf"
            report = build_pit_report(store.journal, tables, period, out=out,
                                      period_name=period_name, paper=paper)
        elif args.kind == "game-protection":
            report, table = _game_protection(args, store.journal, period, period_name, out,
                                             paper)
        else:
            table = pick_table(store.journal, args.table)
            if out is None:
                out = f"{args.kind}-{table}-{datetime.now():%Y%m%d-%H%M%S}.pdf"
            report = build_report(args.kind, store.journal, table, period, out=out,
                                  round_no=args.round, paper=paper, **_game_options(args))
    v = report.verification
    several = args.kind == "pit" or (args.kind == "game-protection" and not args.table)
    verdict = ("every table's journal verified intact" if several and v.ok else
               f"journal verified intact to record {v.last_seq:,}" if v.ok else
               f"JOURNAL VERIFICATION FAILED at record {v.bad_seq}: {v.problem}")
    whom = f"tables {table}" if several else f"table {table}"
    print(f"wrote {report.title.lower()} for {whom} ({report.pages} page"
          f"{'s' if report.pages != 1 else ''}) to {report.path}; {verdict}")
    if args.print_:
        answer = print_pdf(report.path, args.printer or settings.printer,
                           title=f"{report.title} - table {table}")
        print(f"printed: {answer}")
    return 0 if v.ok else 1


def _game_protection(args: argparse.Namespace, journal: Any, period: Any, period_name: str,
                     out: str | None, paper: str) -> tuple[Any, str]:
    """The game-protection report of ``--table`` or every table, with the [monitor] and
    [gaming_day] settings of ``--station-config`` (default config/station.toml)."""
    from dealer_station.errors import StationError
    from dealer_station.gameconfig import STATION_FILE, config_dir, load_gaming_calendar
    from dealer_station.monitor import load_monitor_settings
    from dealer_station.reports.game_protection import build_game_protection_report
    from dealer_station.reports.pit_summary import game_tables

    station = args.station_config or config_dir() / STATION_FILE
    settings = load_monitor_settings(station)
    calendar = load_gaming_calendar(args.station_config)
    tables = [args.table] if args.table else None
    if args.table and args.table not in game_tables(journal):
        known = game_tables(journal)
        raise StationError(f"--table: table {args.table!r} has no rounds in this journal"
                           + (f" (tables: {', '.join(known)})" if known else ""))
    table = args.table or ", ".join(game_tables(journal))
    if out is None:
        out = f"game-protection-{args.table or 'all'}-{datetime.now():%Y%m%d-%H%M%S}.pdf"
    report = build_game_protection_report(journal, tables, period, out=out, settings=settings,
                                          calendar=calendar, period_name=period_name,
                                          paper=paper)
    return report, table


def _game_options(args: argparse.Namespace) -> dict[str, Any]:
    """A game's own report's settings from the command line (``--station-config``,
    ``--accounting-config``), where given; the station's files otherwise."""
    if registry.game_reports().get(args.kind) is None:
        return {}
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar

    options: dict[str, Any] = {}
    if args.station_config:
        options["calendar"] = load_gaming_calendar(args.station_config)
    if args.accounting_config:
        options["settings"] = load_accounting_settings(args.accounting_config)
    return options
