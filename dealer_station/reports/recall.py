"""The game recall / dispute report: one round or hand, everything the journal says about it.

It prints the same recall as ``dealer-station recall`` and the recall screen
(:func:`dealer_station.table.recall.recall_round`, which re-settles the round from its records
with the configuration version it was played under), in the same words (the recall model's),
and ends with every journal record of the round and its hash, so each line on paper can be
found in the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reportlab.platypus import Flowable

from dealer_station import registry as games
from dealer_station.audit.journal import Journal, Record, RoundInfo
from dealer_station.errors import StationError
from dealer_station.money import Money
from dealer_station.reports.parts import REPORT_RECALL
from dealer_station.reports.pdf_style import FONT_MONO, p, rich
from dealer_station.reports.source import Coverage, Period, covered_records, game_label
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid
from dealer_station.reports.text import local, local_short
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification
from dealer_station.table.recall_model import DIFFERENCE_LABEL, Recall, RecordLine


def find_round(journal: Journal, table: str, round_no: int | None) -> RoundInfo:
    """The round asked for, or the table's latest."""
    if round_no is None:
        latest = journal.recent_rounds(table, 1)
        if not latest:
            raise StationError(f"table {table} has no rounds or hands recorded yet")
        return latest[0]
    if round_no < 1:
        raise StationError(f"--round must be 1 or more, got {round_no}")
    info = journal.round_info(table, round_no)
    if info is None:
        latest = journal.recent_rounds(table, 1)
        hint = (f" (its rounds are 1 to {latest[0].round_no})" if latest else
                " (it has none yet)")
        raise StationError(f"table {table} has no round {round_no}{hint}")
    return info


def _records_table(r: ReportBuilder, records: tuple[RecordLine, ...]) -> Flowable:
    w = r.width
    rows: list[list[Any]] = [
        [f"{rec.seq:,}", local_short(rec.ts), rec.label, rec.actor,
         # In two halves of 32 hex digits: the whole hash at a readable size.
         rich(f"{rec.hash[:32]}<br/>{rec.hash[32:]}", "cell_mono")]
        for rec in records]
    return grid(["Record", "Time", "What", "Who", "Hash (HMAC-SHA-256)"], rows,
                [w * 0.08, w * 0.2, w * 0.17, w * 0.22, w * 0.33], numeric=(0,), wrap=(2, 3),
                )


def _exceptions(r: ReportBuilder, rc: Recall) -> None:
    w = r.width
    r.heading(f"Exceptions ({len(rc.exceptions)})")
    if not rc.exceptions:
        r.add(p(f"None: no halt, void, correction, misread, renege or device fault in this "
                f"{rc.unit}."))
        return
    rows = [[local_short(e.ts), e.label, e.actor, e.why, rc.exception_detail(e)]
            for e in rc.exceptions]
    r.add(grid(["Time", "What", "Who", "Why", "Detail"], rows,
               [w * 0.18, w * 0.14, w * 0.2, w * 0.25, w * 0.23], wrap=(1, 2, 3, 4)))


def _replay(r: ReportBuilder, rc: Recall) -> None:
    r.heading("Re-settlement from the journal")
    if rc.differences:
        r.add(rich(f"<font color='#b00020'><b>{DIFFERENCE_LABEL}: the recorded settlement "
                   f"differs from a re-settlement of the recorded inputs:</b></font>"))
        for d in rc.differences:
            r.add(p(f"- {d}", "alert"))
    else:
        r.add(p(f"The {rc.unit}'s recorded inputs were settled again with configuration "
                f"version {rc.header.config_version[:16]}...: every result equals what was "
                f"recorded."))


def build_recall_report(journal: Journal, table: str, round_no: int | None = None, *,
                        out: Path | str, paper: str = "A4",
                        background_above: int = BACKGROUND_ABOVE_RECORDS) -> BuiltReport:
    """Write the recall / dispute report of one round (default: the table's latest)."""
    from dealer_station.table.recall import recall_round

    info = find_round(journal, table, round_no)
    verification = Verification(journal, table, background_above=background_above)
    try:
        try:
            rc = recall_round(journal, info)
        except (ValueError, KeyError) as e:
            raise StationError(f"table {table} round {info.round_no} cannot be recalled from "
                               f"the journal: {e}") from None
        stored = journal.config(table, info.config_version)
        money = Money.of(stored.content if stored else None)
        records: list[Record] = journal.round_records(table, info.round_no)
        first, last = (records[0], records[-1]) if records else (None, None)
        period = Coverage(table, Period(), first, last)
        game = games.game(info.game)
        unit = game.unit
        status = rc.status_label
        r = ReportBuilder(kind="recall", title=f"Game recall: {unit} {info.round_no}",
                          table=table, period=period.label.replace(" (everything recorded)",
                                                                   ""),
                          subject=f"{game_label(info.game)}, {unit} {info.round_no}",
                          paper=paper)
        head = rc.header   # times and dealer from the round's own records
        summary = [("Table", table), ("Game", game_label(info.game)),
                   (unit.capitalize(), f"{info.round_no} - {status}"),
                   ("Dealer", head.dealer), ("Started", local(head.started_at)),
                   ("Ended", local(head.ended_at) if head.ended_at else "not closed"),
                   ("Configuration version", rich(f"<font name='{FONT_MONO}'>"
                                                  f"{info.config_version}</font>", "small")),
                   ("Money", money.label)]
        if rc.void_reason:
            summary.append((rc.status_label, rich(f"<b>{_esc(rc.void_reason)}</b>")))
        r.add(facts(summary))
        game.part(REPORT_RECALL)(r, rc, money)
        _exceptions(r, rc)
        _replay(r, rc)
        r.heading(f"Journal records of this {unit} ({len(rc.records)})")
        r.add(_records_table(r, rc.records))
        return r.build(out, verification.result(), first, last,
                       data=rc, evidence=covered_records(journal, table, first, last),
                       signatures=("Supervisor", "Reviewed by"))
    finally:
        verification.cancel()


def _esc(text: str) -> str:
    from xml.sax.saxutils import escape

    return escape(text)
