"""``dealer-station tournament``: a card tournament's director at the command line.

Each tournament is its own chain in the journal (``--db``/``--key``), the stream
``tournament-NAME``: create it, register entries, start it (registration closes and round 1
is seated, or the bracket drawn), enter each table's result or each match's (Euchre: hand by
hand), break ties by the extra game's order, close rounds, disqualify, correct; read the
seating, standings with game tags, bracket and status. ``simulate`` plays a whole tournament
with random results (Bourré tables on the station's Bourré engine) and prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_station.cli.audit import default_actor, open_store, store_options
from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.tournament.games import TournamentGame
    from dealer_station.tournament.tournament import Tournament

PRINTS = ("seating", "score-sheets", "standings", "bracket", "results")

SIMULATE_HELP = """\
play a whole tournament with random results and print one JSON object: rounds (tables,
players, results, winners, losers; for Pedro and Euchre the players are teams and each table is
a match), tags, eliminated (in order), places (first to last) and, for the double-elimination
games, bracket (every match played: side winners/losers/final, teams, winner) and byes.
--players counts people: Pedro and Euchre make teams of two (T01 = P001+P002). Bourré tables
are played on the station's Bourré engine (tournament profile, --hands hands a session).
The journal: with --db the tournament is journaled there (stream tournament-NAME, NAME from
--name, default sim-GAME-SEED); without --db it goes to a temporary SQLite database that is
deleted when the command ends."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("tournament", help="card tournaments: entries, rounds, tags, brackets",
                       description=__doc__)
    tsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    store = store_options()

    def action(name: str, help_text: str, *, aliases: Sequence[str] = (),
               named: bool = True) -> argparse.ArgumentParser:
        a: argparse.ArgumentParser = tsub.add_parser(
            name, parents=[store], help=help_text, aliases=list(aliases),
            description=help_text)
        if named:
            a.add_argument("name", help="the tournament's name (its journal stream is "
                                        "tournament-NAME)")
        a.add_argument("--as", dest="as_user", metavar="USER", default=None,
                       help="sign in as this user (a supervisor or operator; the PIN is "
                            "asked for) to change the tournament: required on a journal that "
                            "has users")
        a.add_argument("--pin-stdin", action="store_true",
                       help="read the --as user's PIN from standard input (for scripts)")
        a.add_argument("--by", metavar="NAME", default=None,
                       help="who does it, for the journal, on a journal with no users only "
                            "(default: the console user)")
        a.add_argument("--reason", default=None, help="why, for the journal")
        return a

    a = action("create", "create a tournament: one game, its entry fee and prizes")
    a.add_argument("--game", required=True, help="bourre, pitty-pat, po-ke-no, rummy, pedro "
                                                 "or euchre")
    a.add_argument("--fee", type=int, default=None, metavar="CENTS",
                   help="entry fee per person in minor units (default: the game's, config)")
    a.add_argument("--prizes", default="", metavar="A,B,C",
                   help="prizes for 1st, 2nd, 3rd... in minor units (default: the config's "
                        "shares of the fees collected)")
    a.add_argument("--seed", type=int, default=0, help="seed of the seating draw")
    a.add_argument("--config", metavar="FILE", help="tournament.toml (default: the station's)")
    a.set_defaults(func=_create)

    a = action("register", "enter a player, or a team with --members")
    a.add_argument("entry")
    a.add_argument("--members", default="", metavar="A,B", help="a team's two people")
    a.set_defaults(func=_register)

    action("start", "close registration and seat round 1 (or draw the bracket)"
           ).set_defaults(func=_start)

    a = action("seating", "the tables of a round")
    a.add_argument("--round", type=int, default=None, help="default: the current round")
    a.set_defaults(func=_seating)

    a = action("result", "a table's result (chips or score per player), or a match's")
    _result_options(a)
    a.set_defaults(func=_result)

    a = action("correct", "replace a table's or match's result (with --reason)")
    _result_options(a)
    a.set_defaults(func=_correct)

    a = action("hand", "one Euchre hand of a match, as the score sheet has it")
    a.add_argument("--match", required=True)
    a.add_argument("--makers", required=True, help="the team that called trump")
    a.add_argument("--tricks", type=int, required=True, help="the makers' tricks, 0 to 5")
    a.add_argument("--alone", action="store_true")
    a.add_argument("--renege", metavar="TEAM", default=None, help="the team that reneged")
    a.add_argument("--lead-out-of-turn", action="store_true")
    a.set_defaults(func=_hand)

    a = action("tiebreak", "the extra game's order (best first) for tied players")
    a.add_argument("--round", type=int, required=True)
    a.add_argument("--table", type=int, required=True,
                   help="the table (0: players eliminated with equal chips)")
    a.add_argument("--order", required=True, metavar="A,B,C")
    a.set_defaults(func=_tiebreak)

    a = action("close-round", "close a round: tags, eliminations, the next seating")
    a.add_argument("--round", type=int, default=None, help="default: the current round")
    a.set_defaults(func=_close)

    a = action("disqualify", "disqualify an entry (forfeits its games; --reason required)")
    a.add_argument("entry")
    a.set_defaults(func=_disqualify)

    for name, text, aliases, func in (
            ("standings", "entries with game tags (or losses), status and places", ["tags"],
             _standings),
            ("bracket", "every match of the bracket with its side, teams and winner", [],
             _bracket),
            ("status", "the tournament at a glance: round, tables, money", [], _status)):
        a = action(name, text, aliases=aliases)
        a.add_argument("--json", action="store_true")
        a.set_defaults(func=func)

    a = action("director", "the tournament director's screen (1280x800 touchscreen)",
               named=False)
    a.add_argument("name", nargs="?", help="the tournament's name (required unless "
                                           "--screenshots)")
    a.add_argument("--fullscreen", action="store_true", help="fill the screen")
    a.add_argument("--exit-after", type=float, metavar="SECONDS", help=argparse.SUPPRESS)
    a.add_argument("--screenshots", metavar="DIR",
                   help="write tournament-*.png screenshots of the screen from demo "
                        "tournaments (a throwaway journal) and exit")
    a.set_defaults(func=_director)

    a = action("print", "print a sheet as a PDF: seating, score sheets, standings, the "
                        "bracket, the final results", named=False)
    a.add_argument("name", nargs="?", help="the tournament's name (required unless "
                                           "--samples)")
    a.add_argument("--what", choices=PRINTS, default=None,
                   help="seating (a round's tables, to post), score-sheets (a sheet per "
                        "table, or per match to play, filled in by hand), standings (game "
                        "tags), bracket (landscape), results (places, prizes, entry fees)")
    a.add_argument("--round", type=int, default=None,
                   help="seating and score sheets: the round (default: the current one)")
    a.add_argument("--out", metavar="FILE.pdf", default=None,
                   help="where to write it (default: tournament-NAME-WHAT.pdf)")
    a.add_argument("--paper", choices=("A4", "letter"), default="A4")
    a.add_argument("--samples", metavar="DIR",
                   help="write sample sheets of demo tournaments, with page images "
                        "(pdftoppm), and exit")
    a.set_defaults(func=_print)

    a = action("simulate", "play a whole tournament with random results (JSON)", named=False)
    a.description = SIMULATE_HELP
    a.formatter_class = argparse.RawDescriptionHelpFormatter
    a.add_argument("--game", required=True)
    a.add_argument("--players", type=int, required=True, metavar="N")
    a.add_argument("--seed", type=int, default=0, metavar="S")
    a.add_argument("--json", action="store_true", help="print the JSON object (the default)")
    a.add_argument("--hands", type=int, default=None, metavar="N",
                   help="Bourré hands that stand for a 30-minute session (default 20)")
    a.add_argument("--name", default=None, help="the tournament's name in the journal")
    a.add_argument("--config", metavar="FILE", help="tournament.toml (default: the station's)")
    a.set_defaults(func=_simulate)


def _result_options(a: argparse.ArgumentParser) -> None:
    a.add_argument("--round", type=int, default=None, help="default: the current round")
    a.add_argument("--table", type=int, default=None)
    a.add_argument("--chips", action="append", default=[], metavar="PLAYER=N",
                   help="a player's chips (or score); once per player")
    a.add_argument("--unawarded", type=int, default=0,
                   help="chips left on the table that no player holds (a carried pot)")
    a.add_argument("--forfeit", action="append", default=[], metavar="PLAYER",
                   help="a player (or, with --match, the team) that forfeited")
    a.add_argument("--match", default=None, help="a bracket match (W1-1, L2-1, F1, F2)")
    a.add_argument("--score", action="append", default=[], metavar="TEAM=N",
                   help="a team's score in the match")


# -- helpers ----------------------------------------------------------------------------------

def _games(config: str | None) -> dict[str, TournamentGame]:
    from dealer_station.gameconfig import config_dir
    from dealer_station.tournament.config import FILE, load_games

    if config:
        return load_games(config)
    default = config_dir() / FILE
    return load_games(default if default.exists() else None)


def _pairs(items: Sequence[str], what: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        try:
            number = int(value)
        except ValueError:
            number = None
        if not sep or not name or number is None:
            raise StationError(f"{what} {item!r}: write NAME=N with a whole number, "
                               f"e.g. P001=120")
        if name in out:
            raise StationError(f"{what}: {name} is given twice")
        out[name] = number
    return out


def _list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


#: Who may direct a tournament: the floor's supervisors and operators.
DIRECTORS = ("supervisor", "operator")


def _by(args: argparse.Namespace) -> str:
    """Who does it, as the session established (see :func:`_sign_in`)."""
    return str(args.actor)


def _sign_in(args: argparse.Namespace, journal: Any) -> str:
    """The actor for what this command journals. On a journal with users, a supervisor or an
    operator signs in with ``--as`` and a PIN (the attempt is journaled on the station's
    chain); a name given with ``--by`` is refused, since nobody vouches for it."""
    from dealer_station.audit.users import Users, require_role
    from dealer_station.cli.users import _PinSource

    users = Users(journal)
    if not users.has_users():
        if args.as_user:
            raise StationError(f"--as {args.as_user}: this journal has no users to sign in "
                               f"as; give who does it with --by NAME")
        return str(args.by or default_actor())
    if args.by:
        raise StationError("this journal has users: sign in with --as USER (a supervisor or "
                           "operator, with their PIN) instead of naming someone with --by")
    if not args.as_user:
        raise StationError("this journal has users: sign in with --as USER (a supervisor or "
                           "operator) to change a tournament")
    pin = _PinSource(args.pin_stdin).read(f"PIN for {args.as_user}: ")
    user = users.authenticate(args.as_user, pin)
    return require_role(user, *DIRECTORS, action="direct a tournament").actor


class _Session:
    """The journal opened and the tournament loaded from its stream."""

    def __init__(self, args: argparse.Namespace, *, write: bool = True,
                 must_exist: bool = True) -> None:
        self.args = args
        self.write = write
        self.must_exist = must_exist

    def __enter__(self) -> Tournament:
        from dealer_station.tournament import journaled

        self._ctx = open_store(self.args, write=self.write)
        store = self._ctx.__enter__()
        try:
            t = journaled.load(store.journal, self.args.name, must_exist=self.must_exist)
            if self.write:
                self.args.actor = _sign_in(self.args, store.journal)
            return t
        except BaseException:
            self._ctx.__exit__(*sys.exc_info())
            raise

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)


def _said(events: Sequence[Any]) -> None:
    for e in events:
        payload = e.to_payload()
        detail = ", ".join(f"{k}={v}" for k, v in payload.items() if k not in ("rules",))
        print(f"{e.KIND}: {detail}")


# -- actions ----------------------------------------------------------------------------------

def _create(args: argparse.Namespace) -> int:
    from dealer_station.tournament.config import game_for

    game = game_for(_games(args.config), args.game)
    try:
        prizes = [int(x) for x in _list(args.prizes)]
    except ValueError:
        raise StationError(f"--prizes {args.prizes!r}: whole numbers of minor units, "
                           f"e.g. 10000,5000,2500") from None
    with _Session(args, must_exist=False) as t:
        _said(t.create(args.name, game, entry_fee=args.fee, prizes=prizes, seed=args.seed,
                       by=_by(args), reason=args.reason))
    return 0


def _register(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        _said(t.register(args.entry, _list(args.members), by=_by(args), reason=args.reason))
    return 0


def _start(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        t.start(by=_by(args), reason=args.reason)
        _print_status(t)
    return 0


def _round(t: Tournament, given: int | None) -> int:
    if given is not None:
        return given
    if not t.rounds:
        raise StationError("no round is seated yet: start the tournament first")
    return t.current_round


def _seating(args: argparse.Namespace) -> int:
    with _Session(args, write=False) as t:
        r = _round(t, args.round)
        print(f"{t.name}: {t.rules().label}, round {r}")
        for i, players in enumerate(t.seating_chart(r), 1):
            print(f"  table {i}: {', '.join(players)}")
    return 0


def _result(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        if args.match:
            scores = _pairs(args.score, "--score")
            winner = None
            if args.forfeit:
                teams = t.bracket.teams_of(args.match) if t.bracket else ()
                others = [x for x in teams if x and x not in args.forfeit]
                winner = others[0] if others else None
            _said(t.match(args.match, scores, winner=winner, forfeit=bool(args.forfeit),
                          by=_by(args), reason=args.reason))
            return 0
        if args.table is None:
            raise StationError("give --table N (or --match M for a bracket game)")
        _said(t.result(_round(t, args.round), args.table, _pairs(args.chips, "--chips"),
                       unawarded=args.unawarded, forfeits=args.forfeit, by=_by(args),
                       reason=args.reason))
    return 0


def _correct(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        if args.match:
            _said(t.correct_match(args.match, _pairs(args.score, "--score"), by=_by(args),
                                  reason=args.reason))
            return 0
        if args.table is None:
            raise StationError("give --table N (or --match M for a bracket game)")
        _said(t.correct(_round(t, args.round), args.table, _pairs(args.chips, "--chips"),
                        unawarded=args.unawarded, forfeits=args.forfeit, by=_by(args),
                        reason=args.reason))
    return 0


def _hand(args: argparse.Namespace) -> int:
    from dealer_station.tournament.euchre import EuchreHand

    with _Session(args) as t:
        hand = EuchreHand(args.makers, args.tricks, args.alone, args.renege,
                          args.lead_out_of_turn)
        _said(t.euchre_hand(args.match, hand, by=_by(args), reason=args.reason))
    return 0


def _tiebreak(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        _said(t.break_tie(args.round, args.table, _list(args.order), by=_by(args),
                          reason=args.reason))
    return 0


def _close(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        _said(t.close_round(_round(t, args.round), by=_by(args), reason=args.reason))
    return 0


def _disqualify(args: argparse.Namespace) -> int:
    with _Session(args) as t:
        _said(t.disqualify(args.entry, by=_by(args), reason=args.reason))
    return 0


def _standings(args: argparse.Namespace) -> int:
    with _Session(args, write=False) as t:
        rows = t.standings()
        if args.json:
            print(json.dumps([{"entry": r.entry, "members": list(r.members), "tags": r.tags,
                               "status": r.status, "place": r.place} for r in rows]))
            return 0
        word = "losses" if t.bracket is not None else "tags"
        print(f"{'place':>5}  {'entry':<12} {word:>6}  status")
        for r in rows:
            members = f" ({'+'.join(r.members)})" if len(r.members) > 1 else ""
            print(f"{r.place or '':>5}  {r.entry:<12} {r.tags:>6}  {r.status}{members}")
    return 0


def _bracket(args: argparse.Namespace) -> int:
    with _Session(args, write=False) as t:
        rows = t.matches()
        if not rows:
            raise StationError(f"{t.rules().label} has no bracket"
                               + ("" if t.started else " yet: start the tournament"))
        if args.json:
            print(json.dumps([{"match": r.view.id, "side": r.view.side.value,
                               "round": r.view.round, "wave": r.view.wave,
                               "teams": list(r.view.teams), "status": r.view.status.value,
                               "winner": r.view.winner, "scores": dict(r.scores)}
                              for r in rows]))
            return 0
        for r in rows:
            v = r.view
            teams = " v ".join("?" if x is None else (x or "bye") for x in v.teams)
            won = f"  -> {v.winner}" if v.winner else ""
            print(f"{v.id:<7} {v.side.value:<8} round {v.round:<2} wave {v.wave:<2} "
                  f"{teams:<20} {v.status.value}{won}")
    return 0


def _status(args: argparse.Namespace) -> int:
    with _Session(args, write=False) as t:
        if args.json:
            from dealer_station.tournament.simulate import report

            print(json.dumps(report(t)))
            return 0
        _print_status(t)
    return 0


def _print_status(t: Tournament) -> None:
    from dealer_station.tournament.display import MONEY

    game = t.rules()
    purse = t.purse()
    print(f"{t.name}: {game.label}, {len(t.entries)} entries, "
          f"{'finished' if t.finished else 'started' if t.started else 'registration open'}")
    prizes = ", ".join(MONEY.text(x) for x in purse.prizes) or "none"
    print(f"  fees collected {MONEY.text(purse.collected)}, prizes {prizes}, "
          f"kept {MONEY.text(purse.kept)}")
    if t.rounds:
        r = t.current_round
        print(f"  round {r}: {len(t.seating_chart(r))} tables, "
              f"{len(t.rounds[r].results)} results in")
    if t.bracket is not None:
        ready = t.bracket.ready()
        print(f"  matches to play: {', '.join(ready) or 'none'}")
    if t.places:
        print(f"  places: {', '.join(t.places[:3])}...")


def _simulate(args: argparse.Namespace) -> int:
    import tempfile

    from dealer_station.tournament import journaled
    from dealer_station.tournament.config import game_for
    from dealer_station.tournament.engines import DEFAULT_HANDS, table_player
    from dealer_station.tournament.simulate import report, simulate
    from dealer_station.tournament.tournament import Tournament

    game = game_for(_games(args.config), args.game)
    if args.hands is not None and args.hands < 1:
        raise StationError(f"--hands must be at least 1, got {args.hands}")
    # The engine's rules are checked before any journal is opened (a bad file: nothing
    # written); the simulation then plays on them.
    table_player(game, hands=args.hands or DEFAULT_HANDS)
    name = args.name or f"sim-{game.key}-{args.seed}"
    with tempfile.TemporaryDirectory(prefix="tournament-sim-") as tmp:
        if args.db is None:
            args.db = f"sqlite:///{Path(tmp) / 'journal.db'}"
            args.key = str(Path(tmp) / "journal.key")
            where = "a temporary SQLite database (deleted)"
        else:
            where = args.db
        with open_store(args) as store:
            existing = journaled.load(store.journal, name, must_exist=False)
            assert not existing.created
            t = simulate(game, args.players, args.seed,
                         sink=journaled.sink(store.journal, name), name=name,
                         hands=args.hands or DEFAULT_HANDS)
            verified = store.journal.verify_table(journaled.stream(name))
            rebuilt = Tournament.rebuild(journaled.events(store.journal, name))
            out = report(t)
            out["journal"] = {"database": where, "stream": journaled.stream(name),
                              "records": verified.records, "verified": verified.ok,
                              "rebuilt_equals_live": rebuilt.snapshot() == t.snapshot()}
    print(json.dumps(out))
    return 0


def _director(args: argparse.Namespace) -> int:
    if args.screenshots:
        from dealer_station.ui.tournament_demo import screenshots as tournament_screenshots

        for path in tournament_screenshots(Path(args.screenshots)):
            print(path)
        return 0
    if not args.name:
        raise StationError("give the tournament's name (dealer-station tournament director "
                           "NAME)")
    from dealer_station.ui.app import run_window
    from dealer_station.ui.tournament_window import TournamentWindow

    with open_store(args) as store:
        return run_window(lambda: TournamentWindow(store.journal, args.name),
                          fullscreen=args.fullscreen, exit_after=args.exit_after)


def _print(args: argparse.Namespace) -> int:
    if args.samples:
        from dealer_station.ui.tournament_demo import samples

        for path in samples(Path(args.samples)):
            print(path)
        return 0
    if not args.name or not args.what:
        raise StationError("give the tournament's name and --what (seating, score-sheets, "
                           "standings, bracket or results)")
    from dealer_station.reports.tournament import build_tournament_pdf

    out = args.out or f"tournament-{args.name}-{args.what}.pdf"
    with open_store(args, write=False) as store:
        built = build_tournament_pdf(store.journal, args.name, args.what, out=out,
                                     round_no=args.round, paper=args.paper)
    verdict = "verified intact" if built.verification.ok else "FAILED VERIFICATION"
    print(f"{built.path}: {built.pages} page(s); the tournament's journal {verdict}")
    return 0 if built.verification.ok else 1
