"""Demo tournaments on a throwaway SQLite journal, for the director screen's screenshots and
the sample sheets: real names, results entered through the engine as a judge would."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.tournament import journaled
from dealer_station.tournament.config import load_games
from dealer_station.tournament.simulate import SIM_ACTOR
from dealer_station.tournament.tournament import Tournament

FIRST = ("Alma", "Bernadette", "Claudette", "Delphine", "Evangeline", "Fannie", "Geneva",
         "Hattie", "Irma", "Josephine", "Katherine", "Lorraine", "Marguerite", "Noelie",
         "Odette", "Pauline", "Rosalie", "Simone", "Thelma", "Ursula", "Viola", "Wilhelmina",
         "Yvonne", "Zelda", "Annette", "Beulah", "Celestine", "Dorothy", "Eula", "Florence",
         "Gladys", "Henrietta", "Ida", "Jeanne", "Lucille", "Mabel")
LAST = ("Arceneaux", "Boudreaux", "Comeaux", "Doucet", "Fontenot", "Guidry", "Hebert",
        "LeBlanc", "Landry", "Melancon", "Robichaux", "Thibodeaux", "Broussard", "Savoie")
ACTOR = "dmartin/director"


def names(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name not in out:
            out.append(name)
    return out


@contextmanager
def demo_journal(where: Path | None = None) -> Iterator[Journal]:
    with tempfile.TemporaryDirectory(prefix="tournament-demo-") as tmp:
        folder = where or Path(tmp)
        db = open_database(f"sqlite:///{folder / 'journal.db'}")
        try:
            yield Journal(db, create_key(folder / "journal.key"))
        finally:
            db.close()


def new_tournament(journal: Journal, name: str, game: str, entries: int, *,
                   seed: int = 7, prizes: tuple[int, ...] = ()) -> Tournament:
    """Created and filled (not started): ``entries`` players, or teams of two."""
    t = journaled.load(journal, name, must_exist=False)
    rules = load_games(None)[game]
    t.create(name, rules, seed=seed, prizes=prizes, by=ACTOR, reason="demo")
    people = names(entries * rules.team_size, seed)
    for i in range(entries):
        if rules.teams:
            t.register(f"T{i + 1:02d}", people[2 * i:2 * i + 2], by=ACTOR)
        else:
            t.register(people[i], by=ACTOR)
    return t


def play_round(t: Tournament, rng: random.Random) -> None:
    """Every table of the current round: the table's chips handed out game by game, ties
    broken by an extra game, then the round closed."""
    from dealer_station.tournament.simulate import _chips_player

    r = t.current_round
    for i, players in enumerate(t.seating_chart(r), 1):
        if i not in t.rounds[r].results:
            results, unawarded = _chips_player(t.rules(), players, rng)
            t.result(r, i, results, unawarded=unawarded, by=ACTOR)
    while ties := t.ties(r):
        table, tied = next(iter(ties.items()))
        order = list(tied)
        rng.shuffle(order)
        t.break_tie(r, table, order, by=ACTOR, reason="extra game")
    t.close_round(r, by=SIM_ACTOR)


def play_matches(t: Tournament, rng: random.Random, count: int) -> None:
    """The first ``count`` matches to play (Euchre hand by hand, Pedro by score)."""
    from dealer_station.tournament.simulate import _pedro_game, _play_euchre

    assert t.bracket is not None
    for _ in range(count):
        ready = t.bracket.ready()
        if not ready:
            return
        a, b = t.bracket.teams_of(ready[0])
        assert a and b
        if t.rules().key == "euchre":
            _play_euchre(t, ready[0], (a, b), rng)
        else:
            t.match(ready[0], _pedro_game((a, b), t.rules().game_points, rng), by=ACTOR)


def screenshots(out: Path) -> list[Path]:
    from PySide6.QtWidgets import QApplication

    from dealer_station.ui import theme
    from dealer_station.ui.tournament_window import TournamentWindow

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    theme.apply(app)
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []

    def grab(w: TournamentWindow, name: str) -> None:
        for _ in range(5):
            app.processEvents()
        path = out / f"tournament-{name}.png"
        w.grab().save(str(path))
        shots.append(path)

    def window(journal: Journal, name: str) -> TournamentWindow:
        w = TournamentWindow(journal, name)
        w.resize(*theme.WINDOW_SIZE)
        w.show()
        w.sign.user_id.setText("Denise Martin")
        w.sign.sign_in()
        return w

    rng = random.Random(11)
    with demo_journal() as journal:
        new_tournament(journal, "pittypat-spring", "pitty-pat", 23)
        w = window(journal, "pittypat-spring")
        w.show_tab("Registration")
        w.registration.entry.setText("Ophelia Guidry")
        grab(w, "registration")
        # A name typed on the station's keyboard, as a touch on the field opens it.
        w.registration.entry.clear()
        sheet = w.registration.entry.open_input()
        assert sheet.keyboard is not None
        for key in sheet.keyboard.buttons_for("Ophelia Guid"):
            key.click()
        grab(w, "registration-keyboard")
        sheet.cancel()
        # Close registration and start: asked once more.
        w.registration.ask_start()
        grab(w, "registration-start")
        w.registration.cancel_start()
        t = w.director.t
        t.start(by=ACTOR)
        play_round(t, rng)
        w.director.reload()
        w.show_tab("Seating")
        grab(w, "seating")
        w.show_tab("Results")
        res = w.results
        res.tables.setCurrentRow(1)
        players = res.players
        for i, p in enumerate(players):
            res.spins[p].setValue([14, 9, 0, 16, 7][i % 5])
        res.enter()   # refused: 46 of 50
        grab(w, "results-chip-check")
        for _ in range(2):
            play_round(w.director.t, rng)
        w.director.reload()
        w.show_tab("Standings")
        grab(w, "standings")
        w.show_tab("Clock")
        w.clock.left = 4 * 60 + 12.0
        w.clock._show()
        grab(w, "clock")
        w.clock.left = 0
        w.clock._show()
        grab(w, "clock-time")
        w.close()

        et = new_tournament(journal, "euchre-2018", "euchre", 6, prizes=(6000, 3600, 2400))
        et.start(by=ACTOR)
        play_matches(et, rng, 6)
        w = window(journal, "euchre-2018")
        w.show_tab("Bracket")
        grab(w, "bracket")
        w.bracket.zoom(0)
        grab(w, "bracket-whole")
        w.bracket.zoom(1)
        w.show_tab("Results")
        ready = w.director.t.bracket.ready() if w.director.t.bracket else ()
        if ready:
            from dealer_station.tournament.euchre import EuchreHand

            mid = ready[0]
            a, b = w.director.t.bracket.teams_of(mid) if w.director.t.bracket else ("", "")
            for hand in (EuchreHand(str(a), 3), EuchreHand(str(b), 5), EuchreHand(str(a), 2),
                         EuchreHand(str(a), 5, alone=True)):
                w.director.act(w.director.t.euchre_hand, mid, hand)
            w.matches.choose(mid)
        grab(w, "euchre-sheet")
        w.close()

        big = new_tournament(journal, "euchre-64", "euchre", 64)
        big.start(by=ACTOR)
        play_matches(big, rng, 40)
        w = window(journal, "euchre-64")
        w.show_tab("Bracket")
        grab(w, "bracket-64")
        w.close()
    return shots


def samples(out: Path) -> list[Path]:
    """Sample sheets of demo tournaments (a Pitty-Pat of 23 after two rounds, a Euchre of 6
    teams part-played, a Po-Ke-No played to the end) and page images of each."""
    import subprocess

    from dealer_station.reports.tournament import build_tournament_pdf

    out.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    rng = random.Random(5)
    with demo_journal() as journal:
        pp = new_tournament(journal, "pittypat-spring", "pitty-pat", 23)
        pp.start(by=ACTOR)
        for _ in range(2):
            play_round(pp, rng)
        et = new_tournament(journal, "euchre-2018", "euchre", 6, prizes=(6000, 3600, 2400))
        et.start(by=ACTOR)
        play_matches(et, rng, 7)
        pk = new_tournament(journal, "pokeno-fall", "po-ke-no", 30)
        pk.start(by=ACTOR)
        while not pk.finished:
            play_round(pk, rng)
        jobs = [("seating", "pittypat-spring"), ("score-sheets", "pittypat-spring"),
                ("standings", "pittypat-spring"), ("bracket", "euchre-2018"),
                ("score-sheets", "euchre-2018"), ("results", "pokeno-fall")]
        for what, name in jobs:
            stem = f"tournament-{what}" if what != "score-sheets" or name.startswith(
                "pitty") else "tournament-euchre-score-sheets"
            pdf = out / f"{stem}.pdf"
            build_tournament_pdf(journal, name, what, out=pdf)
            for old in out.glob(f"{stem}-*.png"):
                old.unlink()
            subprocess.run(["pdftoppm", "-r", "70", "-png", str(pdf), str(out / stem)],
                           check=True)
            made.append(pdf)
            made += sorted(out.glob(f"{stem}-*.png"))
    return made
