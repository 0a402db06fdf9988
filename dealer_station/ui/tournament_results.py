"""Entering results: a table's chips (or scores) with the chip check live, extra games, closing
the round; and for the bracket games a match's score (Pedro) or its hands (Euchre).

The chip check is shown as it is typed (what the players hold against what the table plays
for, red until it adds up); the rule itself is the engine's: entering is refused with its
reason, word for word, and nothing is journaled.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_station.errors import StationError
from dealer_station.tournament.bracket import Status
from dealer_station.tournament.display import entry_label
from dealer_station.tournament.euchre import EuchreHand
from dealer_station.tournament.games import Measure
from dealer_station.ui import theme
from dealer_station.ui.touch_sheet import Sheet
from dealer_station.ui.tournament_director import Director
from dealer_station.ui.tournament_touch import NumberBox, ask_director_reason

ROW_PX = 20


def _big(text: str = "", px: int = ROW_PX, *, bold: bool = False) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(f"font-size: {px}px;{' font-weight: bold;' if bold else ''}")
    return label


def _spin(prompt: str, low: int, high: int) -> NumberBox:
    """A number typed on the keypad (a score below nothing with ±): see tournament_touch."""
    s = NumberBox(prompt, low, high, px=ROW_PX + 2)
    s.setMinimumWidth(130)
    return s


def _list() -> QListWidget:
    w = QListWidget()
    w.setStyleSheet(f"QListWidget {{ font-size: {ROW_PX}px; }} "
                    f"QListWidget::item {{ min-height: 48px; padding-left: 8px; }}")
    w.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    return w


class TableResults(QWidget):
    """Results of the current round's tables (the triple-elimination games)."""

    def __init__(self, director: Director) -> None:
        super().__init__()
        self.d = director
        self.round_no = 0
        self.table_no = 0
        self.players: tuple[str, ...] = ()
        self.spins: dict[str, NumberBox] = {}
        self.forfeits: dict[str, QPushButton] = {}
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        self.round_title = _big("", 22, bold=True)
        left.addWidget(self.round_title)
        self.tables = _list()
        self.tables.setFixedWidth(300)
        self.tables.currentRowChanged.connect(self._choose)
        left.addWidget(self.tables, 1)
        self.close_button = QPushButton("Close the round")
        self.close_button.setObjectName("primary")
        self.close_button.clicked.connect(self.close_round)
        left.addWidget(self.close_button)
        self.close_why = QLabel("")
        self.close_why.setWordWrap(True)
        self.close_why.setFixedWidth(300)
        self.close_why.setStyleSheet(f"font-size: 18px; color: {theme.MUTED};")
        left.addWidget(self.close_why)
        row.addLayout(left)
        right = QVBoxLayout()
        self.table_title = _big("", 24, bold=True)
        right.addWidget(self.table_title)
        # The players' rows scroll: Po-Ke-No seats twelve at a table.
        self.rows_box = QWidget()
        self.rows = QGridLayout(self.rows_box)
        self.rows.setContentsMargins(4, 4, 4, 4)
        self.rows.setHorizontalSpacing(10)
        self.rows.setVerticalSpacing(6)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.rows_box)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        right.addWidget(scroll, 1)
        un = QHBoxLayout()
        self.unawarded_label = _big("Chips on the table nobody holds (unawarded)")
        self.unawarded = _spin("Chips nobody holds (unawarded)", 0, 100_000)
        self.unawarded.setMaximumWidth(200)
        self.unawarded.valueChanged.connect(self._check)
        un.addWidget(self.unawarded_label, 1)
        un.addWidget(self.unawarded)
        right.addLayout(un)
        self.chip_check = QLabel("")
        self.chip_check.setWordWrap(True)
        self.chip_check.setAccessibleName("Chip check")
        right.addWidget(self.chip_check)
        enter = QHBoxLayout()
        self.correct_note = _big("A result already in is corrected with a reason: "
                                 "Correct result asks why.")
        self.correct_note.setWordWrap(True)
        self.correct_note.setStyleSheet(f"font-size: 18px; color: {theme.MUTED};")
        self.enter_button = QPushButton("Enter result")
        self.enter_button.setObjectName("primary")
        self.enter_button.setMinimumWidth(220)
        self.enter_button.clicked.connect(self.enter)
        #: The reasons asked for, once Correct result is touched.
        self.reason_sheet: Sheet | None = None
        enter.addWidget(self.correct_note, 1)
        enter.addWidget(self.enter_button)
        right.addLayout(enter)
        # The extra game, when players are level across the winners' line.
        self.tie_box = QFrame()
        self.tie_box.setObjectName("panel")
        tie = QHBoxLayout(self.tie_box)
        self.tie_text = QLabel("")
        self.tie_text.setWordWrap(True)
        self.tie_text.setStyleSheet(f"font-size: 18px; color: {theme.WARN}; "
                                    f"font-weight: bold;")
        self.tie_order = _list()
        self.tie_order.setMaximumHeight(150)
        self.tie_order.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        moves = QVBoxLayout()
        self.up_button = QPushButton("▲ Up")
        self.up_button.clicked.connect(lambda: self._move(-1))
        self.down_button = QPushButton("▼ Down")
        self.down_button.clicked.connect(lambda: self._move(1))
        self.tie_button = QPushButton("Enter the extra game's order")
        self.tie_button.clicked.connect(self.enter_tie)
        for b in (self.up_button, self.down_button, self.tie_button):
            moves.addWidget(b)
        tie.addWidget(self.tie_text, 2)
        tie.addWidget(self.tie_order, 2)
        tie.addLayout(moves)
        right.addWidget(self.tie_box)
        row.addLayout(right, 1)
        self.tie_table = -1
        director.changed.connect(self.refresh)
        self.refresh()

    # -- reading --

    def refresh(self) -> None:
        t = self.d.t
        if not t.rounds:
            self.round_title.setText("No round yet")
            self.table_title.setText("Start the tournament (Registration) to seat round 1")
            self.tables.clear()
            self._fill_rows(())
            self._enable()
            return
        r = t.current_round
        rnd = t.rounds[r]
        self.round_no = r
        self.round_title.setText(f"Round {r}" + (" (closed)" if rnd.closed else ""))
        keep = self.table_no
        self.tables.blockSignals(True)
        self.tables.clear()
        for i, players in enumerate(t.seating_chart(r), 1):
            o = t.table_outcome(r, i)
            mark = "to enter" if o is None else ("tie" if o.tied else "✓ in")
            item = QListWidgetItem(f"Table {i} ({len(players)})   {mark}")
            if o is not None:
                item.setForeground(Qt.GlobalColor.yellow if o.tied else Qt.GlobalColor.green)
            self.tables.addItem(item)
        self.tables.blockSignals(False)
        count = len(t.seating_chart(r))
        if not 1 <= keep <= count:
            keep = next((i for i in range(1, count + 1) if i not in rnd.results), 1)
        self.tables.setCurrentRow(keep - 1)
        self._choose(keep - 1)
        self._ties()
        self._enable()

    def _choose(self, index: int) -> None:
        t = self.d.t
        if not t.rounds or index < 0:
            return
        self.table_no = index + 1
        players = t.seating_chart(self.round_no)[index]
        game = t.rules()
        word = "chips" if game.measure is Measure.CHIPS else "score"
        plays = (f" · plays for {game.chips_for(len(players))} chips"
                 if game.measure is Measure.CHIPS else "")
        self.table_title.setText(f"Table {self.table_no} · {len(players)} players{plays}")
        entry = t.rounds[self.round_no].results.get(self.table_no)
        self._fill_rows(players, word)
        if entry is not None:
            for p, v in entry.results.items():
                self.spins[p].setValue(v)
            for p in entry.forfeits:
                self.forfeits[p].setChecked(True)
            self.unawarded.setValue(entry.unawarded)
        self.enter_button.setText("Correct result…" if entry is not None else "Enter result")
        self.correct_note.setVisible(entry is not None)
        self._check()
        self._enable()

    def _fill_rows(self, players: tuple[str, ...], word: str = "chips") -> None:
        while self.rows.count():
            item = self.rows.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.hide()
                w.setParent(None)
                w.deleteLater()
        self.players = players
        self.spins = {}
        self.forfeits = {}
        measure_chips = word == "chips"
        low = 0 if measure_chips else -100_000
        wide = len(players) > 6   # Po-Ke-No seats twelve: two columns, in seat order
        half = (len(players) + 1) // 2
        for c in range(2 if wide else 1 if players else 0):
            for k, text in enumerate(("Player", word.capitalize(), "")):
                head = QLabel(text)
                head.setStyleSheet(f"font-size: 18px; color: {theme.MUTED};")
                self.rows.addWidget(head, 0, c * 3 + k)
        for i, p in enumerate(players):
            col = (i // half) * 3 if wide else 0
            r = 1 + (i % half if wide else i)
            name = _big(p, ROW_PX, bold=True)
            name.setMinimumWidth(120)
            if wide:   # a long name gives way rather than push the chips off the screen
                name.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            name.setToolTip(p)
            spin = _spin(f"{p}: {word}", low, 100_000)
            spin.setMinimumWidth(110)
            spin.setMaximumWidth(150)
            spin.setAccessibleName(f"{p} {word}")
            spin.valueChanged.connect(self._check)
            # A button that stays in when touched: the whole of it takes a touch.
            forfeit = QPushButton("Forfeit")
            forfeit.setCheckable(True)
            forfeit.setAccessibleName(f"{p} forfeited")
            self.rows.addWidget(name, r, col)
            self.rows.addWidget(spin, r, col + 1)
            self.rows.addWidget(forfeit, r, col + 2)
            self.spins[p] = spin
            self.forfeits[p] = forfeit
        self.rows.setRowStretch(len(players) + 1, 1)
        self.rows.setColumnStretch(0, 1 if wide else 0)
        self.rows.setColumnStretch(3, 1)
        self.unawarded.setValue(0)
        for w in (self.unawarded, self.unawarded_label):
            w.setVisible(measure_chips and bool(players))

    def values(self) -> dict[str, int]:
        return {p: s.value() for p, s in self.spins.items()}

    def _check(self) -> None:
        """The chip check as typed: held + unawarded against what the table plays for."""
        t = self.d.t
        if not self.players or not t.created or t.rules().measure is not Measure.CHIPS:
            self.chip_check.setText("")
            return
        held = sum(self.values().values())
        un = self.unawarded.value()
        expected = t.rules().chips_for(len(self.players))
        total = held + un
        ok = total == expected
        gap = (f" — {expected - total} missing" if total < expected else
               f" — {total - expected} too many" if total > expected else " — adds up")
        self.chip_check.setText(f"Chip check: held {held} + unawarded {un} = {total} of "
                                f"{expected}{gap}")
        colour = theme.GOOD if ok else theme.BAD
        self.chip_check.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {colour}; "
                                      f"padding: 4px;")
        self.chip_check.setProperty("adds_up", ok)

    def _ties(self) -> None:
        t = self.d.t
        ties = t.ties(self.round_no) if t.rounds and not t.rounds[self.round_no].closed else {}
        self.tie_box.setVisible(bool(ties))
        if not ties:
            self.tie_table = -1
            return
        table, tied = next(iter(ties.items()))
        self.tie_table = table
        where = ("Eliminated with equal chips" if table == 0 else f"Table {table}")
        self.tie_text.setText(f"{where}: {', '.join(tied)} are tied. Play an extra game and "
                              f"put them in its order, best first.")
        self.tie_order.clear()
        for p in tied:
            self.tie_order.addItem(p)
        self.tie_order.setCurrentRow(0)

    def _enable(self) -> None:
        t = self.d.t
        signed = self.d.signed_in
        open_round = bool(t.rounds) and not t.rounds[self.round_no].closed and not t.finished
        self.enter_button.setEnabled(signed and open_round and bool(self.players))
        self.close_button.setEnabled(signed and open_round)
        why = ""
        if t.rounds and open_round:
            try:
                t.verify_close_round(self.round_no)
            except StationError as exc:
                why = f"Not yet: {exc}"
            else:
                why = "Every table is in and adds up: the round can close."
        elif t.finished:
            why = "The tournament is over."
        if not signed:
            why = "Sign in to enter results. " + why
        self.close_why.setText(why)

    # -- acting --

    def enter(self) -> None:
        t = self.d.t
        forfeits = [p for p, c in self.forfeits.items() if c.isChecked()]
        entry = t.rounds[self.round_no].results.get(self.table_no) if t.rounds else None
        if entry is None:
            self.d.act(t.result, self.round_no, self.table_no, self.values(),
                       unawarded=self.unawarded.value(), forfeits=forfeits,
                       done=f"table {self.table_no}: result entered")
            return
        # A correction says why: asked now, the result as it stands on the page then.
        table = self.table_no
        self.reason_sheet = ask_director_reason(
            self.enter_button, "result_correction",
            f"Correct round {self.round_no} table {table}'s result: why?",
            lambda reason: self.correct(table, reason),
            note="The result on the page replaces the one entered.")

    def correct(self, table: int, reason: str) -> None:
        """Replace table ``table``'s result with the one on the page, for ``reason``."""
        if table != self.table_no:
            return          # another table is on the page now: nothing to correct with
        t = self.d.t
        forfeits = [p for p, c in self.forfeits.items() if c.isChecked()]
        self.d.act(t.correct, self.round_no, table, self.values(),
                   unawarded=self.unawarded.value(), forfeits=forfeits, reason=reason,
                   done=f"table {table}: result corrected")

    def _move(self, step: int) -> None:
        r = self.tie_order.currentRow()
        to = r + step
        if r < 0 or not 0 <= to < self.tie_order.count():
            return
        item = self.tie_order.takeItem(r)
        self.tie_order.insertItem(to, item)
        self.tie_order.setCurrentRow(to)

    def enter_tie(self) -> None:
        order = [self.tie_order.item(i).text() for i in range(self.tie_order.count())]
        self.d.act(self.d.t.break_tie, self.round_no, self.tie_table, order,
                   reason="extra game", done="extra game's order entered")

    def close_round(self) -> None:
        r = self.round_no
        if self.d.act(self.d.t.close_round, r, done=f"round {r} closed: tags given"):
            self.table_no = 0
            self.refresh()


class MatchResults(QWidget):
    """A bracket match's result: Pedro's two scores, or Euchre hand by hand with its sheet."""

    def __init__(self, director: Director) -> None:
        super().__init__()
        self.d = director
        self.match = ""
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        left.addWidget(_big("Matches to play", 22, bold=True))
        self.matches = _list()
        self.matches.setFixedWidth(330)
        self.matches.currentItemChanged.connect(self._choose_item)
        left.addWidget(self.matches, 1)
        row.addLayout(left)
        right = QVBoxLayout()
        self.title = _big("", 24, bold=True)
        self.title.setWordWrap(True)
        right.addWidget(self.title)
        # Pedro: both scores.
        self.pedro = QWidget()
        pg = QGridLayout(self.pedro)
        self.score_names = [_big("", ROW_PX, bold=True), _big("", ROW_PX, bold=True)]
        self.scores = [_spin("The first team's score", -1000, 1000),
                       _spin("The second team's score", -1000, 1000)]
        for i in (0, 1):
            pg.addWidget(self.score_names[i], i, 0)
            pg.addWidget(self.scores[i], i, 1)
        self.score_button = QPushButton("Enter the match's result")
        self.score_button.setObjectName("primary")
        self.score_button.clicked.connect(self.enter_score)
        pg.addWidget(self.score_button, 2, 0, 1, 2)
        pg.setRowStretch(3, 1)
        right.addWidget(self.pedro)
        # Euchre: a hand as the score sheet has it.
        self.euchre = QWidget()
        eg = QGridLayout(self.euchre)
        eg.setVerticalSpacing(6)
        self.totals = _big("", 30, bold=True)
        eg.addWidget(self.totals, 0, 0, 1, 8)
        eg.addWidget(_big("Makers"), 1, 0)
        self.makers = QButtonGroup(self)
        self.maker_buttons = [QPushButton(""), QPushButton("")]
        for i, b in enumerate(self.maker_buttons):
            b.setCheckable(True)
            self.makers.addButton(b, i)
            eg.addWidget(b, 1, 1 + i * 3, 1, 3)
        eg.addWidget(_big("Tricks"), 2, 0)
        self.tricks = QButtonGroup(self)
        for n in range(6):
            b = QPushButton(str(n))
            b.setCheckable(True)
            b.setMinimumWidth(60)
            self.tricks.addButton(b, n)
            eg.addWidget(b, 2, 1 + n)
        # Buttons that stay in when touched (a check box takes a touch on its box and words
        # only, not across its cell).
        self.alone = QPushButton("went alone")
        self.lead = QPushButton("lead out of turn")
        for b in (self.alone, self.lead):
            b.setCheckable(True)
        eg.addWidget(self.alone, 3, 1, 1, 3)
        eg.addWidget(self.lead, 3, 4, 1, 3)
        eg.addWidget(_big("Renege by"), 4, 0)
        self.renege = QButtonGroup(self)
        self.renege_buttons = [QPushButton("nobody"), QPushButton(""), QPushButton("")]
        for i, b in enumerate(self.renege_buttons):
            b.setCheckable(True)
            self.renege.addButton(b, i)
            eg.addWidget(b, 4, 1 + i * 2, 1, 2)
        self.hand_button = QPushButton("Enter the hand")
        self.hand_button.setObjectName("primary")
        self.hand_button.clicked.connect(self.enter_hand)
        eg.addWidget(self.hand_button, 5, 1, 1, 6)
        self.sheet = QTableWidget(0, 6)
        self.sheet.setHorizontalHeaderLabels(["Hand", "Dealer", "What happened", "", "", ""])
        self.sheet.verticalHeader().hide()
        self.sheet.verticalHeader().setDefaultSectionSize(34)
        self.sheet.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.sheet.setStyleSheet("QTableWidget { font-size: 18px; }")
        eg.addWidget(self.sheet, 6, 0, 1, 8)
        eg.setRowStretch(6, 1)
        right.addWidget(self.euchre, 1)
        row.addLayout(right, 1)
        director.changed.connect(self.refresh)
        self.refresh()

    @property
    def hand_by_hand(self) -> bool:
        return self.d.t.created and self.d.t.rules().key == "euchre"

    def refresh(self) -> None:
        t = self.d.t
        self.pedro.setVisible(not self.hand_by_hand)
        self.euchre.setVisible(self.hand_by_hand)
        self.matches.blockSignals(True)
        self.matches.clear()
        bracket = t.bracket
        ready = bracket.ready() if bracket is not None else ()
        for mid in ready:
            a, b = bracket.teams_of(mid) if bracket else (None, None)
            item = QListWidgetItem(f"{mid}   {a} v {b}")
            item.setData(Qt.ItemDataRole.UserRole, mid)
            self.matches.addItem(item)
        self.matches.blockSignals(False)
        if self.match not in ready:
            self.match = ready[0] if ready else ""
        self.choose(self.match)

    def _choose_item(self, item: QListWidgetItem | None, _prev: object = None) -> None:
        if item is not None:
            self.choose(str(item.data(Qt.ItemDataRole.UserRole)))

    def choose(self, mid: str) -> None:
        t = self.d.t
        self.match = mid
        for i in range(self.matches.count()):
            if self.matches.item(i).data(Qt.ItemDataRole.UserRole) == mid:
                self.matches.blockSignals(True)
                self.matches.setCurrentRow(i)
                self.matches.blockSignals(False)
        bracket = t.bracket
        if not mid or bracket is None:
            self.title.setText("No match to play" if t.started else
                               "Start the tournament (Registration) to draw the bracket")
            self._enable(False)
            return
        a, b = bracket.teams_of(mid)
        teams = (a or "", b or "")
        status = bracket.status(mid)
        self.title.setText(f"Match {mid}: {entry_label(t, teams[0])} v "
                           f"{entry_label(t, teams[1])}"
                           + ("" if status is Status.READY else f" ({status.value})"))
        for i in (0, 1):
            self.score_names[i].setText(teams[i])
            self.scores[i].setValue(0)
            self.scores[i].field.prompt = f"{teams[i]}: the score"
            self.maker_buttons[i].setText(teams[i])
            self.renege_buttons[i + 1].setText(teams[i])
        self.renege_buttons[0].setChecked(True)
        self.alone.setChecked(False)
        self.lead.setChecked(False)
        self._sheet(mid, teams)
        self._enable(status is Status.READY)

    def _sheet(self, mid: str, teams: tuple[str, str]) -> None:
        game = self.d.t.euchre_sheet(mid)
        lines = game.sheet if game is not None else []
        scores = game.scores if game is not None else {teams[0]: 0, teams[1]: 0}
        self.totals.setText(f"{teams[0]} {scores.get(teams[0], 0)}  —  "
                            f"{scores.get(teams[1], 0)} {teams[1]}   (game to "
                            f"{self.d.t.rules().game_points if self.d.t.created else 10})")
        self.sheet.setHorizontalHeaderLabels(["Hand", "Dealer", "What happened",
                                              f"+{teams[0]}", f"+{teams[1]}", "Score"])
        self.sheet.setRowCount(len(lines))
        for r, line in enumerate(lines):
            pts = dict(line.points)
            tot = dict(line.totals)
            cells = [str(line.hand), f"seat {line.dealer + 1}", line.what,
                     str(pts.get(teams[0], 0)), str(pts.get(teams[1], 0)),
                     f"{tot.get(teams[0], 0)}–{tot.get(teams[1], 0)}"]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                self.sheet.setItem(r, c, it)
        self.sheet.resizeColumnsToContents()
        self.sheet.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        if lines:
            self.sheet.scrollToBottom()

    def _enable(self, ready: bool) -> None:
        ok = ready and self.d.signed_in
        self.score_button.setEnabled(ok)
        self.hand_button.setEnabled(ok)

    def enter_score(self) -> None:
        bracket = self.d.t.bracket
        if bracket is None or not self.match:
            return
        a, b = bracket.teams_of(self.match)
        scores = {str(a): self.scores[0].value(), str(b): self.scores[1].value()}
        self.d.act(self.d.t.match, self.match, scores, done=f"match {self.match}: result "
                                                            f"entered")

    def hand(self) -> EuchreHand | None:
        bracket = self.d.t.bracket
        if bracket is None or not self.match:
            return None
        teams = bracket.teams_of(self.match)
        maker = self.makers.checkedId()
        tricks = self.tricks.checkedId()
        renege = self.renege.checkedId()
        return EuchreHand(str(teams[maker]) if maker >= 0 else "", tricks,
                          self.alone.isChecked(),
                          str(teams[renege - 1]) if renege > 0 else None,
                          self.lead.isChecked())

    def enter_hand(self) -> None:
        hand = self.hand()
        if hand is None:
            return
        if not hand.makers or hand.tricks < 0:
            self.d.said.emit("choose the makers (the team that called trump) and their "
                             "tricks", "bad")
            return
        mid = self.match
        if self.d.act(self.d.t.euchre_hand, mid, hand, done=f"match {mid}: hand entered"):
            for group in (self.makers, self.tricks):
                checked = group.checkedButton()
                if checked is not None:
                    group.setExclusive(False)
                    checked.setChecked(False)
                    group.setExclusive(True)
