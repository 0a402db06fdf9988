"""The table models pass Qt's model checks, empty and filled, and read their rows right."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from dealer_station.audit.journal import Meter, Record
from dealer_station.events.wording import People
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.house_math import par_sheet
from dealer_station.games.lapaire.table.recall import (
    DealtCard,
    LaPaireRecall,
    Seat,
    SeatWager,
    Totals,
)
from dealer_station.games.lapaire.ui.models import ParSheetModel, WagerRow, WagersModel
from dealer_station.table.recall_model import RecallHeader
from dealer_station.ui import theme
from dealer_station.ui.events_tab import EventsModel, worded
from dealer_station.ui.models import MetersModel, RecallModel

CONFIG = load_lapaire_config()


def record(seq: int, kind: str, payload: dict[str, Any]) -> Record:
    return Record("T1", seq, "2026-01-31T20:15:00.000000Z", "super/supervisor", kind, None,
                  payload, "0" * 64, "1" * 64)


def test_wagers_model(qtmodeltester: Any) -> None:
    m = WagersModel(CONFIG.money)
    qtmodeltester.check(m)
    m.set_rows([WagerRow(1, 1, "Straight K", 500, 1, "win", 6000, "dealer/dealer"),
                WagerRow(2, 2, "Red", 100, 1, "lose", 0),
                WagerRow(3, 2, "Poker", 100, 3, "pending", 0)])
    qtmodeltester.check(m)
    assert m.rowCount() == 3 and m.columnCount() == len(WagersModel.HEADERS)
    assert m.data(m.index(0, WagersModel.PAY)) == "60.00"
    assert m.data(m.index(1, WagersModel.PAY)) == ""
    assert m.data(m.index(0, WagersModel.RESULT)) == "pay 60.00"
    assert m.data(m.index(1, WagersModel.RESULT)) == "lost"
    assert m.data(m.index(0, WagersModel.RESULT), Qt.ItemDataRole.ForegroundRole).name() == \
        theme.GOOD
    assert m.data(m.index(2, WagersModel.ID), Qt.ItemDataRole.UserRole) == 3
    assert m.data(m.index(0, WagersModel.STAKE), Qt.ItemDataRole.ToolTipRole) == \
        "placed by dealer/dealer"
    assert m.headerData(WagersModel.STAKE, Qt.Orientation.Horizontal) == "Stake"


def test_par_sheet_model(qtmodeltester: Any) -> None:
    rows = par_sheet(CONFIG.with_changes(offered={"split 7-JK": True},
                                         limits={"straight": (100, 200)}))
    m = ParSheetModel()
    m.set_rows(rows)
    qtmodeltester.check(m)
    labels = [m.data(m.index(r, ParSheetModel.WAGER)) for r in range(m.rowCount())]
    row = labels.index("Split 7-JK")
    assert m.data(m.index(row, ParSheetModel.PAYS)) == "7 to 1"
    assert m.data(m.index(row, ParSheetModel.HOUSE_EDGE)) == "11.11%"


def test_recall_events_and_meters_models(qtmodeltester: Any) -> None:
    recall = RecallModel(CONFIG.money)
    recall.set_rows([LaPaireRecall(
        header=RecallHeader("T1", 4, "lapaire", "voided", "dealer/dealer",
                            "2026-01-31T20:14:00.000000Z", None, "0" * 64),
        cards=(DealtCard(1, "KH", "shoe", "device:shoe:S1", 7, None),),
        # Card 1 settled the 5.00 Red (lost); the void gave the 2.00 Poker wager back.
        seats=(Seat(1, (SeatWager(1, "red", (), "red", 500, 1, "lose", 0, "dealer/dealer"),
                        SeatWager(2, "poker", (), "poker", 200, 3, "returned", 0,
                                  "dealer/dealer"))),),
        stages=(), totals=Totals(700, 0, 500), void_reason="cards exposed", exceptions=(),
        differences=(), records=())])
    qtmodeltester.check(recall)
    # Wagered: the stakes a card settled, as the meters and the shift report count them.
    assert recall.data(recall.index(0, RecallModel.WAGERED)) == "5.00"
    assert recall.data(recall.index(0, RecallModel.CARDS)) == "KH"
    assert recall.data(recall.index(0, RecallModel.STATUS)) == "Voided"
    assert recall.data(recall.index(0, RecallModel.STATUS),
                       Qt.ItemDataRole.ForegroundRole).name() == theme.BAD
    events = EventsModel()
    events.set_rows(worded([record(5, "halt", {"reason": "shoe reports JAM", "fault": "jam"}),
                            record(6, "login", {"user_id": "super", "role": "supervisor"})],
                           People({"super": "Sam Supervisor"})))
    qtmodeltester.check(events)
    # Kinds, people and details in words, never the journal's keys.
    assert events.data(events.index(0, EventsModel.WHAT)) == "Halt (play stopped)"
    assert events.data(events.index(0, EventsModel.DETAIL)) == (
        "the device is jammed — stopped by Sam Supervisor (supervisor)")
    assert events.data(events.index(1, EventsModel.WHO)) == "Sam Supervisor (supervisor)"
    assert events.data(events.index(1, EventsModel.DETAIL)) == (
        "Sam Supervisor signed in as supervisor")
    meters = MetersModel(CONFIG.money)
    meters.set_rows([Meter("T1", "total", 3, 1000, 250, 750),
                     Meter("T1", "any_pair", 2, 200, 0, 200)])
    qtmodeltester.check(meters)
    assert meters.data(meters.index(0, MetersModel.HOLD)) == "75.00%"
    # The felt's names, never the journal's keys.
    assert meters.data(meters.index(0, MetersModel.METER)) == "Total"
    assert meters.data(meters.index(1, MetersModel.METER)) == "Any Pair'e"


def test_wagers_model_shows_money_with_thousands_separators() -> None:
    """Stakes and pays of a thousand and more are read at a glance: 1,234.56."""
    m = WagersModel(CONFIG.money)
    m.set_rows([WagerRow(1, 1, "Straight K", 123456, 1, "win", 1481472)])
    assert m.data(m.index(0, WagersModel.STAKE)) == "1,234.56"
    assert m.data(m.index(0, WagersModel.RESULT)) == "pay 14,814.72"
