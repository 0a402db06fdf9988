"""The registry's claim, proved: a game the station has never heard of, defined in this file
alone and registered with one entry, is played, journaled, recalled, reported, metered,
forwarded to the floor and watched by the pit through the station's own shared code.

The game is High Card, a one-card wager game: each seat bets High (8 to ace) or Low (2 to
7); one card from the shoe settles every bet at even money; a joker loses everything. Its
parts live here and are named in its registry entry as ``module:attribute`` like any
game's. Nothing outside this file knows it exists.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dealer_station import registry as games
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal, MeterDelta, Record, RoundInfo
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.users import User
from dealer_station.cards import BOURRE_DECK, parse_card
from dealer_station.errors import StationError
from dealer_station.events.base import Codec, Committed, Event, JsonObject, optional
from dealer_station.events.table import COMMON
from dealer_station.hardware.events import CardRead, DeviceStatus
from dealer_station.money import Money
from dealer_station.table.base import Step, TableError, TableService
from dealer_station.table.parts import TABLE, WINS
from dealer_station.table.recall_model import (
    Recall,
    RecallHeader,
    exception_lines,
    record_lines,
)

pytestmark = pytest.mark.postgres

GAME = "highcard"
HIGH = frozenset({"8", "9", "10", "J", "Q", "K", "A"})
SIDES = {"high": "High", "low": "Low"}
CONTENT = {"money": {"currency": "USD", "minor_units": 100}, "min_bet": 100, "max_bet": 50000}


# --- its events ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RoundOpened(Event):
    KIND = "round.open"
    OPENS = True          # its round's row beside the chain starts here
    game: str
    config_version: str
    dealer: str


@dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    KIND = "highcard.bet"
    seat: int
    side: str
    amount: int


@dataclass(frozen=True, slots=True)
class RoundClosed(Event):
    """The card and what it settled: each bet's win (0 for a lost bet), the meters."""

    KIND = "round.close"
    CLOSES = "settled"    # ...and ends here, with its meters
    card: str
    device_seq: int | None
    wagered: int
    wins: tuple[int, ...]
    meters: JsonObject


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    KIND = "void"
    ALERT = "void"        # the pit raises it, in the words below
    CLOSES = "voided"
    reason: str
    returned: tuple[int, ...]
    halt_seq: int | None = optional()
    meters: JsonObject | None = optional()

    def alert_text(self, rnd: str, actor: str) -> str:
        return f"{rnd or 'Round'} voided by {actor}; reason: {self.reason}"

    def halt_settled(self) -> tuple[int, str] | None:
        return None if self.halt_seq is None else (self.halt_seq, "voided")


EVENTS: tuple[type[Event], ...] = (RoundOpened, BetPlaced, RoundClosed, RoundVoided)
CODEC = Codec(COMMON, EVENTS)


def codec() -> Codec:
    return CODEC


# --- its rules -----------------------------------------------------------------------------

def wins(card: str, bets: list[BetPlaced]) -> tuple[int, ...]:
    """Even money to the side the card falls on; a joker is on neither side."""
    c = parse_card(card)
    side = None if c.suit is None else "high" if c.rank in HIGH else "low"
    return tuple(b.amount if b.side == side else 0 for b in bets)


def meters(bets: list[BetPlaced], won: tuple[int, ...]) -> dict[str, dict[str, int]]:
    """Per side: wagered, paid (wins beyond the stake returned), the house's win."""
    out: dict[str, dict[str, int]] = {}
    for b, w in zip(bets, won, strict=True):
        m = out.setdefault(b.side, {"wagered": 0, "paid": 0, "house_win": 0})
        m["wagered"] += b.amount
        m["paid"] += w
        m["house_win"] += -w if w else b.amount
    return out


# --- its table -----------------------------------------------------------------------------

class HighCardTable(TableService):
    game = GAME
    codec = CODEC

    def __init__(self, journal: Journal, table_id: str, *, dealer: str,
                 prefer_journal_config: bool) -> None:
        super().__init__(journal, table_id, dealer=dealer)
        self.open_round: int | None = None
        self.bets: list[BetPlaced] = []
        self.content, self.version = self.adopt_config(dict(CONTENT), prefer_journal_config)
        for r in journal.records(table_id):          # what the journal says is under way
            self.apply(self.codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind,
                                            r.payload))

    def apply(self, c: Committed) -> None:
        super().apply(c)
        e = c.event
        if isinstance(e, RoundOpened):
            self.open_round, self.bets = c.round_no, []
            self._last_round = c.round_no
        elif isinstance(e, BetPlaced):
            self.bets.append(e)
        elif isinstance(e, RoundClosed | RoundVoided):
            self.open_round, self.bets = None, []

    def in_round(self) -> bool:
        return self.open_round is not None

    @property
    def round_no(self) -> int | None:
        return self.open_round

    @property
    def money(self) -> Money:
        return Money.of(self.content)

    def describe_round(self) -> str:
        return f"round {self.open_round}: {len(self.bets)} bets"

    def bet(self, bets: list[tuple[int, str, int]], actor: str) -> int:
        """Open a round with its bets (seat, side, amount in minor units)."""
        with self.lock:
            self.check_not_halted()
            if self.in_round():
                raise TableError("a round is under way")
            for seat, side, amount in bets:
                if side not in SIDES or not CONTENT["min_bet"] <= amount <= CONTENT["max_bet"]:
                    raise TableError(f"seat {seat}: no bet of {amount} on {side!r}")
            n = self.last_round_no() + 1
            self.commit([Step(RoundOpened(GAME, self.version, self.dealer), actor, n),
                         *(Step(BetPlaced(*b), actor, n) for b in bets)])
            return n

    def card_from_device(self, event: CardRead, actor: str) -> None:
        if not self.in_round():
            raise TableError(f"{event.describe()} with no round under way")
        won = wins(event.card.code, self.bets)
        self.commit([Step(RoundClosed(event.card.code, event.seq,
                                      sum(b.amount for b in self.bets), won,
                                      meters(self.bets, won)), actor, self.open_round)])

    def void(self, user: User, reason: str) -> None:
        with self.lock:
            self.require_supervisor(user, "void a round")
            if not self.in_round():
                raise TableError("no round to void")
            halt = self.halt.seq if self.halt is not None else None
            self.commit([Step(RoundVoided(self.require_reason(reason),
                                          tuple(b.amount for b in self.bets), halt, {}),
                              user.actor, self.open_round)])

    def correct_card(self, user: User, card: object, reason: str) -> object:
        raise TableError("High Card takes its one card from the shoe only")


def open_table(journal: Journal, table_id: str, *, config_path: str | None = None,
               dealer: str, prefer_journal_config: bool | None = None) -> HighCardTable:
    return HighCardTable(journal, table_id, dealer=dealer,
                         prefer_journal_config=prefer_journal_config is not False)


# --- its recall and its words ----------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class HighCardRecall(Recall):
    bets: tuple[tuple[int, str, int], ...]
    card: str | None
    won: tuple[int, ...]

    def dealt(self) -> tuple[str, ...]:
        return (self.card,) if self.card else ()

    def wagered(self) -> int:
        return sum(a for _, _, a in self.bets) if self.card else 0

    def returned(self) -> int:
        return 0 if self.card else sum(a for _, _, a in self.bets)

    def paid(self) -> int:
        return sum(self.won)

    def body_json(self) -> dict[str, Any]:
        return {"bets": [list(b) for b in self.bets], "card": self.card, "won": list(self.won)}


def recall(journal: Journal, info: RoundInfo, records: list[Record]) -> HighCardRecall:
    events = [CODEC.decode(r.kind, r.payload) for r in records]
    bets = tuple((e.seat, e.side, e.amount) for e in events if isinstance(e, BetPlaced))
    closed = next((e for e in events if isinstance(e, RoundClosed)), None)
    voided = next((e for e in events if isinstance(e, RoundVoided)), None)
    status = "settled" if closed else "voided" if voided else "open"
    stored = journal.config(info.table_id, info.config_version)
    return HighCardRecall(
        header=RecallHeader.of(info, status, GAME, records),
        void_reason=voided.reason if voided else None, exceptions=exception_lines(records),
        differences=(), records=record_lines(records),
        money=Money.of(stored.content) if stored else None,
        bets=bets, card=closed.card if closed else None, won=closed.wins if closed else ())


def replay(records: list[Record], configs: object
           ) -> tuple[str, list[str], dict[str, MeterDelta]]:
    """Settle the round's bets again from its card; a difference is named."""
    events = [CODEC.decode(r.kind, r.payload) for r in records]
    bets = [e for e in events if isinstance(e, BetPlaced)]
    closed = next((e for e in events if isinstance(e, RoundClosed)), None)
    if closed is None:
        return "voided", [], {}
    again = wins(closed.card, bets)
    diffs = [] if again == closed.wins else [f"round {records[0].round_no}: paid "
                                             f"{closed.wins}, settles to {again}"]
    return "match" if not diffs else "mismatch", diffs, {
        k: MeterDelta(rounds=1, **m) for k, m in meters(bets, again).items()}


def recall_text(r: Recall, *, records: bool = False) -> str:
    assert isinstance(r, HighCardRecall)
    lines = [f"High Card round {r.round_no} ({r.status_label}): card {r.card or '-'}"]
    lines += [f"  seat {seat} {SIDES[side]} {r.amount(a)} -> won {r.amount(w)}"
              for (seat, side, a), w in zip(r.bets, r.won or (0,) * len(r.bets), strict=True)]
    return "\n".join(lines)


def recall_html(r: Recall, money: Money | None = None) -> str:
    return "<pre>" + html.escape(recall_text(r)) + "</pre>"


def report_recall(builder: Any, rc: Recall, money: Money) -> None:
    from dealer_station.reports.pdf_style import p

    builder.add(p(html.escape(recall_text(rc))))


def report_config(builder: Any, version: Any, previous: Any = None) -> list[Any]:
    from dealer_station.reports.pdf_style import p

    return [p(html.escape(f"High Card: bets from {version.content['min_bet']} to "
                          f"{version.content['max_bet']} minor units"))]


def simulate(journal: Journal, table_id: str, count: int, *, seed: int | None,
             config_path: str | None = None, quiet: bool = False,
             profile: str | None = None, inject: Sequence[str] = ()) -> int:
    import random

    if inject:
        raise StationError("--inject: High Card has no anomalies to inject")
    rng = random.Random(seed)
    t = open_table(journal, table_id, dealer="dealer/sim")
    try:
        t.startup()
        for _ in range(count):
            t.bet([(s, rng.choice(list(SIDES)), 100 * rng.randint(1, 50)) for s in (1, 2, 3)],
                  actor="dealer/sim")
            deal(t, rng.choice(BOURRE_DECK.cards()).code)
        return count
    finally:
        t.shutdown()
        t.lease.release()


def settler(path: Path | str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def settle(record: dict[str, Any]) -> dict[str, Any]:
        bets = [BetPlaced(int(b["seat"]), str(b["side"]), int(b["amount"]))
                for b in record["bets"]]
        return {"round_id": record.get("round_id"), "wins": list(wins(record["card"], bets))}
    return settle


def screens(station: Any, events: Any, session: Any) -> tuple[Any, Any, None]:
    from PySide6.QtWidgets import QLabel

    return QLabel("High Card"), QLabel("High Card: no settings"), None


def screenshots(out: Path) -> list[Path]:
    return []


def publish(config_path: str, profile: str | None) -> dict[str, Any]:
    return dict(CONTENT)


def config_check(path: Path) -> str:
    """High Card's file holds no settings: a TOML file that says so."""
    import tomllib

    with open(path, "rb") as f:
        if tomllib.load(f):
            raise ValueError(f"{path}: High Card takes no settings")
    return "High Card"


# --- the one registry line -----------------------------------------------------------------

def entry() -> games.Game:
    here = __name__ + ":"
    return games.Game(
        name=GAME, label="High Card", deck=BOURRE_DECK, unit="round", id_key="round_id",
        meter_labels=(("high", "High"), ("low", "Low")), meters_note="", banked=True,
        config_file="highcard.toml", config_noun="table file", config_option="--highcard-config",
        settle_loads_at_start=True,
        parts=tuple(sorted((name, here + attr) for name, attr in (
            ("table", "open_table"), ("simulate", "simulate"), ("settler", "settler"),
            ("events", "codec"), ("recall", "recall"), ("replay", "replay"),
            ("recall_text", "recall_text"), ("recall_html", "recall_html"),
            ("report_recall", "report_recall"), ("report_config", "report_config"),
            ("screens", "screens"), ("screenshots", "screenshots"), ("publish", "publish"),
            ("config_check", "config_check")))))


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[games.Game]:
    g = entry()
    monkeypatch.setitem(games.REGISTRY, GAME, g)
    yield g


def deal(t: HighCardTable, card: str, seq: int = 1) -> None:
    """The shoe deals ``card``: through the device path, as a serial shoe's frame comes."""
    t.on_device_event(CardRead(device="shoe", device_id="SHOE1", at=0.0, seq=seq,
                               card=parse_card(card)))
    t.worker.drain()


# --- the test --------------------------------------------------------------------------------

@pytest.fixture
def key(tmp_path: Path) -> JournalKey:
    return create_key(tmp_path / "table.key")


@pytest.fixture
def journal(tmp_path: Path, key: JournalKey) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{tmp_path / 'table.db'}")
    yield Journal(db, key)
    db.close()


ROUNDS = [  # (bets, card): seat, side, amount in cents
    ([(1, "high", 500), (2, "low", 1000)], "KH"),       # seat 1 wins 5.00, seat 2 loses
    ([(1, "low", 2500), (3, "low", 100)], "4C"),        # both win
    ([(2, "high", 5000)], "JK"),                        # a joker: lost
    ([(1, "high", 200), (2, "low", 300), (3, "high", 400)], "8D"),
]


def expected_meters() -> dict[str, tuple[int, int, int, int]]:
    """(rounds, wagered, paid, house win) per side, worked out by hand from ROUNDS."""
    return {"high": (3, 500 + 5000 + 200 + 400, 500 + 200 + 400, -500 + 5000 - 200 - 400),
            "low": (3, 1000 + 2500 + 100 + 300, 2500 + 100, 1000 - 2500 - 100 + 300)}


def play(journal: Journal, hasher: Any) -> HighCardTable:
    """Every round of ROUNDS through the real table, then a round stopped by a jam and
    voided by a supervisor. Returns the table, still open."""
    from dealer_station.audit.users import Users

    users = Users(journal, hasher=hasher)
    users.add("olga", "Olga Operator", "operator", "9753", actor="console:root")
    users.add("sue", "Sue Supervisor", "supervisor", "2468",
              actor=users.authenticate("olga", "9753"))
    t = games.game(GAME).part(TABLE)(journal, "T1", dealer="dealer/ann")
    t.startup()
    for n, (bets, card) in enumerate(ROUNDS, start=1):
        t.bet(bets, actor="dealer/ann")
        deal(t, card, seq=n)
    t.bet([(4, "high", 700)], actor="dealer/ann")
    t.on_device_event(DeviceStatus(device="shoe", device_id="SHOE1", at=0.0, seq=9,
                                   state="JAM"))
    t.worker.drain()
    assert t.halt is not None and t.halt.fault == "jam"
    t.void(users.authenticate("sue", "2468", table_id="T1"), "the shoe jammed mid-deal")
    return t


def test_a_third_game_defined_here_plays_through_the_stations_shared_code(
        registered: games.Game, journal: Journal, key: JournalKey, tmp_path: Path,
        pg_db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from dealer_station.app import fast_hasher
    from dealer_station.floor.alerts import Pit, PitSettings
    from dealer_station.floor.forwarder import Forwarder
    from dealer_station.reports.shift import build_shift_report, gather
    from dealer_station.reports.source import Period
    from dealer_station.table.audit_checks import replay as replay_all
    from dealer_station.table.recall import recall as recall_table

    t = play(journal, fast_hasher())
    try:
        # The journal: five rounds, the chain intact, every round settles again the same.
        (check,) = journal.verify("T1")
        assert check.ok, str(check)
        replayed = replay_all(journal, "T1")
        assert replayed.by_status == {"match": 4, "voided": 1}, replayed.differences
        assert replayed.differences == []

        # The meters the closing records projected, and proved from the chain.
        want = expected_meters()
        for got in (journal.meters("T1"), journal.meters_from_chain("T1")):
            assert {k: (m.rounds, m.wagered, m.paid, m.house_win)
                    for k, m in got.items()} == want

        # Recall: the game's own, newest first, with the void's reason and returned stake.
        recalled = recall_table(journal, "T1")
        assert [r.round_no for r in recalled] == [5, 4, 3, 2, 1]
        assert isinstance(recalled[0], HighCardRecall) and recalled[0].status == "voided"
        assert recalled[0].void_reason == "the shoe jammed mid-deal"
        assert recalled[0].returned() == 700 and recalled[0].wagered() == 0
        assert recalled[4].card == "KH" and recalled[4].won == (500, 0)
        assert recalled[2].won == (0,)                  # the joker
        assert recalled[4].to_json()["game"] == GAME
        # ...and on the command line, in the game's own words.
        from dealer_station.cli.main import main

        url = f"sqlite:///{tmp_path / 'table.db'}"
        assert main(["recall", "--db", url, "--key", str(key.path), "--table", "T1",
                     "--round", "1"]) == 0
        said = capsys.readouterr().out
        assert "High Card round 1 (Settled): card KH" in said
        assert "seat 1 High 5.00 -> won 5.00" in said, said

        # The shift report's figures and its printed page.
        data = gather(journal, "T1", Period())
        assert (data.rounds_settled, data.rounds_voided) == (4, 1)
        assert data.games == [GAME]
        for side, (rounds, wagered, paid, house_win) in want.items():
            f = data.kinds[side]
            assert (f.rounds, f.wagered, f.paid, f.house_win) == (rounds, wagered, paid,
                                                                  house_win), side
        built = build_shift_report(journal, "T1", out=tmp_path / "shift.pdf")
        from pypdf import PdfReader

        text = "\n".join(page.extract_text() for page in PdfReader(built.path).pages)
        assert "High Card" in text
        assert "High" in text and "Low" in text
        assert "61.00" in text          # wagered on High: 500 + 5000 + 200 + 400 cents
    finally:
        t.shutdown()
        t.lease.release()

    # The floor: the table's chain forwarded as stored; the pit sees the jam and the void.
    floor = open_database(pg_db_url)
    try:
        Forwarder(journal, pg_db_url, "T1", journal_outages=False).sync(timeout_s=60)
        floor_journal = Journal(floor, key)
        last = journal.last("T1")
        assert last is not None and floor_journal.last("T1") == last
        (floor_check,) = floor_journal.verify("T1")
        assert floor_check.ok, str(floor_check)
        view = Pit(floor_journal, settings=PitSettings()).view()
        (row,) = view.rows
        assert row.table == "T1"
        mine = [a for a in view.alerts if a.table == "T1"]
        assert {a.category for a in mine} >= {"halt", "void"}, mine
        halt = next(a for a in mine if a.category == "halt")
        assert halt.what == ("Round 5: play stopped: the shoe is jammed — stopped by the shoe "
                             "(SHOE1) (since voided by sue/supervisor)")
    finally:
        floor.close()


def test_its_registry_entry_passes_the_registrys_own_checks(registered: games.Game) -> None:
    """The entry is checked like the station's own games: every part it names fits the
    signature its callers use."""
    from test_game_registry import (
        test_every_game_has_its_parts_and_each_takes_the_calls_its_key_allows,
    )

    test_every_game_has_its_parts_and_each_takes_the_calls_its_key_allows()
    assert games.game(GAME).supplies(WINS) is None
    assert games.label(GAME) == "High Card"


def test_doctor_checks_its_file_with_the_others(registered: games.Game, tmp_path: Path) -> None:
    """``doctor`` asks every registered game to check its own file: the new game's is checked
    beside La Pair'e's and Bourré's, and a bad one is named."""
    import shutil

    from dealer_station.cli.doctor import check_config
    from dealer_station.gameconfig import config_dir

    conf = tmp_path / "config"
    shutil.copytree(config_dir(), conf)
    (conf / "highcard.toml").write_text("# High Card: no settings\n")
    said = [c.detail for c, _ in check_config(conf, conf / "devices.toml")]
    assert any(d.endswith("highcard.toml: valid (High Card)") for d in said), said
    assert any("lapaire.toml: valid (La Pair'e)" in d for d in said), said
    (conf / "highcard.toml").write_text("seats = 7\n")
    bad = [c for c, _ in check_config(conf, conf / "devices.toml")
           if "highcard.toml" in c.detail]
    assert [c.status for c in bad] == ["FAIL"], bad
    assert "High Card takes no settings" in bad[0].detail
