"""Typed journal events: every record the station has written reads back as its own frozen
class and writes out as the very payload stored (so the chain's bytes never change); old
versions are lifted by their upcasters; a payload that is not what its kind says is refused
with the record, the kind and the key named."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from test_landed_journals import landed_journal_copy

from dealer_station import registry as games
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.events import Codec, Event, EventError, Unregistered
from dealer_station.events.base import VERSION_KEY
from dealer_station.events.parts import EVENTS
from dealer_station.events.table import COMMON, RoundHalted
from dealer_station.games.bourre.table.sim import simulate_bourre
from dealer_station.games.lapaire.events import CardDealt, RoundVoided, WagerPlaced
from dealer_station.games.lapaire.table.sim import simulate_lapaire


def _records(db_file: Path) -> list[tuple[str, int, str, dict[str, Any]]]:
    import json

    con = sqlite3.connect(db_file)
    try:
        return [(t, seq, kind, json.loads(p)) for t, seq, kind, p in con.execute(
            "SELECT table_id, seq, kind, payload FROM journal ORDER BY table_id, seq")]
    finally:
        con.close()


def _codec_of(rows: list[tuple[str, int, str, dict[str, Any]]], table: str) -> Codec:
    opened = next((p["game"] for t, _, k, p in rows if t == table and "game" in p
                   and k in ("round.open", "session.open", "startup")), None)
    return games.game(opened).part(EVENTS)() if opened else Codec(COMMON)


def round_trip(rows: list[tuple[str, int, str, dict[str, Any]]]) -> Counter[str]:
    """Decode every row with its table's game codec and write it back; the kinds decoded."""
    decoded: Counter[str] = Counter()
    codecs = {t: _codec_of(rows, t) for t in {r[0] for r in rows}}
    for table, seq, kind, payload in rows:
        event = codecs[table].decode(kind, payload)
        assert event.to_payload() == payload, (table, seq, kind)
        assert not isinstance(event, Unregistered), f"{kind} has no event class"
        assert kind == event.KIND and dataclasses.is_dataclass(event)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, dataclasses.fields(event)[0].name, None)
        decoded[kind] += 1
    return decoded


def test_every_record_of_the_landed_release_reads_back_exactly(tmp_path: Path) -> None:
    db_url, _key = landed_journal_copy(tmp_path)
    decoded = round_trip(_records(Path(db_url.removeprefix("sqlite:///"))))
    # Both games' whole vocabulary was written by the landed code.
    for kind in ("round.open", "wager.place", "wager.remove", "card", "stage.settle",
                 "payout.confirm", "round.close", "void", "correction", "halt", "resolve",
                 "session.open", "hand.open", "bourre.card", "bourre.decision",
                 "bourre.discard", "bourre.play", "renege", "hand.close", "session.close",
                 "card.held", "config.change", "startup", "shutdown", "device.fault",
                 "user.add", "login", "login.failed", "checkpoint"):
        assert decoded[kind] > 0, kind


def test_every_record_written_now_reads_back_exactly(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    journal = Journal(db, create_key(tmp_path / "j.key"))
    try:
        simulate_lapaire(journal, "T1", rounds=15, seed=4, quiet=True)
        simulate_bourre(journal, "B1", hands=6, seed=4, quiet=True)
    finally:
        db.close()
    decoded = round_trip(_records(tmp_path / "j.db"))
    assert decoded["stage.settle"] == 45 and decoded["hand.close"] == 6


def test_a_payload_that_is_not_what_its_kind_says_is_refused_by_name() -> None:
    codec = games.game("lapaire").part(EVENTS)()
    good = {"n": 1, "card": "KH", "source": "shoe", "device_seq": 7}
    assert codec.decode("card", good) == CardDealt(1, "KH", "shoe", 7)
    with pytest.raises(EventError, match=r"a card record has no 'source'"):
        codec.decode("card", {"n": 1, "card": "KH"})
    with pytest.raises(EventError, match=r"a card record's 'n' should be a whole number"):
        codec.decode("card", {**good, "n": "1"})
    with pytest.raises(EventError, match=r"a card record's 'n' should be a whole number"):
        codec.decode("card", {**good, "n": True})
    with pytest.raises(EventError, match=r"keys its version-1 form does not know: colour"):
        codec.decode("card", {**good, "colour": "red"})
    with pytest.raises(EventError, match=r"record 12: a wager.place record's 'values'"):
        codec.committed(12, "", "dee/dealer", 1, "wager.place",
                        {"wager_id": 1, "seat": 1, "bet": "straight", "values": "K",
                         "amount": 100})
    with pytest.raises(EventError, match=r"this station reads versions 1 to 1"):
        codec.decode("card", {**good, VERSION_KEY: 2})


def test_optional_keys_and_open_ended_parts_keep_their_exact_form() -> None:
    # A key left out stays out; a None that was written stays written.
    assert "device_seq" not in CardDealt(1, "KH", "manual").to_payload()
    halt = RoundHalted("door open", "door_open", "Close it.", {"card": None, "device_seq": 4})
    assert halt.to_payload() == {"reason": "door open", "fault": "door_open",
                                 "remedy": "Close it.", "card": None, "device_seq": 4}
    assert RoundHalted.from_payload(halt.to_payload()) == halt
    voided = RoundVoided(("KH",), 2, 300, 0, 100, True, "dispute", (2,), None, {})
    assert voided.to_payload()["returned"] == [2]
    assert RoundVoided.from_payload(voided.to_payload()) == voided
    # Lists come back as tuples: an event is a value.
    placed = WagerPlaced.from_payload({"wager_id": 1, "seat": 1, "bet": "split",
                                       "values": ["7", "K"], "amount": 100})
    assert placed.values == ("7", "K")


@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    """A kind in its third version: v1 had ``chair``, v2 named it ``seat``, v3 added
    ``player`` (unknown for old records)."""

    KIND: ClassVar[str] = "seat.taken"
    VERSION: ClassVar[int] = 3
    UPCASTERS: ClassVar[dict[int, Any]] = {
        1: lambda d: {"seat": d.pop("chair"), **d},
        2: lambda d: {**d, "player": "unknown"},
    }
    seat: int
    player: str


def test_old_versions_are_upcast_and_new_ones_carry_their_version() -> None:
    codec = Codec(COMMON, [SeatTaken])
    assert codec.decode("seat.taken", {"chair": 3}) == SeatTaken(3, "unknown")
    assert codec.decode("seat.taken", {"seat": 3, VERSION_KEY: 2}) == SeatTaken(3, "unknown")
    now = SeatTaken(4, "Ada")
    assert now.to_payload() == {"seat": 4, "player": "Ada", VERSION_KEY: 3}
    assert codec.decode("seat.taken", now.to_payload()) == now
    with pytest.raises(EventError, match=r"version 4; this station reads versions 1 to 3"):
        codec.decode("seat.taken", {"seat": 4, "player": "Ada", VERSION_KEY: 4})


def test_each_game_names_its_codec_and_shares_the_common_kinds() -> None:
    lapaire = games.game("lapaire").part(EVENTS)()
    bourre = games.game("bourre").part(EVENTS)()
    for cls in COMMON:
        assert lapaire.classes[cls.KIND] is cls and bourre.classes[cls.KIND] is cls
    # Each game's void says what that game's void means.
    assert lapaire.classes["void"] is not bourre.classes["void"]
    # The station's own kinds (users, sign-ins, checkpoints...) are common to every game.
    assert lapaire.classes["login"] is bourre.classes["login"]
    assert isinstance(lapaire.decode("a.kind.from.later", {"x": 1}), Unregistered)


def test_every_event_that_raises_an_alert_says_it_in_words_the_pit_knows() -> None:
    """The pit names no kind: each event declares its alert, and the pit has a label and an
    urgency for every one declared, in every game's records and the kinds all tables share."""
    from dealer_station import registry as games
    from dealer_station.floor.alerts import CATEGORY_LABELS, SEVERITY, alert_kinds, codec_of

    declared = set()
    for game in [*games.REGISTRY, None]:
        codec = codec_of(game)
        for cls in codec.classes.values():
            if cls.ALERT:
                declared.add(cls.ALERT)
                assert cls.alert_text is not Event.alert_text, cls.__name__
                assert cls.KIND in alert_kinds(codec)
        assert not {"wager.place", "login", "startup"} & set(alert_kinds(codec))
    assert declared <= set(CATEGORY_LABELS) and declared <= set(SEVERITY)
    assert {"halt", "device.fault", "void", "correction", "renege", "floor.lost",
            "floor.refused", "witness.refused", "witness.unreachable"} <= declared


def test_the_kinds_that_open_and_close_rounds_are_what_the_events_declare() -> None:
    """The rows beside the chain are kept from the kinds the events declare: the same kinds,
    with the same statuses, as the journal has always kept them by."""
    from dealer_station.events.kinds import closing_statuses, opening_kinds

    assert set(opening_kinds()) == {"round.open", "hand.open"}
    assert dict(closing_statuses()) == {"round.close": "settled", "hand.close": "settled",
                                        "void": "voided"}


def test_the_significant_kinds_and_the_exceptions_are_those_the_events_declare() -> None:
    """The journal's significant events and the recall's exceptions are found from the event
    classes (``SIGNIFICANT``, ``EXCEPTION``): the same kinds the journal and the recall listed
    by name before the events declared them, and every event of a significant family."""
    from dealer_station.audit.journal_common import is_significant
    from dealer_station.events.kinds import exception_kinds, significant_kinds

    exact, families = significant_kinds()
    assert exact == {
        "startup", "shutdown", "misread", "void", "correction", "halt", "resolve", "card.held",
        "config.change", "login", "login.failed", "lockout", "logout", "verify", "checkpoint",
        "clock.jump", "projection.mismatch", "alert.ack", "pot.return",
        "tournament.disqualify", "tournament.correct", "tournament.match.correct",
        "tray.difference", "slip.void", "request.void", "variance.disposition",
        "monitor.alert"}
    assert families == ("device.", "user.", "integrity.", "floor.", "witness.")
    assert exception_kinds() == {"halt", "resolve", "void", "correction", "card.held",
                                 "renege", "recovery", "device.fault"}
    assert is_significant("device.lost") and is_significant("device.someday")
    assert is_significant("misread") and not is_significant("wager.place")


def test_a_record_read_as_one_class_names_itself_when_it_is_another() -> None:
    from dealer_station.events.base import Codec, EventError
    from dealer_station.events.table import COMMON, ConfigChanged, RoundHalted

    codec = Codec(COMMON)
    said = ConfigChanged("v1", "lapaire", "why", {})
    assert codec.decode_as(ConfigChanged, 7, said.KIND, said.to_payload()) == said
    with pytest.raises(EventError, match=r"record 7 is a config\.change, not a halt"):
        codec.decode_as(RoundHalted, 7, said.KIND, said.to_payload())
    with pytest.raises(EventError, match="record 8"):
        codec.decode_as(ConfigChanged, 8, said.KIND, {"version": "v1"})


def test_the_fields_read_from_records_of_any_game_are_what_their_events_say(
        tmp_path: Path) -> None:
    """``events/rows.py`` reads a field or two from records whose event class the reader does
    not hold (the projections, the floor's day, the replay's choice of game): on every record
    of the landed journals, each read equals the typed event's own field."""
    from dealer_station.events import rows as r

    db_url, _key = landed_journal_copy(tmp_path)
    records = _records(Path(db_url.removeprefix("sqlite:///")))
    codecs = {t: _codec_of(records, t) for t in {x[0] for x in records}}
    seen: Counter[str] = Counter()
    for table, _seq, kind, payload in records:
        event = codecs[table].decode(kind, payload)
        fields = {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}
        opened = r.opening(kind, payload)
        assert (opened is not None) == event.OPENS, kind
        if opened is not None:
            assert (opened.game, opened.config_version, opened.dealer) == (
                fields["game"], fields["config_version"], fields["dealer"])
            seen["opening"] += 1
        meters = r.closing_meters(kind, payload)
        assert meters == (fields.get("meters") if event.CLOSES else None), kind
        seen["meters"] += meters is not None
        frame = r.device_frame(payload)
        if fields.get("device_seq") is not None:
            card = fields.get("card")
            assert frame == (fields["device_seq"], card if isinstance(card, str) else None)
            seen["frame"] += 1
        if "user_id" in fields:
            assert r.user_named(payload) == fields["user_id"]
            seen["user"] += 1
        if kind == "config.change":
            named = r.config_named(payload)
            assert (named.version, named.game, named.reason) == (
                fields["version"], fields["game"], fields["reason"])
            seen["config"] += 1
    assert min(seen[k] for k in ("opening", "meters", "frame", "user", "config")) > 0, seen
