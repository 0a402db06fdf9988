"""The director's read-mostly pages: registration (entries, fees, start), seating (a card per
table), standings (game tags, status, places; disqualification with its reason)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.glossary import HOUSE_SHARE
from dealer_station.errors import StationError
from dealer_station.tournament.display import (
    MONEY,
    members_text,
    place_text,
    status_text,
    tag_marks,
)
from dealer_station.tournament.tournament import Tournament
from dealer_station.ui import theme
from dealer_station.ui.table_items import read_only_item as _item
from dealer_station.ui.touch_fields import TouchLineEdit
from dealer_station.ui.touch_sheet import Sheet
from dealer_station.ui.tournament_director import Director
from dealer_station.ui.tournament_touch import ask_director_reason

TABLE_PX = 20
#: The longest name of a player or a team typed at registration.
NAME_CHARS = 40
#: After a place that several entries share mid-event.
TIED = " (tied)"


def table_widget(headers: list[str], px: int = TABLE_PX) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setAlternatingRowColors(True)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().hide()
    t.verticalHeader().setDefaultSectionSize(px + 22)
    t.setStyleSheet(f"QTableWidget {{ font-size: {px}px; }} "
                    f"QHeaderView::section {{ font-size: 18px; }}")
    return t


def _fact(text: str = "", px: int = 20) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(f"font-size: {px}px;")
    label.setWordWrap(True)
    return label


class Registration(QWidget):
    def __init__(self, director: Director) -> None:
        super().__init__()
        self.d = director
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.entries = table_widget(["#", "Entry", "Players", "Fee paid"])
        row.addWidget(self.entries, 3)
        side = QVBoxLayout()
        form = QFrame()
        form.setObjectName("panel")
        fl = QVBoxLayout(form)
        self.form_title = _fact("", 22)
        self.form_title.setStyleSheet(f"font-size: 22px; font-weight: bold; "
                                      f"color: {theme.GOLD};")
        fl.addWidget(self.form_title)
        # Touched, each name opens the keyboard (a capital at each word's start); a team's
        # three names follow one another, Done on one opening the next.
        self.entry = TouchLineEdit("The player's name", words=True, max_length=NAME_CHARS)
        self.entry.setAccessibleName("Entry name")
        self.member_a = TouchLineEdit("The team's first player", words=True,
                                      placeholder="First player", max_length=NAME_CHARS)
        self.member_b = TouchLineEdit("The team's second player", words=True,
                                      placeholder="Second player", max_length=NAME_CHARS)
        self.entry.done.connect(lambda text: self._then(self.member_a, text))
        self.member_a.done.connect(lambda text: self._then(self.member_b, text))
        for w in (self.entry, self.member_a, self.member_b):
            w.setMinimumHeight(52)
            fl.addWidget(w)
        self.entry.returnPressed.connect(self.add)
        self.member_b.returnPressed.connect(self.add)
        self.add_button = QPushButton("Add entry")
        self.add_button.setObjectName("primary")
        self.add_button.clicked.connect(self.add)
        fl.addWidget(self.add_button)
        self.add_why = _fact("", 18)
        self.add_why.setStyleSheet(f"font-size: 18px; color: {theme.MUTED};")
        fl.addWidget(self.add_why)
        side.addWidget(form)
        self.money = _fact("", 20)
        self.money.setTextFormat(Qt.TextFormat.RichText)
        side.addWidget(self.money)
        side.addStretch(1)
        self.start_button = QPushButton("Close registration and start")
        self.start_button.setObjectName("primary")
        self.start_button.setMinimumHeight(64)
        self.start_button.clicked.connect(self.ask_start)
        side.addWidget(self.start_button)
        # Closing registration cannot be undone: it is asked once more, with two large
        # buttons, before the games begin.
        self.confirm_box = QFrame()
        self.confirm_box.setObjectName("panel")
        confirm = QVBoxLayout(self.confirm_box)
        self.confirm_text = _fact("", 20)
        self.confirm_text.setTextFormat(Qt.TextFormat.RichText)
        confirm.addWidget(self.confirm_text)
        answers = QHBoxLayout()
        self.cancel_start_button = QPushButton("Cancel")
        self.cancel_start_button.clicked.connect(self.cancel_start)
        self.confirm_start_button = QPushButton("Close and start")
        self.confirm_start_button.setObjectName("primary")
        self.confirm_start_button.clicked.connect(self.start)
        for b in (self.cancel_start_button, self.confirm_start_button):
            b.setStyleSheet("min-height: 60px; font-size: 20px;")   # a fingertip, surely
        answers.addWidget(self.cancel_start_button, 1)
        answers.addWidget(self.confirm_start_button, 1)
        confirm.addLayout(answers)
        self.confirm_box.hide()
        side.addWidget(self.confirm_box)
        self.start_why = _fact("", 18)
        self.start_why.setStyleSheet(f"font-size: 18px; color: {theme.MUTED};")
        side.addWidget(self.start_why)
        row.addLayout(side, 2)
        director.changed.connect(self.refresh)
        self.refresh()

    def _then(self, field: TouchLineEdit, typed: str) -> None:
        """A team's next name, once one is typed (a player's entry has only its name)."""
        if typed and field.isVisible() and not field.text():
            field.open_input()

    def refresh(self) -> None:
        t = self.d.t
        game = t.rules()
        teams = game.teams
        self.form_title.setText("Add a team of two" if teams else "Add a player")
        self.entry.setPlaceholderText("Team name (e.g. T07)" if teams else "Player's name")
        self.entry.prompt = "The team's name" if teams else "The player's name"
        self.member_a.setVisible(teams)
        self.member_b.setVisible(teams)
        self.entries.setRowCount(len(t.entries))
        for i, (entry, members) in enumerate(t.entries.items()):
            cells = [_item(str(i + 1), theme.MUTED, right=True), _item(entry, bold=True),
                     _item(members_text(members)),
                     _item(MONEY.text(t.entry_fee * len(members)), right=True)]
            for c, it in enumerate(cells):
                self.entries.setItem(i, c, it)
        self.entries.resizeColumnsToContents()
        self.entries.setColumnHidden(2, not teams)
        self.entries.horizontalHeader().setSectionResizeMode(
            2 if teams else 1, QHeaderView.ResizeMode.Stretch)
        m = t.purse()
        fee = MONEY.text(t.entry_fee)
        per = f"{fee} a person, {MONEY.text(t.entry_fee * 2)} a team" if teams else \
            f"{fee} a person"
        prizes = ", ".join(f"{place_text(i)} {MONEY.text(x)}" for i, x in
                           enumerate(m.prizes, 1)) or "none"
        self.money.setText(
            f"<b>{game.label}</b> · {len(t.entries)} {'teams' if teams else 'players'}<br>"
            f"Entry fee: {per}<br>Collected: <b>{MONEY.text(m.collected)}</b><br>"
            f"Prizes: {prizes}<br>{HOUSE_SHARE.label}: {MONEY.text(m.kept)}")
        self._enable()

    def _enable(self) -> None:
        t = self.d.t
        signed = self.d.signed_in
        closed = ""
        try:
            t.verify_register("\x00probe", ("\x00a", "\x00b") if t.rules().teams else ())
        except StationError as exc:
            closed = str(exc) if t.started else ""
        open_ = not closed and signed
        for w in (self.entry, self.member_a, self.member_b, self.add_button):
            w.setEnabled(open_)
        self.add_why.setText(closed[:1].upper() + closed[1:] if closed else
                             "" if signed else "Sign in to register entries.")
        start_why = ""
        if t.started:
            start_why = "Games have begun."
        else:
            try:
                t.verify_start()
            except StationError as exc:
                start_why = f"Not yet: {exc}"
        self.start_button.setEnabled(signed and t.can_start())
        if self.confirm_box.isVisibleTo(self):
            if self.start_button.isEnabled():
                self._ask_words()       # an entry added while it asked: counted
            else:
                self.cancel_start()     # signed out, or started elsewhere, while it asked
        self.start_why.setText(start_why)

    def add(self) -> None:
        t = self.d.t
        entry = self.entry.text().strip()
        # Blank fields are no one (as the command line's --members A,B reads them).
        members = ([m for m in (self.member_a.text().strip(), self.member_b.text().strip())
                    if m] if t.rules().teams else [])
        if self.d.act(t.register, entry, members, done=f"{entry} entered"):
            for w in (self.entry, self.member_a, self.member_b):
                w.clear()

    def ask_start(self) -> None:
        """Ask once more before registration closes: it cannot be opened again."""
        self._ask_words()
        self.start_button.hide()
        self.confirm_box.show()

    def _ask_words(self) -> None:
        t = self.d.t
        teams = t.rules().teams
        n = len(t.entries)
        self.confirm_text.setText(
            f"<b>Close registration and start with {n} {'teams' if teams else 'players'}?"
            f"</b><br>No entry can be added afterwards, and "
            f"{'the bracket is drawn' if teams else 'the draw seats round 1'}.")

    def cancel_start(self) -> None:
        self.confirm_box.hide()
        self.start_button.show()

    def start(self) -> None:
        self.confirm_box.hide()
        self.start_button.show()
        self.d.act(self.d.t.start, done="registration closed: the games begin")


class Seating(QWidget):
    """The seating chart of a round: a card per table with its players."""

    COLUMNS = 4

    def __init__(self, director: Director) -> None:
        super().__init__()
        self.d = director
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.title = _fact("", 22)
        self.title.setStyleSheet("font-size: 22px; font-weight: bold;")
        self.round_pick = QComboBox()
        self.round_pick.setMinimumWidth(180)
        self.round_pick.setAccessibleName("Round")
        self.round_pick.currentIndexChanged.connect(self._show)
        top.addWidget(self.title, 1)
        top.addWidget(QLabel("Round"))
        top.addWidget(self.round_pick)
        col.addLayout(top)
        self.cards = QWidget()
        self.grid = QGridLayout(self.cards)
        self.grid.setSpacing(10)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.cards)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        col.addWidget(scroll, 1)
        director.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        t = self.d.t
        rounds = sorted(t.rounds)
        self.round_pick.blockSignals(True)
        self.round_pick.clear()
        for r in rounds:
            self.round_pick.addItem(f"Round {r}", r)
        self.round_pick.setCurrentIndex(len(rounds) - 1)
        self.round_pick.blockSignals(False)
        self._show()

    def chosen_round(self) -> int | None:
        r = self.round_pick.currentData()
        return int(r) if r is not None else None

    def _show(self) -> None:
        t = self.d.t
        while self.grid.count():
            item = self.grid.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.hide()
                w.setParent(None)
                w.deleteLater()
        r = self.chosen_round()
        if r is None:
            self.title.setText("Pedro and Euchre are played in the bracket" if t.started
                               and t.bracket is not None else
                               "No seating yet: the draw seats round 1 when the tournament "
                               "starts")
            return
        tables = t.seating_chart(r)
        self.title.setText(f"{t.rules().label} · round {r} · {len(tables)} tables · "
                           f"{sum(len(x) for x in tables)} players")
        per_row = self.COLUMNS if max(map(len, tables)) <= 6 else 2
        for i, players in enumerate(tables):
            self.grid.addWidget(self._card(i + 1, players), i // per_row, i % per_row)
        self.grid.setRowStretch(len(tables) // per_row + 1, 1)

    def _card(self, number: int, players: tuple[str, ...]) -> QFrame:
        card = QFrame()
        card.setObjectName("panel")
        lay = QVBoxLayout(card)
        lay.setSpacing(2)
        head = QLabel(f"Table {number}")
        head.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {theme.GOLD};")
        lay.addWidget(head)
        # A Po-Ke-No table seats twelve: its names in two columns.
        names = QGridLayout()
        names.setHorizontalSpacing(16)
        names.setVerticalSpacing(2)
        wide = len(players) > 6
        half = (len(players) + 1) // 2
        for i, name in enumerate(players):
            label = QLabel(f"{i + 1}. {name}")
            label.setStyleSheet("font-size: 20px;")
            names.addWidget(label, i % half if wide else i, i // half if wide else 0)
        lay.addLayout(names)
        lay.addStretch(1)
        return card


def places_as_they_stand(t: Tournament) -> dict[str, str]:
    """Each entry's place as the tournament stands, for the standings page.

    Once it is over: the final places. Mid-event: the entries still playing by their game
    tags (or losses), fewest first, an equal count sharing a place ("3rd (tied)", the places
    after them skipped as a leaderboard does); then the eliminated, the latest out
    first, each in the place the final standings give them; then the disqualified, last, as
    the final standings put them. Before the start nobody has a place."""
    rows = t.standings()
    if t.finished:
        return {r.entry: place_text(r.place) for r in rows if r.place is not None}
    if not t.started:
        return {}
    dq = set(t.disqualified)
    active = t.active()
    counts = [t.tags.get(e, 0) for e in active]
    out: dict[str, str] = {}
    for e, n in zip(active, counts, strict=True):
        place = 1 + sum(1 for x in counts if x < n)
        out[e] = place_text(place) + (TIED if counts.count(n) > 1 else "")
    behind = len(active)
    for e in (*reversed([x for x in t.eliminated if x not in dq]), *reversed(t.disqualified)):
        behind += 1
        out[e] = place_text(behind)
    return out


def _place_order(place: str) -> int:
    digits = "".join(ch for ch in place.removesuffix(TIED) if ch.isdigit())
    return int(digits) if digits else 10**6


class Standings(QWidget):
    """Every entry with its game tags (or losses), status and place; the eliminated greyed;
    disqualification, with its reason, from here."""

    def __init__(self, director: Director) -> None:
        super().__init__()
        self.d = director
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        self.title = _fact("", 22)
        self.title.setStyleSheet("font-size: 22px; font-weight: bold;")
        col.addWidget(self.title)
        self.table = table_widget(["Place", "Entry", "Players", "Tags", "Status"])
        col.addWidget(self.table, 1)
        dq = QHBoxLayout()
        hint = _fact("Touch an entry, then Disqualify: it asks why (journaled).", 18)
        hint.setStyleSheet(f"font-size: 18px; color: {theme.MUTED};")
        self.dq_button = QPushButton("Disqualify the selected entry…")
        self.dq_button.setObjectName("danger")
        self.dq_button.clicked.connect(self.disqualify)
        #: The reasons asked for, once Disqualify is touched.
        self.reason_sheet: Sheet | None = None
        dq.addWidget(hint, 1)
        dq.addWidget(self.dq_button)
        col.addLayout(dq)
        director.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        t = self.d.t
        game = t.rules()
        bracket = t.bracket is not None or game.elimination.value == "double"
        word = "Losses" if bracket else "Game tags"
        limit = 2 if bracket else game.tags_to_eliminate
        self.table.setHorizontalHeaderLabels(["Place", "Entry", "Players", word, "Status"])
        places = places_as_they_stand(t)
        # Best first, as the places read (the engine's order keeps ties in the draw's order).
        rows = sorted(t.standings(), key=lambda r: _place_order(places.get(r.entry, "")))
        left = sum(1 for r in rows if r.status in ("playing", "winner"))
        self.title.setText(f"{game.label} · {left} of {len(rows)} still playing"
                           + (" · finished" if t.finished else
                              " · places as they stand" if places else ""))
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            out = r.status in ("eliminated", "disqualified")
            grey = theme.MUTED if out else None
            status_colour = (theme.BAD if r.status == "disqualified" else theme.MUTED if out
                             else theme.GOLD if r.status == "winner" else theme.GOOD)
            tag_colour = (theme.MUTED if out else theme.BAD if r.tags >= limit - 1 and r.tags
                          else None)
            place = places.get(r.entry, "")
            cells = [_item(place, grey, bold=place.startswith("1st")),
                     _item(r.entry, grey, bold=not out),
                     _item(members_text(r.members) if len(r.members) > 1 else "", grey),
                     _item(f"{tag_marks(r.tags, limit)}  {r.tags}", tag_colour),
                     _item(status_text(r.status), status_colour, bold=not out)]
            for c, it in enumerate(cells):
                it.setData(Qt.ItemDataRole.UserRole, r.entry)
                self.table.setItem(i, c, it)
        self.table.resizeColumnsToContents()
        self.table.setColumnHidden(2, not game.teams)
        self.table.horizontalHeader().setSectionResizeMode(
            2 if game.teams else 1, QHeaderView.ResizeMode.Stretch)
        self.dq_button.setEnabled(self.d.signed_in and t.started and not t.finished)

    def selected_entry(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        it = self.table.item(rows[0].row(), 1)
        return str(it.data(Qt.ItemDataRole.UserRole)) if it else None

    def select(self, entry: str) -> None:
        for r in range(self.table.rowCount()):
            it = self.table.item(r, 1)
            if it is not None and it.data(Qt.ItemDataRole.UserRole) == entry:
                self.table.selectRow(r)

    def disqualify(self) -> None:
        """Ask why (a short list, or Other… typed), then disqualify the selected entry."""
        entry = self.selected_entry()
        if entry is None:
            self.d.said.emit("select the entry to disqualify first", "bad")
            return
        self.reason_sheet = ask_director_reason(
            self.dq_button, "disqualify", f"Disqualify {entry}: why?",
            lambda reason: self.disqualify_for(entry, reason),
            note="A disqualified entry takes no further part and no prize.")

    def disqualify_for(self, entry: str, reason: str) -> None:
        self.d.act(self.d.t.disqualify, entry, reason=reason, done=f"{entry} disqualified")
