"""The tournament: one category's entries, rounds or bracket, tags, places and money.

Split as every aggregate of the station is (docs/architecture.md): each action has
``verify_x`` (raises a ``TournamentError`` naming the reason), ``can_x`` (a bool) and ``x``,
which decides the events (pure: nothing changes), hands them to the sink (the journal) and then
applies them, and returns them as the frozen record of what was done. ``apply`` is the only
code that changes the state, so ``Tournament.rebuild(events)`` from the journal equals the live
tournament.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer_station.events.base import Event
from dealer_station.events.tournament import (
    Disqualified,
    EntryRegistered,
    EuchreHandScored,
    GameTagged,
    MatchCorrected,
    MatchResult,
    PlayerEliminated,
    PlayersMoved,
    ResultCorrected,
    RoundClosed,
    RoundSeated,
    TableResult,
    TieBroken,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
)
from dealer_station.tournament import seating, triple
from dealer_station.tournament.bracket import BYE, Bracket, MatchView, Status
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.euchre import EuchreGame, EuchreHand
from dealer_station.tournament.games import Elimination, TournamentGame

#: Who did it and the events, before they are applied: the journal, or nothing.
Sink = Callable[[Sequence[Event], str], None]
DIRECTOR = "director"


@dataclass(slots=True)
class TableEntry:
    results: dict[str, int]
    unawarded: int
    forfeits: tuple[str, ...]


@dataclass(slots=True)
class RoundState:
    number: int
    tables: tuple[tuple[str, ...], ...]
    results: dict[int, TableEntry] = field(default_factory=dict)
    ties: dict[int, tuple[str, ...]] = field(default_factory=dict)
    closed: bool = False


@dataclass(frozen=True, slots=True)
class StandingRow:
    entry: str
    members: tuple[str, ...]
    tags: int                 # game tags (triple) or losses (bracket)
    status: str               # playing, eliminated, disqualified, winner
    place: int | None


@dataclass(frozen=True, slots=True)
class Purse:
    """The entry fees collected and the prizes paid from them, in minor units (cents)."""

    collected: int
    prizes: tuple[int, ...]
    kept: int                 # what the organisers keep after the prizes (the house's share)

    @property
    def paid_out(self) -> int:
        """Every prize, in all."""
        return sum(self.prizes)

    @property
    def reconciles(self) -> bool:
        """Entry fees = prizes + the house's share, to the cent."""
        return self.collected == self.paid_out + self.kept


@dataclass(frozen=True, slots=True)
class MatchRow:
    view: MatchView
    scores: Mapping[str, int]
    forfeit: bool


class Tournament:
    def __init__(self, sink: Sink | None = None) -> None:
        self.sink = sink
        self.name = ""
        self.game: TournamentGame | None = None
        self.entry_fee = 0
        self.fixed_prizes: tuple[int, ...] = ()
        self.seed = 0
        self.entries: dict[str, tuple[str, ...]] = {}
        self.collected = 0
        self.order: tuple[str, ...] = ()
        self.rounds: dict[int, RoundState] = {}
        self.tags: dict[str, int] = {}
        self.eliminated: list[str] = []
        self.disqualified: list[str] = []
        self.places: tuple[str, ...] | None = None
        self.bracket: Bracket | None = None
        self.scores: dict[str, dict[str, int]] = {}
        self.forfeits: set[str] = set()
        self.euchre: dict[str, EuchreGame] = {}
        self.played: list[str] = []          # matches in the order they were played

    @classmethod
    def rebuild(cls, events: Iterable[Event], sink: Sink | None = None) -> Tournament:
        t = cls()
        for e in events:
            t.apply(e)
        t.sink = sink
        return t

    # -- reading -----------------------------------------------------------------------------

    @property
    def created(self) -> bool:
        return self.game is not None

    @property
    def started(self) -> bool:
        return bool(self.order)

    @property
    def finished(self) -> bool:
        return self.places is not None

    def rules(self) -> TournamentGame:
        if self.game is None:
            raise TournamentError("no tournament has been created here yet")
        return self.game

    @property
    def double(self) -> bool:
        return self.rules().elimination is Elimination.DOUBLE

    def active(self) -> tuple[str, ...]:
        """Entries still in the tournament, in the draw's order."""
        gone = set(self.eliminated)
        return tuple(e for e in (self.order or tuple(self.entries)) if e not in gone)

    @property
    def current_round(self) -> int:
        return max(self.rounds, default=0)

    def seating_chart(self, round_no: int) -> tuple[tuple[str, ...], ...]:
        return self._round(round_no).tables

    def table_outcome(self, round_no: int, table: int) -> triple.TableOutcome | None:
        """The table's winners and losers once its result is in (else None)."""
        rnd = self._round(round_no)
        entry = rnd.results.get(table)
        if entry is None:
            return None
        players = self._table(rnd, table)
        out = set(entry.forfeits) | (set(self.disqualified) & set(players))
        return triple.outcome(self.rules(), round_no, table, players, entry.results, out=out,
                              tie_order=rnd.ties.get(table, ()))

    def standings(self) -> tuple[StandingRow, ...]:
        """Every entry: tags (or losses), status and place, best first."""
        place = {e: i for i, e in enumerate(self.places or (), 1)}
        dq = set(self.disqualified)
        out = set(self.eliminated)
        rows = []
        for e, members in self.entries.items():
            status = ("disqualified" if e in dq else "eliminated" if e in out else
                      "winner" if self.places and self.places[0] == e else "playing")
            rows.append(StandingRow(e, members, self.tags.get(e, 0), status, place.get(e)))
        order = {e: i for i, e in enumerate(self.active() + tuple(reversed(self.eliminated)))}
        return tuple(sorted(rows, key=lambda r: (r.place or 10**6, r.tags,
                                                 order.get(r.entry, 0))))

    def matches(self) -> tuple[MatchRow, ...]:
        if self.bracket is None:
            return ()
        return tuple(MatchRow(v, dict(self.scores.get(v.id, {})), v.id in self.forfeits)
                     for v in self.bracket.views())

    def purse(self) -> Purse:
        if self.fixed_prizes:
            prizes = self.fixed_prizes
        else:
            shares = self.rules().prize_shares if self.game else ()
            prizes = tuple(self.collected * s // 100 for s in shares)
        return Purse(self.collected, prizes, self.collected - sum(prizes))

    def fees_due(self) -> int:
        """The entry fees the entries owe: the fee times the people entered (each entry's
        ``fee`` as registered is what :attr:`collected` adds up)."""
        return sum(self.entry_fee * len(members) for members in self.entries.values())

    def _round(self, round_no: int) -> RoundState:
        rnd = self.rounds.get(round_no)
        if rnd is None:
            have = f"rounds 1 to {self.current_round}" if self.rounds else "no rounds yet"
            raise TournamentError(f"there is no round {round_no} (the tournament has {have})")
        return rnd

    def _table(self, rnd: RoundState, table: int) -> tuple[str, ...]:
        if not 1 <= table <= len(rnd.tables):
            raise TournamentError(f"round {rnd.number} has tables 1 to {len(rnd.tables)}, "
                                  f"not {table}")
        return rnd.tables[table - 1]

    # -- doing -------------------------------------------------------------------------------

    def _do(self, events: Sequence[Event], by: str) -> tuple[Event, ...]:
        if self.sink is not None:
            self.sink(events, by)   # journaled first: if it fails, nothing changes
        for e in events:
            self.apply(e)
        return tuple(events)

    def _trial(self, events: Sequence[Event]) -> Tournament:
        trial = copy.copy(self)
        trial.sink = None
        trial = copy.deepcopy(trial)
        for e in events:
            trial.apply(e)
        return trial

    # create

    def verify_create(self, name: str, game: TournamentGame, entry_fee: int | None = None,
                      prizes: Sequence[int] = ()) -> None:
        if self.created:
            raise TournamentError(f"tournament {self.name!r} already exists")
        if not name or not name.strip():
            raise TournamentError("a tournament needs a name")
        problems = game.problems()
        if problems:
            raise TournamentError(f"{game.label}: {problems[0][0]}: {problems[0][1]}")
        if entry_fee is not None and (type(entry_fee) is not int or entry_fee < 0):
            raise TournamentError(f"the entry fee is a whole number of minor units (cents), "
                                  f"not {entry_fee!r}")
        if any(type(p) is not int or p < 0 for p in prizes):
            raise TournamentError(f"prizes are whole numbers of minor units, not "
                                  f"{list(prizes)}")

    def can_create(self, name: str, game: TournamentGame, entry_fee: int | None = None,
                   prizes: Sequence[int] = ()) -> bool:
        return _can(self.verify_create, name, game, entry_fee, prizes)

    def create(self, name: str, game: TournamentGame, *, entry_fee: int | None = None,
               prizes: Sequence[int] = (), seed: int = 0, by: str = DIRECTOR,
               reason: str | None = None) -> tuple[Event, ...]:
        self.verify_create(name, game, entry_fee, prizes)
        fee = game.entry_fee if entry_fee is None else entry_fee
        return self._do([TournamentCreated(name, game.key, game.to_data(), fee, tuple(prizes),
                                           seed, reason)], by)

    # register

    def verify_register(self, entry: str, members: Sequence[str] = ()) -> None:
        game = self.rules()
        if self.started:
            raise TournamentError("registration closed when games began: no late entries "
                                  "and no substitutions")
        if not entry or not entry.strip():
            raise TournamentError("an entry needs a name")
        if entry in self.entries:
            raise TournamentError(f"{entry} is already entered")
        people = tuple(members) or (entry,)
        if len(people) != game.team_size:
            raise TournamentError(f"{game.label} entries are teams of {game.team_size}: "
                                  f"{entry} names {len(people)} "
                                  f"{'person' if len(people) == 1 else 'people'}")
        taken = {p for ms in self.entries.values() for p in ms}
        twice = sorted(set(people) & taken) or sorted(p for p in people if people.count(p) > 1)
        if twice:
            raise TournamentError(f"{twice[0]} is already entered")

    def can_register(self, entry: str, members: Sequence[str] = ()) -> bool:
        return _can(self.verify_register, entry, members)

    def register(self, entry: str, members: Sequence[str] = (), *, by: str = DIRECTOR,
                 reason: str | None = None) -> tuple[Event, ...]:
        self.verify_register(entry, members)
        people = tuple(members) or (entry,)
        return self._do([EntryRegistered(entry, people, self.entry_fee * len(people),
                                         reason)], by)

    # start

    def verify_start(self) -> None:
        game = self.rules()
        if self.started:
            raise TournamentError("the tournament has already started")
        least = max(game.min_entries, 2)
        if len(self.entries) < least:
            what = "teams" if game.teams else "players"
            raise TournamentError(f"{len(self.entries)} {what} entered: a {game.label} "
                                  f"tournament needs at least {least} to fill one table")

    def can_start(self) -> bool:
        return _can(self.verify_start)

    def start(self, *, by: str = DIRECTOR, reason: str | None = None) -> tuple[Event, ...]:
        self.verify_start()
        game = self.rules()
        order = seating.draw(list(self.entries), self.seed, "draw")
        events: list[Event] = [TournamentStarted(order, reason)]
        if not self.double:
            events.append(RoundSeated(1, seating.seat(order, game.entries_per_table),
                                      "round 1: the draw"))
        return self._do(events, by)

    # table results (triple elimination)

    def _verify_open_table(self, round_no: int, table: int) -> tuple[RoundState, tuple[str, ...]]:
        if not self.started:
            raise TournamentError("the tournament has not started")
        if self.double:
            raise TournamentError(f"{self.rules().label} is played in a bracket: enter match "
                                  f"results, not table results")
        rnd = self._round(round_no)
        players = self._table(rnd, table)
        if rnd.closed:
            raise TournamentError(f"round {round_no} is closed")
        return rnd, players

    def verify_result(self, round_no: int, table: int, results: Mapping[str, int],
                      unawarded: int = 0, forfeits: Sequence[str] = ()) -> None:
        rnd, players = self._verify_open_table(round_no, table)
        if table in rnd.results:
            raise TournamentError(f"round {round_no} table {table} already has its result: "
                                  f"enter a correction (with the reason) to change it")
        triple.check_result(self.rules(), players, results, unawarded, forfeits,
                            where=f"round {round_no} table {table}")

    def can_result(self, round_no: int, table: int, results: Mapping[str, int],
                   unawarded: int = 0, forfeits: Sequence[str] = ()) -> bool:
        return _can(self.verify_result, round_no, table, results, unawarded, forfeits)

    def result(self, round_no: int, table: int, results: Mapping[str, int], *,
               unawarded: int = 0, forfeits: Sequence[str] = (), by: str = DIRECTOR,
               reason: str | None = None) -> tuple[Event, ...]:
        self.verify_result(round_no, table, results, unawarded, forfeits)
        return self._do([TableResult(round_no, table, dict(results), unawarded,
                                     tuple(forfeits), reason)], by)

    def verify_correct(self, round_no: int, table: int, results: Mapping[str, int],
                       unawarded: int = 0, forfeits: Sequence[str] = (),
                       reason: str | None = None) -> None:
        rnd, players = self._verify_open_table(round_no, table)
        if table not in rnd.results:
            raise TournamentError(f"round {round_no} table {table} has no result to correct")
        if not reason:
            raise TournamentError("a correction needs its reason")
        triple.check_result(self.rules(), players, results, unawarded, forfeits,
                            where=f"round {round_no} table {table}")

    def correct(self, round_no: int, table: int, results: Mapping[str, int], *,
                unawarded: int = 0, forfeits: Sequence[str] = (), by: str = DIRECTOR,
                reason: str | None = None) -> tuple[Event, ...]:
        self.verify_correct(round_no, table, results, unawarded, forfeits, reason)
        return self._do([ResultCorrected(round_no, table, dict(results), unawarded,
                                         tuple(forfeits), reason)], by)

    # ties: the extra game

    def ties(self, round_no: int) -> dict[int, tuple[str, ...]]:
        """Ties still to be broken before the round can close: table -> players
        (table 0: players eliminated with equal chips)."""
        rnd = self._round(round_no)
        out: dict[int, tuple[str, ...]] = {}
        for table in rnd.results:
            o = self.table_outcome(round_no, table)
            if o is not None and o.tied:
                out[table] = o.tied
        if not out and len(rnd.results) == len(rnd.tables):
            newly, chips = self._newly_eliminated(rnd)
            groups = triple.elimination_ties(newly, chips)
            order = rnd.ties.get(0, ())
            pending = [p for g in groups if not set(g) <= set(order) for p in g]
            if pending:
                out[0] = tuple(pending)
        return out

    def verify_break_tie(self, round_no: int, table: int, order: Sequence[str]) -> None:
        rnd = self._round(round_no)
        if rnd.closed:
            raise TournamentError(f"round {round_no} is closed")
        tied = self.ties(round_no).get(table)
        if tied is None:
            raise TournamentError(f"round {round_no} {_where(table)} has no tie to break")
        if sorted(order) != sorted(tied):
            raise TournamentError(f"the extra game orders exactly the tied players "
                                  f"({', '.join(tied)}), best first; got {', '.join(order)}")

    def break_tie(self, round_no: int, table: int, order: Sequence[str], *,
                  by: str = DIRECTOR, reason: str | None = None) -> tuple[Event, ...]:
        self.verify_break_tie(round_no, table, order)
        return self._do([TieBroken(round_no, table, tuple(order), reason or "extra game")], by)

    # closing a round

    def _newly_eliminated(self, rnd: RoundState) -> tuple[list[str], dict[str, int]]:
        limit = self.rules().tags_to_eliminate
        chips: dict[str, int] = {}
        newly = []
        for table in range(1, len(rnd.tables) + 1):
            o = self.table_outcome(rnd.number, table)
            if o is None:
                continue
            chips.update(o.results)
            for p in o.losers:
                if p not in self.disqualified and self.tags.get(p, 0) + 1 >= limit:
                    newly.append(p)
        return newly, chips

    def verify_close_round(self, round_no: int) -> None:
        if self.finished:
            raise TournamentError("the tournament is over")
        rnd, _ = self._verify_open_table(round_no, 1)
        missing = [str(t) for t in range(1, len(rnd.tables) + 1) if t not in rnd.results]
        if missing:
            raise TournamentError(f"round {round_no} cannot close: no result yet for table "
                                  f"{', '.join(missing)}")
        game = self.rules()
        for t, entry in rnd.results.items():   # the chip check, once more, at the close
            triple.check_result(game, rnd.tables[t - 1], entry.results, entry.unawarded,
                                entry.forfeits, where=f"round {round_no} table {t}")
        ties = self.ties(round_no)
        if ties:
            t, who = next(iter(ties.items()))
            raise TournamentError(f"round {round_no} cannot close: {', '.join(who)} are tied "
                                  f"({_where(t)}); enter the extra game's order (tiebreak)")

    def can_close_round(self, round_no: int) -> bool:
        return _can(self.verify_close_round, round_no)

    def close_round(self, round_no: int, *, by: str = DIRECTOR,
                    reason: str | None = None) -> tuple[Event, ...]:
        self.verify_close_round(round_no)
        game = self.rules()
        rnd = self.rounds[round_no]
        events: list[Event] = []
        dq = set(self.disqualified)
        for table in range(1, len(rnd.tables) + 1):
            o = self.table_outcome(round_no, table)
            assert o is not None
            for p in o.losers:
                if p not in dq:
                    events.append(GameTagged(round_no, p, self.tags.get(p, 0) + 1,
                                             f"lost round {round_no} at table {table}"))
        newly, chips = self._newly_eliminated(rnd)
        for p in triple.elimination_order(newly, chips, rnd.ties.get(0, ())):
            events.append(PlayerEliminated(round_no, p,
                                           f"game tag {game.tags_to_eliminate}"))
        events.append(RoundClosed(round_no, reason))
        trial = self._trial(events)
        left = trial.active()
        if len(left) <= 1:
            events.append(TournamentFinished(trial.final_places(), "one player is left"))
        else:
            events += self._next_seating(rnd, left)
        return self._do(events, by)

    def _next_seating(self, rnd: RoundState, left: Sequence[str]) -> list[Event]:
        game = self.rules()
        size = game.entries_per_table
        nxt = rnd.number + 1
        still = set(left)
        kept = tuple(tuple(p for p in t if p in still) for t in rnd.tables)
        kept = tuple(t for t in kept if t)
        move = game.move_after_round and rnd.number == game.move_after_round
        if not move and seating.balanced(kept, size):
            return [RoundSeated(nxt, kept, f"round {nxt}: the same tables")]
        tables = seating.seat(seating.draw(left, self.seed, f"round-{nxt}"), size)
        why = (f"players move to new tables at the end of round {rnd.number}" if move else
               "tables re-balanced: eliminations left them unequal")
        if len(tables) == 1:
            why = "the survivors fit at one table"
        moved = {p: list(m) for p, m in seating.moves(rnd.tables, tables).items()}
        return [PlayersMoved(nxt, moved, why), RoundSeated(nxt, tables, why)]

    def final_places(self) -> tuple[str, ...]:
        """First to last: the winner, then in reverse order of elimination; disqualified
        entries last."""
        dq = set(self.disqualified)
        out = [e for e in self.eliminated if e not in dq]
        return tuple(self.active()) + tuple(reversed(out)) + tuple(reversed(self.disqualified))

    # bracket matches (double elimination)

    def _verify_match(self, mid: str) -> Bracket:
        if not self.started:
            raise TournamentError("the tournament has not started")
        if self.bracket is None:
            raise TournamentError(f"{self.rules().label} has no bracket: enter table results")
        self.bracket.spec(mid)
        return self.bracket

    def verify_match(self, mid: str, scores: Mapping[str, int], winner: str | None = None,
                     forfeit: bool = False) -> None:
        bracket = self._verify_match(mid)
        if mid in self.euchre and not forfeit:
            raise TournamentError(f"match {mid} is being scored hand by hand")
        teams = bracket.teams_of(mid)
        if not forfeit and winner is None and _leader(scores) is None:
            # Level scores name no winner: say so, before asking the bracket about one.
            raise TournamentError(f"match {mid}: give both teams' scores, one higher")
        bracket.verify_play(mid, winner or _leader(scores) or "")
        if set(scores) - set(teams):
            raise TournamentError(f"{', '.join(sorted(set(scores) - set(teams)))} did not play "
                                  f"in match {mid} ({teams[0]} v {teams[1]})")
        if not forfeit:
            w = _leader(scores)
            if w is None or set(scores) != set(teams):
                raise TournamentError(f"match {mid}: give both teams' scores, one higher")
            if winner is not None and winner != w:
                raise TournamentError(f"match {mid}: {winner} is not the higher score")

    def match(self, mid: str, scores: Mapping[str, int], *, winner: str | None = None,
              forfeit: bool = False, by: str = DIRECTOR,
              reason: str | None = None) -> tuple[Event, ...]:
        self.verify_match(mid, scores, winner, forfeit)
        w = winner or _leader(scores)
        assert w is not None
        return self._do(self._then_finish([MatchResult(mid, dict(scores), w, forfeit,
                                                       reason)]), by)

    def verify_euchre_hand(self, mid: str, hand: EuchreHand) -> None:
        bracket = self._verify_match(mid)
        bracket.verify_play(mid, bracket.teams_of(mid)[0] or "")
        self._euchre_game(mid).verify_hand(hand)

    def can_euchre_hand(self, mid: str, hand: EuchreHand) -> bool:
        return _can(self.verify_euchre_hand, mid, hand)

    def euchre_hand(self, mid: str, hand: EuchreHand, *, by: str = DIRECTOR,
                    reason: str | None = None) -> tuple[Event, ...]:
        self.verify_euchre_hand(mid, hand)
        g = self._euchre_game(mid)
        points, _ = g.points(hand)
        events: list[Event] = [EuchreHandScored(mid, len(g.sheet) + 1, g.dealer, hand.makers,
                                                hand.tricks, hand.alone, points, hand.renege,
                                                hand.lead_out_of_turn, reason)]
        after = {t: g.scores[t] + points[t] for t in g.teams}
        won = [t for t in g.teams if after[t] >= g.target]
        if won:
            events.append(MatchResult(mid, after, won[0], False, f"reached {g.target}"))
        return self._do(self._then_finish(events), by)

    def _euchre_game(self, mid: str) -> EuchreGame:
        game = self.euchre.get(mid)
        if game is None:
            assert self.bracket is not None
            a, b = self.bracket.teams_of(mid)
            assert a and b
            game = EuchreGame(a, b, target=self.rules().game_points)
        return game

    def euchre_sheet(self, mid: str) -> EuchreGame | None:
        return self.euchre.get(mid)

    def verify_correct_match(self, mid: str, scores: Mapping[str, int], reason: str | None
                             ) -> None:
        bracket = self._verify_match(mid)
        w = _leader(scores)
        if w is None:
            raise TournamentError(f"match {mid}: give both teams' scores, one higher")
        bracket.verify_correct(mid, w)
        if not reason:
            raise TournamentError("a correction needs its reason")
        if self.finished:
            raise TournamentError("the tournament is over: its places stand")

    def correct_match(self, mid: str, scores: Mapping[str, int], *, by: str = DIRECTOR,
                      reason: str | None = None) -> tuple[Event, ...]:
        self.verify_correct_match(mid, scores, reason)
        w = _leader(scores)
        assert w is not None
        return self._do(self._then_finish([MatchCorrected(mid, dict(scores), w, reason)]), by)

    def _then_finish(self, events: list[Event]) -> list[Event]:
        if not any(isinstance(e, MatchResult | MatchCorrected | Disqualified) for e in events):
            return events   # a hand that does not end its match decides nothing more
        trial = self._trial(events)
        if trial.bracket is not None and trial.bracket.champion() is not None:
            events.append(TournamentFinished(trial.final_places(), "the final is decided"))
        return events

    # disqualification

    def verify_disqualify(self, entry: str, reason: str | None) -> None:
        if entry not in self.entries:
            raise TournamentError(f"{entry} is not entered")
        if not self.started:
            raise TournamentError("the tournament has not started: an entry who leaves "
                                  "before the games is not entered (no refunds)")
        if self.finished:
            raise TournamentError("the tournament is over")
        if entry in self.eliminated:
            raise TournamentError(f"{entry} is already out of the tournament")
        if not reason:
            raise TournamentError("a disqualification needs its reason")

    def disqualify(self, entry: str, *, by: str = DIRECTOR,
                   reason: str | None = None) -> tuple[Event, ...]:
        self.verify_disqualify(entry, reason)
        wave = self.current_round if not self.double else len(self.played)
        events: list[Event] = [Disqualified(entry, wave, reason)]
        if self.double:
            return self._do(self._then_finish(events), by)
        trial = self._trial(events)
        if len(trial.active()) <= 1:
            events.append(TournamentFinished(trial.final_places(), "one player is left"))
        return self._do(events, by)

    # -- applying ----------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """The only change to the state (live, and when rebuilt from the journal)."""
        if isinstance(event, TournamentCreated):
            self.name = event.name
            self.game = TournamentGame.from_data(event.rules)
            self.entry_fee = event.entry_fee
            self.fixed_prizes = event.prizes
            self.seed = event.seed
        elif isinstance(event, EntryRegistered):
            self.entries[event.entry] = event.members
            self.collected += event.fee
        elif isinstance(event, TournamentStarted):
            self.order = event.order
            self.tags = {e: 0 for e in event.order}
            if self.double:
                self.bracket = Bracket(event.order)
        elif isinstance(event, RoundSeated):
            self.rounds[event.round] = RoundState(event.round, event.tables)
        elif isinstance(event, TableResult | ResultCorrected):
            self.rounds[event.round].results[event.table] = TableEntry(
                {k: int(v) for k, v in event.results.items()}, event.unawarded,
                event.forfeits)
        elif isinstance(event, TieBroken):
            self.rounds[event.round].ties[event.table] = event.order
        elif isinstance(event, GameTagged):
            self.tags[event.player] = event.tags
        elif isinstance(event, PlayerEliminated):
            self.eliminated.append(event.player)
        elif isinstance(event, RoundClosed):
            self.rounds[event.round].closed = True
        elif isinstance(event, EuchreHandScored):
            self._euchre_apply(event)
        elif isinstance(event, MatchResult):
            self._match_apply(event.match, event.scores, event.winner, event.forfeit)
        elif isinstance(event, MatchCorrected):
            self._match_apply(event.match, event.scores, event.winner, False, corrected=True)
        elif isinstance(event, Disqualified):
            self.disqualified.append(event.entry)
            if event.entry not in self.eliminated:
                self.eliminated.append(event.entry)
            if self.bracket is not None:
                self.bracket.disqualify(event.entry)
        elif isinstance(event, TournamentFinished):
            self.places = event.places
        # PlayersMoved is a record for people: the seating that follows holds the tables.

    def _euchre_apply(self, e: EuchreHandScored) -> None:
        game = self._euchre_game(e.match)
        self.euchre[e.match] = game
        game.hand(EuchreHand(e.makers, e.tricks, e.alone, e.renege, e.lead_out_of_turn))

    def _match_apply(self, mid: str, scores: Mapping[str, Any], winner: str, forfeit: bool,
                     *, corrected: bool = False) -> None:
        assert self.bracket is not None
        a, b = self.bracket.teams_of(mid)
        loser = b if winner == a else a
        assert loser is not None
        if corrected:
            old = self.bracket.results[mid]
            old_loser = b if old == a else a
            if old != winner and old_loser is not None:
                self.tags[old_loser] -= 1
                if old_loser in self.eliminated and old_loser not in self.disqualified:
                    self.eliminated.remove(old_loser)
                self._lose(loser)
        else:
            self.played.append(mid)
            self._lose(loser)
        self.scores[mid] = {k: int(v) for k, v in scores.items()}
        if forfeit:
            self.forfeits.add(mid)
        self.bracket.record(mid, winner)

    def _lose(self, team: str) -> None:
        if team == BYE:
            return
        self.tags[team] = self.tags.get(team, 0) + 1
        if self.tags[team] >= 2 and team not in self.eliminated:
            self.eliminated.append(team)

    # -- comparing -----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Everything a reader can see, as plain data (a rebuilt tournament equals the live
        one exactly when their snapshots are equal)."""
        rounds = {n: {"tables": r.tables, "closed": r.closed, "ties": dict(r.ties),
                      "results": {t: (e.results, e.unawarded, e.forfeits)
                                  for t, e in r.results.items()}}
                  for n, r in self.rounds.items()}
        return {
            "name": self.name, "game": self.game, "entries": dict(self.entries),
            "collected": self.collected, "order": self.order, "rounds": rounds,
            "tags": dict(self.tags), "eliminated": list(self.eliminated),
            "disqualified": list(self.disqualified), "places": self.places,
            "matches": self.matches(), "played": list(self.played),
            "sheets": {m: g.sheet for m, g in self.euchre.items()},
            "standings": self.standings(), "purse": self.purse(),
        }


def _leader(scores: Mapping[str, int]) -> str | None:
    """The team with the strictly highest score (None for a level score or none at all)."""
    if len(scores) < 2:
        return next(iter(scores), None) if len(scores) == 1 else None
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return ranked[0][0] if ranked[0][1] > ranked[1][1] else None


def _where(table: int) -> str:
    return "players eliminated with equal chips" if table == 0 else f"table {table}"


def _can(verify: Callable[..., None], *args: Any) -> bool:
    try:
        verify(*args)
    except TournamentError:
        return False
    return True


__all__ = ["BYE", "DIRECTOR", "MatchRow", "Purse", "RoundState", "Sink", "StandingRow",
           "Status", "Tournament"]
