"""The game recall / dispute report: one round or hand, everything the journal says about it.

It prints the same plain data as ``dealer-station recall`` and the recall screen
(:func:`dealer_station.table.recall.recall_round`, which re-settles the round from its records
with the configuration version it was played under), and ends with every journal record of the
round and its hash, so each line on paper can be found in the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reportlab.platypus import Flowable

from dealer_station import games
from dealer_station.audit.journal import Journal, Record, RoundInfo
from dealer_station.errors import StationError
from dealer_station.reports.source import Coverage, Period, covered_records, game_label
from dealer_station.reports.template import (
    FONT_MONO,
    BuiltReport,
    ReportBuilder,
    facts,
    grid,
    p,
    rich,
)
from dealer_station.reports.text import MoneyUnit, describe_payload, local, local_short
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification

RESULT_WORDS = {"win": "won", "lose": "lost", "returned": "returned (void)",
                "pending": "not settled"}


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


def _records_table(r: ReportBuilder, records: list[dict[str, Any]]) -> Flowable:
    w = r.width
    rows: list[list[Any]] = [
        [f"{rec['seq']:,}", local_short(rec["ts"]), rec["kind"], rec["actor"],
         # In two halves of 32 hex digits: the whole hash at a readable size.
         rich(f"{rec['hash'][:32]}<br/>{rec['hash'][32:]}", "cell_mono")]
        for rec in records]
    return grid(["Record", "Time", "Kind", "Who", "Hash (HMAC-SHA-256)"], rows,
                [w * 0.08, w * 0.2, w * 0.17, w * 0.22, w * 0.33], numeric=(0,), wrap=(2, 3),
                )


def _exceptions(r: ReportBuilder, rc: dict[str, Any]) -> None:
    w = r.width
    r.heading(f"Exceptions ({len(rc['exceptions'])})")
    if not rc["exceptions"]:
        r.add(p("None: no halt, void, correction, misread, renege or device fault in this "
                "round."))
        return
    rows = [[local_short(e["ts"]), e["kind"], e["actor"], str(e["reason"] or ""),
             describe_payload(e["payload"], skip=("reason", "detail", "note", "meters",
                                                  "remedy"))]
            for e in rc["exceptions"]]
    r.add(grid(["Time", "What", "Who", "Why", "Detail"], rows,
               [w * 0.17, w * 0.1, w * 0.2, w * 0.28, w * 0.25], wrap=(2, 3, 4)))


def _replay(r: ReportBuilder, rc: dict[str, Any]) -> None:
    r.heading("Re-settlement from the journal")
    if rc["differences"]:
        r.add(rich("<font color='#b00020'><b>The recorded settlement differs from a "
                    "re-settlement of the recorded inputs:</b></font>"))
        for d in rc["differences"]:
            r.add(p(f"- {d}", "alert"))
    else:
        r.add(p(f"The round's recorded wagers and cards were settled again with configuration "
                f"version {rc['config_version'][:16]}...: every result equals what was "
                f"recorded."))


def lapaire_section(r: ReportBuilder, rc: dict[str, Any], money: MoneyUnit) -> None:
    w = r.width
    fmt = money.fmt
    r.heading("Cards in order")
    cards = [[str(c["n"]), c["card"], str(c.get("source") or ""), str(c.get("actor") or ""),
              str(c.get("reason") or "")] for c in rc["cards"]]
    r.add(grid(["Card", "Dealt", "Source", "Entered by", "Reason (corrections)"],
               cards or [["-", "none dealt", "", "", ""]],
               [w * 0.08, w * 0.1, w * 0.16, w * 0.26, w * 0.4], wrap=(4,)))
    r.heading(f"Wagers per seat ({money.label})")
    rows = []
    for seat, wagers in rc["seats"].items():
        for wg in wagers:
            rows.append([seat, f"#{wg['wager_id']}", _bet_label(wg), fmt(wg["amount"]),
                         str(wg["stage"]), RESULT_WORDS.get(wg["result"], wg["result"]),
                         fmt(wg["win"]), str(wg.get("placed_by") or "")])
    r.add(grid(["Seat", "Wager", "Bet", "Amount", "Stage", "Result", "Win", "Placed by"],
               rows or [["-", "", "no wagers", "", "", "", "", ""]],
               [w * 0.06, w * 0.08, w * 0.24, w * 0.12, w * 0.07, w * 0.13, w * 0.12,
                w * 0.18], numeric=(3, 4, 6), wrap=(2, 7)))
    r.heading(f"Settlement by stage ({money.label})")
    stage_rows = [[str(s["stage"]), s["card"], s["poker"] or "", fmt(s["total_win"]),
                   fmt(s["total_lost"]), "yes" if s["confirmed"] else "NO"]
                  for s in rc["stages"]]
    r.add(grid(["Stage", "Card", "Poker hand", "Paid", "Lost", "Payout confirmed"],
               stage_rows or [["-", "", "", "", "", ""]],
               [w * 0.1, w * 0.1, w * 0.25, w * 0.17, w * 0.17, w * 0.21],
               numeric=(3, 4)))
    t = rc["totals"]
    r.add(p(f"Totals: wagered {money.full(t['wagered'])}, paid {money.full(t['paid'])}, "
            f"lost by players {money.full(t['lost'])}."))


def _bet_label(wager: dict[str, Any]) -> str:
    """``Straight-up K``, ``Corner 2-3-8-9``, ``Any Pair'e`` (as on the layout)."""
    from dealer_station.settlement.lapaire_config import KIND_LABELS
    from dealer_station.settlement.lapaire_layout import spot_label

    name = KIND_LABELS.get(str(wager["bet"]))
    if name is None:
        return str(wager["label"])
    spot = spot_label(tuple(wager.get("values") or ()))
    return f"{name} {spot}" if spot else name


def bourre_section(r: ReportBuilder, rc: dict[str, Any], money: MoneyUnit) -> None:
    w = r.width
    fmt = money.fmt
    res = rc.get("result") or {}
    decisions = rc.get("decisions", {})
    discards = rc.get("discards", {})
    r.heading(f"Seats ({money.label})")
    rows = []
    for seat in rc["seats"]:
        s = str(seat)
        stay = decisions.get(s)
        rows.append([s + (" (dealer)" if seat == rc["dealer_seat"] else ""),
                     fmt(int(rc["chips_before"].get(s, 0))),
                     "stayed" if stay else ("folded" if stay is False else "-"),
                     " ".join(discards.get(s, [])) or "-",
                     str(rc["tricks"].get(s, 0)),
                     fmt(int(res.get("penalties", {}).get(s, 0))) if res else "-",
                     fmt(int(res.get("chips", {}).get(s, 0))) if res else "-"])
    r.add(grid(["Seat", "Chips before", "Decision", "Discarded", "Tricks", "Penalty",
                "Chips after"], rows, [w * 0.13, w * 0.15, w * 0.12, w * 0.18, w * 0.1,
                                       w * 0.14, w * 0.15], numeric=(1, 4, 5, 6)))
    r.add(p(f"Trump card: {rc.get('trump') or '-'}; pot before the hand "
            f"{money.full(int(rc['pot_before']))}; profile {rc.get('profile')}."))
    r.heading("Cards dealt and drawn, in order")
    cards = [[str(i), str(c["seat"]), c["card"], c["phase"], str(c.get("source") or "")]
             for i, c in enumerate(rc["cards"], 1)]
    r.add(grid(["#", "Seat", "Card", "Phase", "Source"], cards or [["-", "", "", "", ""]],
               [w * 0.08, w * 0.1, w * 0.1, w * 0.12, w * 0.2], numeric=(0,)))
    r.heading("Play, trick by trick")
    plays = []
    for pl in rc["plays"]:
        mis = pl.get("misplay")
        plays.append([str(pl["trick"]), str(pl["seat"]), pl["card"],
                      "accepted" if pl.get("accepted", True) else "taken back",
                      "" if pl.get("trick_winner") is None else f"seat {pl['trick_winner']}",
                      (f"{'RENEGE' if mis.get('penalised') else 'retraction'}: "
                       f"{mis.get('reason')}") if mis else ""])
    r.add(grid(["Trick", "Seat", "Card", "Play", "Trick won by", "Misplay"],
               plays or [["-", "", "", "", "", ""]],
               [w * 0.08, w * 0.08, w * 0.08, w * 0.13, w * 0.14, w * 0.49], wrap=(5,)))
    if res:
        r.heading(f"Settlement ({money.label})")
        winner = res.get("winner")
        lines = [("Winner", f"seat {winner}" if winner else "none: the pot carries"),
                 ("Pot at the end", fmt(int(res.get("pot_end", 0)))),
                 ("Won", fmt(int(res.get("won", 0)))),
                 ("Bourré", ", ".join(f"seat {s}" for s in res.get("bourre", [])) or "none"),
                 ("Reneges", "; ".join(f"seat {m['seat']} trick {m['trick']} {m['card']}: "
                                       f"{m['reason']}" for m in res.get("reneges", []))
                  or "none"),
                 ("Penalties (into the next pot)",
                  ", ".join(f"seat {k}: {fmt(int(v))}" for k, v in
                            res.get("penalties", {}).items()) or "none"),
                 ("Next pot", fmt(int(res.get("pot", 0)))),
                 ("House collection", fmt(int(res.get("house", 0)))),
                 ("Eliminated", ", ".join(f"seat {s}" for s in res.get("eliminated", []))
                  or "none")]
        r.add(facts(lines))


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
        money = MoneyUnit.of(stored.content if stored else None)
        records: list[Record] = journal.round_records(table, info.round_no)
        first, last = (records[0], records[-1]) if records else (None, None)
        period = Coverage(table, Period(), first, last)
        game = games.game(info.game)
        unit = game.unit
        status = rc["status"].upper()
        r = ReportBuilder(kind="recall", title=f"Game recall: {unit} {info.round_no}",
                          table=table, period=period.label.replace(" (everything recorded)",
                                                                   ""),
                          subject=f"{game_label(info.game)}, {unit} {info.round_no}",
                          paper=paper)
        summary = [("Table", table), ("Game", game_label(info.game)),
                   (unit.capitalize(), f"{info.round_no} - {status}"),
                   ("Dealer", info.dealer), ("Started", local(info.started_at)),
                   ("Ended", local(info.ended_at)),
                   ("Configuration version", rich(f"<font name='{FONT_MONO}'>"
                                                  f"{info.config_version}</font>", "small")),
                   ("Money", money.label)]
        if rc.get("void_reason"):
            summary.append(("VOIDED", rich(f"<b>{_esc(rc['void_reason'])}</b>")))
        r.add(facts(summary))
        game.part("report_recall")(r, rc, money)
        _exceptions(r, rc)
        _replay(r, rc)
        r.heading(f"Journal records of this {unit} ({len(rc['records'])})")
        r.add(_records_table(r, rc["records"]))
        return r.build(out, verification.result(), first, last,
                       data=rc, evidence=covered_records(journal, table, first, last),
                       signatures=("Supervisor", "Reviewed by"))
    finally:
        verification.cancel()


def _esc(text: str) -> str:
    from xml.sax.saxutils import escape

    return escape(text)
