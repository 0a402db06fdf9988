"""The tournament director's screen (``dealer-station tournament director``): registration,
seating, results with the chip check, standings with game tags, the bracket (Pedro, Euchre)
and the round clock, on a 1280x800 touchscreen read from a step away.

The director signs in once (the journal's supervisors and operators with their PIN; a
journal without users takes the director's name); every change is the engine's action,
journaled with who made it, and every refusal is the engine's reason, said word for word.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.journal import Journal
from dealer_station.audit.users import Users
from dealer_station.ui import theme
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.touch_fields import TouchLineEdit, TouchPinField
from dealer_station.ui.tournament_bracket import BracketView
from dealer_station.ui.tournament_clock import TIME_CALLED, RoundClock
from dealer_station.ui.tournament_director import Director
from dealer_station.ui.tournament_pages import Registration, Seating, Standings
from dealer_station.ui.tournament_results import MatchResults, TableResults

TAB_STYLE = ("QTabBar::tab { min-height: 40px; min-width: 150px; font-size: 20px; "
             "padding: 6px 18px; }")


class SignIn(QWidget):
    """The director's name (or user id and PIN) once; then who, and Sign out."""

    def __init__(self, director: Director) -> None:
        super().__init__()
        self.d = director
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        # Touched, the name (or user id) opens the keyboard and the PIN the keypad; Done on
        # the last of them signs in.
        self.user_id = TouchLineEdit("Director", max_length=40)
        self.user_id.setFixedWidth(220)
        self.pin = TouchPinField("PIN")
        self.pin.setFixedWidth(110)
        self.pin.done.connect(lambda _pin: self.sign_in())
        self.user_id.done.connect(self._name_done)
        self.pin.returnPressed.connect(self.sign_in)
        self.user_id.returnPressed.connect(self.sign_in)
        self.sign_in_button = QPushButton("Sign in")
        self.sign_in_button.clicked.connect(self.sign_in)
        self.who = QLabel("")
        self.who.setStyleSheet(f"font-size: 19px; font-weight: bold; color: {theme.GOLD};")
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.clicked.connect(director.sign_out)
        for w in (self.user_id, self.pin, self.sign_in_button, self.who,
                  self.sign_out_button):
            row.addWidget(w)
        director.changed.connect(self._show)
        self._show()

    def _show(self) -> None:
        signed = self.d.signed_in
        pin = self.d.needs_pin()
        self.user_id.setPlaceholderText("supervisor id" if pin else "director's name")
        self.user_id.prompt = ("Your user id (a supervisor or an operator)" if pin else
                               "The director's name")
        self.user_id.words = not pin
        for w in (self.user_id, self.sign_in_button):
            w.setVisible(not signed)
        self.pin.setVisible(pin and not signed)
        self.who.setVisible(signed)
        self.sign_out_button.setVisible(signed)
        self.who.setText(self.d.who)

    def _name_done(self, text: str) -> None:
        if not self.d.needs_pin():
            self.sign_in()            # a name alone signs in
        elif text.strip():
            self.pin.open_input()     # a user id goes on to its PIN

    def sign_in(self) -> None:
        ok = self.d.sign_in(self.user_id.text(), self.pin.text())
        self.pin.clear()
        if ok:
            self.user_id.clear()


class TournamentWindow(QMainWindow):
    TABS = ("Registration", "Seating", "Results", "Standings", "Bracket", "Clock")

    def __init__(self, journal: Journal, name: str, *, users: Users | None = None) -> None:
        super().__init__()
        self.director = Director(journal, name, users=users)
        d = self.director
        self.setWindowTitle(f"Dealer Station — tournament {name}")
        central = QWidget()
        self.setCentralWidget(central)
        col = QVBoxLayout(central)
        col.setContentsMargins(10, 6, 10, 6)
        col.setSpacing(6)
        top = QHBoxLayout()
        self.title = QLabel("")
        self.title.setObjectName("title")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.clock_small = QLabel("")
        self.clock_small.setStyleSheet(f"font-size: 24px; font-weight: bold; "
                                       f"color: {theme.TEXT}; font-family: 'DejaVu Sans Mono';")
        self.sign = SignIn(d)
        top.addWidget(self.title, 1)
        top.addWidget(self.clock_small)
        top.addSpacing(16)
        top.addWidget(self.sign)
        col.addLayout(top)
        self.tabs = QTabWidget()
        self.tabs.setStyleSheet(TAB_STYLE)
        self.registration = Registration(d)
        self.seating = Seating(d)
        self.results = TableResults(d)
        self.matches = MatchResults(d)
        self.standings = Standings(d)
        self.bracket = BracketView()
        self.bracket.chosen.connect(self.choose_match)
        self.bracket_page = QWidget()
        bcol = QVBoxLayout(self.bracket_page)
        bcol.setContentsMargins(0, 0, 0, 0)
        zoom = QHBoxLayout()
        self.bracket_hint = QLabel("Touch a match to enter it; drag to move around")
        self.bracket_hint.setObjectName("muted")
        zoom.addWidget(self.bracket_hint, 1)
        for text, factor in (("Whole bracket", 0.0), ("−", 0.8), ("+", 1.25),
                             ("Actual size", 1.0)):
            b = QPushButton(text)
            b.setMinimumSize(64, 48)   # a fingertip
            b.clicked.connect(lambda _=False, f=factor: self.bracket.zoom(f))
            zoom.addWidget(b)
        bcol.addLayout(zoom)
        bcol.addWidget(self.bracket, 1)
        self.clock = RoundClock()
        # The header's clock stays short: the Clock page says the rulebook's words.
        self.clock.ticked.connect(lambda text: self.clock_small.setText(
            "TIME" if text == TIME_CALLED else text))
        for title, page in (("Registration", self.registration), ("Seating", self.seating),
                            ("Results", self.results), ("Results", self.matches),
                            ("Standings", self.standings), ("Bracket", self.bracket_page),
                            ("Clock", self.clock)):
            self.tabs.addTab(page, title)
        col.addWidget(self.tabs, 1)
        self.message = MessageLabel()
        # What an action came to belongs to its page: leaving the page clears it.
        self.tabs.currentChanged.connect(lambda _i: self.message.hide())
        col.addWidget(self.message)
        d.said.connect(self.message.say)
        d.changed.connect(self.refresh)
        self.refresh()

    def page(self, title: str) -> QWidget:
        """The page a tab title names (the results page of this tournament's kind)."""
        double = self.director.t.bracket is not None or (
            self.director.t.created and self.director.t.rules().teams)
        if title == "Results":
            return self.matches if double else self.results
        return {"Registration": self.registration, "Seating": self.seating,
                "Standings": self.standings, "Bracket": self.bracket_page,
                "Clock": self.clock}[title]

    def show_tab(self, title: str) -> None:
        self.tabs.setCurrentWidget(self.page(title))

    def refresh(self) -> None:
        t = self.director.t
        game = t.rules()
        double = game.teams
        # One results page for the kind of game; the bracket only where there is one.
        self.tabs.setTabVisible(self.tabs.indexOf(self.results), not double)
        self.tabs.setTabVisible(self.tabs.indexOf(self.matches), double)
        self.tabs.setTabVisible(self.tabs.indexOf(self.seating), not double)
        self.tabs.setTabVisible(self.tabs.indexOf(self.bracket_page), double)
        state = ("finished" if t.finished else f"round {t.current_round}" if t.rounds else
                 "bracket drawn" if t.started else "registration open")
        self.title.setText(f"{t.name} · {game.label} · {state}")
        self.bracket.show_tournament(t)
        self.clock.set_round(f"Round {t.current_round}" if t.rounds else
                             "The round clock")

    def choose_match(self, mid: str) -> None:
        self.bracket.select(mid)
        self.bracket.show_tournament(self.director.t)
        if mid in (self.director.t.bracket.ready() if self.director.t.bracket else ()):
            self.matches.choose(mid)
            self.message.say(f"match {mid} chosen: enter it on the Results page", "info")
