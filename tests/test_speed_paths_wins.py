"""The wins read summed per configuration version and spot by the database (La Pair'e's
``wins.by_span``, what the shift report and the master game report by shift read) against the
same rounds read wager by wager (``round_wins``, the per-round read), on journals played
through the real table service: three configuration versions (a poker paytable changed, a
wager withdrawn, the first one again), wagers taken back, rounds voided after a card and
before any, and periods cut at a round's close. Once on SQLite and once on PostgreSQL: the
SQL that picks the fields out of the payloads differs per dialect."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import text

from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal, JournalTampered, Record
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import Users
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.table.sim import random_wagers
from dealer_station.games.lapaire.table.wins import round_wins
from dealer_station.reports.shift import TOTAL, gather
from dealer_station.reports.source import Period
from dealer_station.table.wins import Span, SpanWins, WinsBySpan

TABLE = "T1"
ROUNDS = 44
USERS = [("olga", "Olga Example", "operator", "2468"),
         ("sue", "Sue Example", "supervisor", "2468")]


class SteppedClock:
    """The journal's clock: 13 seconds on at every record."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 6, 17, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=13)
        return self.now


@dataclass
class Played:
    journal: Journal
    db: Database
    closes: list[Record]      # every round's closing record, in order


def _pay(t: LaPaireTable) -> None:
    for stage in t.unconfirmed():
        t.confirm_payout(stage)


def _play(journal: Journal) -> None:
    users = Users(journal)
    users.seed(USERS, actor="setup/operator")
    sue = users.authenticate("sue", "2468", table_id=TABLE)
    olga = users.authenticate("olga", "2468", table_id=TABLE)
    first = load_lapaire_config()
    t = LaPaireTable(journal, TABLE, first, dealer="dee/dealer")
    t.startup()
    rng = random.Random(27)
    changes = {12: (first.with_changes(poker_paytable="alternative"), "paytable change approved"),
               24: (first.with_changes(offered={"poker": False}), "no poker tonight"),
               33: (first, "back to the standard table")}
    try:
        for n in range(ROUNDS):
            if n in changes:
                t.change_config(olga, *changes[n])
            placed = t.place_many(random_wagers(rng, t.config, seats=rng.randint(2, 6)))
            engine = t.engine
            assert engine is not None
            if n % 5 == 2:      # a wager taken back before the cards
                for p in reversed(placed):
                    if engine.can_remove(p.wager_id):
                        t.remove(p.wager_id)
                        break
            cards = [c.code for c in LAPAIRE_DECK.shuffled(rng)[:3]]
            if n % 9 == 5:      # voided after its first card: that stage stands
                t.deal(cards[0])
                _pay(t)
                t.void(sue, "shoe lost mid-round")
                continue
            if n % 13 == 7:     # voided before any card: every wager handed back
                t.void(sue, "dealer error before the cards")
                continue
            for card in cards:
                t.deal(card)
                _pay(t)
    finally:
        t.shutdown()


@pytest.fixture
def played(db_url: str, tmp_path: Path) -> Iterator[Played]:
    db = open_database(db_url)
    journal = Journal(db, create_key(tmp_path / "journal.key"), clock=SteppedClock())
    try:
        _play(journal)
        closes = list(journal.records(TABLE, kinds=["round.close", "void"]))
        assert len(closes) == ROUNDS
        yield Played(journal, db, closes)
    finally:
        db.close()


def _per_round(journal: Journal, spans: list[Span]) -> list[SpanWins]:
    """Each span's rounds read wager by wager, and summed here."""
    out = []
    for since, until in spans:
        span = SpanWins()
        for w in round_wins(journal, TABLE, since, until):
            span.add_round(w)
        out.append(span)
    return out


def _at(rec: Record) -> datetime:
    return datetime.fromisoformat(rec.ts)


def test_the_la_paire_wins_part_sums_spans() -> None:
    assert isinstance(round_wins, WinsBySpan)


def test_sums_per_spot_are_the_rounds_read_wager_by_wager(played: Played) -> None:
    journal, closes = played.journal, played.closes
    every: list[Span] = [(None, None)]
    # Cut at rounds' closing times (a span takes the round closed at its start), with a gap
    # whose rounds count nowhere, and the last span open-ended.
    cuts: list[Span] = [(None, _at(closes[9])), (_at(closes[9]), _at(closes[20])),
                        (_at(closes[20]), _at(closes[21])), (_at(closes[30]), None)]
    for spans in (every, cuts):
        slow = _per_round(journal, spans)
        for check_hashes in (True, False):
            fast = round_wins.by_span(journal, TABLE, spans, check_hashes=check_hashes)
            assert fast == slow
            for f, s in zip(fast, slow, strict=True):
                assert f.by_kind() == s.by_kind()
                assert f.theoretical_win == s.theoretical_win
                assert f.returned == s.returned
    (whole,) = round_wins.by_span(journal, TABLE, every)
    assert whole.rounds == ROUNDS
    assert whole.voided_returned > 0
    # Three configuration versions, each with its own par sheet.
    assert len({den for by_den in whole.scaled.values() for den in by_den}) >= 2
    # Most rounds were summed by the database; the voided ones and those with a wager
    # taken back were read wager by wager.
    voids = sum(1 for c in closes if c.kind == "void")
    assert voids <= whole.read_by_wager < ROUNDS // 2
    assert [s.rounds for s in round_wins.by_span(journal, TABLE, cuts)] == [9, 11, 1, 14]


def test_a_bound_reads_no_round_closed_after_it(played: Played) -> None:
    journal, closes = played.journal, played.closes
    bound = closes[26]
    (fast,) = round_wins.by_span(journal, TABLE, [(None, None)], through_seq=bound.seq)
    (slow,) = _per_round(journal, [(None, _at(bound) + timedelta(microseconds=1))])
    assert fast == slow
    assert fast.rounds == 27


def test_the_shift_reports_exact_figures_are_each_wagers(played: Played) -> None:
    journal, closes = played.journal, played.closes
    period = Period(_at(closes[4]), _at(closes[40]))
    data = gather(journal, TABLE, period)
    (slow,) = _per_round(journal, [(period.since, period.until)])
    expected = slow.by_kind()
    stakes = sum(s for s, _ in expected.values())
    theo = sum((t for _, t in expected.values()), Fraction(0))
    assert data.exact == {**expected, TOTAL: (stakes, theo)}
    assert data.returned_by_voids == slow.voided_returned
    # The stakes settled are what the closing records' meters count.
    assert {k: f.wagered for k, f in data.kinds.items()} == {k: s for k, (s, _) in
                                                              data.exact.items()}


def _update(db: Database, sql: str, **params: object) -> None:
    with db.engine.begin() as conn:
        conn.execute(text(sql), params)


def test_a_changed_stake_is_refused_where_hashes_are_checked(played: Played) -> None:
    journal, closes = played.journal, played.closes
    plain = next(c for c in closes[15:] if c.kind == "round.close")
    with journal.db.read() as conn:
        seq = conn.execute(text(
            "SELECT seq FROM journal WHERE table_id = :t AND kind = 'wager.place' AND "
            "round_no = :r ORDER BY seq LIMIT 1"), {"t": TABLE, "r": plain.round_no}).scalar()
    _update(played.db, "UPDATE journal SET payload = replace(payload, :old, :new) "
            "WHERE table_id = :t AND seq = :s", old='"amount":', new='"amount":1', t=TABLE,
            s=seq)
    with pytest.raises(JournalTampered, match=f"record {seq} "):
        round_wins.by_span(journal, TABLE, [(None, None)])
    # Unchecked (a report that verifies the chain on every page), the sums stand as the
    # records read: the meters no longer agree, so the round is read wager by wager.
    (fast,) = round_wins.by_span(journal, TABLE, [(None, None)], check_hashes=False)
    (slow,) = [SpanWins()]
    for w in round_wins(journal, TABLE, None, None, check_hashes=False):
        slow.add_round(w)
    assert fast == slow


def test_a_payload_that_is_not_json_is_no_figure(played: Played) -> None:
    journal, closes = played.journal, played.closes
    plain = next(c for c in closes[15:] if c.kind == "round.close")
    _update(played.db, "UPDATE journal SET payload = 'not json' WHERE table_id = :t AND "
            "kind = 'wager.place' AND round_no = :r", t=TABLE, r=plain.round_no)
    with pytest.raises(ValueError):
        round_wins.by_span(journal, TABLE, [(None, None)], check_hashes=False)
    # The shift report's theoretical win is what its closing records' meters carry, which
    # were not touched: it stands (and the verification on every page says the journal was
    # changed). Summed from the wagers, as before meters carried it, there would be none.
    data = gather(journal, TABLE, Period())
    want = sum((Fraction(*c.payload["meters"]["total"]["theoretical"]) for c in closes
                if c.payload["meters"]), Fraction(0))
    assert data.exact[TOTAL][1] == want > 0
    from dealer_station.reports.shift import _exact
    assert _exact(journal, TABLE, Period(), data.games, journal.last(TABLE).seq) == ({}, None)


def test_closing_meters_carry_each_rounds_exact_theoretical_win(played: Played) -> None:
    """What the shift report sums: every closing record's meters carry the theoretical win
    of the wagers it settled, per kind and in total, equal to each wager's stake at its own
    spot's edge (read wager by wager); a void says the stakes it handed back."""
    wins = {w.round_no: w for w in round_wins(played.journal, TABLE, None, None)}
    voids = 0
    for c in played.closes:
        w = wins[c.round_no]
        meters = c.payload["meters"]
        got = {k: Fraction(*m["theoretical"]) for k, m in meters.items()}
        want = {k: t for k, staked, t in w.by_kind if staked}
        assert {k: v for k, v in got.items() if k != TOTAL} == want
        assert got.get(TOTAL, Fraction(0)) == w.theoretical_win
        if c.kind == "void":
            voids += 1
            assert c.payload["returned_stakes"] == w.voided_returned
    assert voids and len(wins) == len(played.closes)
