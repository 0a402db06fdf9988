"""The operator's Bourré screen: the table's rule profile, changed between sessions with a
reason."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dealer_station.errors import StationError
from dealer_station.ui.choice_buttons import ChoiceButtons
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.reasons import ReasonSheet, ask_reason
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents

#: What each setting of a profile is called on the operator's page (docs/bourre.md, "Rule
#: profiles"); a key this release has no words for is shown as it is in the file.
SETTING_LABELS: dict[str, str] = {
    "min_players": "Fewest players seated",
    "max_players": "Most players seated",
    "ante": "Ante (chips)",
    "second_ante": "Staying costs a stay chip",
    "stay_chips": "Stay chip (chips)",
    "dealer_antes_for_all": "The dealer antes for every player",
    "draw_limit": "Most cards a player may draw",
    "min_staying": "Players who must stay",
    "min_staying_large_table": "Players who must stay at a large table",
    "large_table": "A large table has at least (players)",
    "bourre_penalty_cap": "Most a bourré or a renege costs (chips)",
    "lead_highest_trump_with_ace_king_queen":
        "Holding the ace, king and queen of trumps, lead the highest",
    "must_trump_even_when_cannot_beat": "Must trump even when she cannot beat the trump",
    "misplay_penalty": "A card played against the rules",
    "house.collection": "House collection",
    "house.drop": "House drop each hand (chips)",
    "house.percent": "House share of a won pot (%)",
    "house.cap": "Most the house takes of a pot (chips)",
    "session.starting_chips": "Chips each player starts with",
    "session.minutes": "Session length (minutes)",
    "session.tags_to_eliminate": "Lost sessions that eliminate a player",
    "session.winners": "Winners per table size",
}
#: The words for a setting's chosen value.
VALUE_LABELS: dict[str, dict[str, str]] = {
    "misplay_penalty": {"retraction": "Retraction: it goes back, she plays again, no penalty",
                        "retraction_and_renege": "Retraction and renege: it goes back, she "
                                                 "plays again, and matches the pot",
                        "renege": "Renege: it stands, and she matches the pot"},
    "house.collection": {"none": "None", "drop": "A drop each hand",
                         "percent": "A share of a won pot"},
}
#: Caps written "none" in the file.
NO_CAP = {"bourre_penalty_cap": "No cap (the whole pot)", "house.cap": "No cap"}


def setting_value(key: str, value: Any) -> str:
    """A setting's value as the operator reads it: Yes/No, a cap, a rule in words."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if value == "none" and key in NO_CAP:
        return NO_CAP[key]
    if isinstance(value, dict):
        return ", ".join(f"{size} players: {n}" for size, n in value.items())
    return VALUE_LABELS.get(key, {}).get(str(value), str(value))


def profile_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) of every setting of a profile's plain form, in the file's order."""
    flat: list[tuple[str, Any]] = []
    for k, v in data.items():
        if k == "description":
            continue
        if isinstance(v, dict) and k in ("house", "session"):
            flat.extend((f"{k}.{k2}", v2) for k2, v2 in v.items())
        else:
            flat.append((k, v))
    return [(SETTING_LABELS.get(k, k), setting_value(k, v)) for k, v in flat]


class BourreOperatorScreen(QWidget):
    """The rule profile of a Bourré table, changed between sessions with a reason."""

    def __init__(self, table: Any, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from dealer_station.games.bourre.config_file import load_bourre_profiles

        self.table = table
        self.session = session
        self.profiles = load_bourre_profiles()
        col = QVBoxLayout(self)
        col.setContentsMargins(14, 10, 14, 10)
        self.current = QLabel("")
        self.current.setWordWrap(True)
        col.addWidget(self.current)
        self.choice = ChoiceButtons()        # a touch on a profile's name
        self.choice.addItems(list(self.profiles))
        self.choice.currentTextChanged.connect(self.preview)
        col.addWidget(self.choice)
        self.details = QTextBrowser()
        self.details.setStyleSheet("QTextBrowser { font-size: 18px; }")   # read from a metre
        col.addWidget(self.details, 1)
        # Touched, it asks why (the operator's reasons, or Other… typed), then applies.
        self.reason_sheet: ReasonSheet | None = None
        self.apply_button = QPushButton("Apply the rule profile…")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply)
        col.addWidget(self.apply_button)
        self.message = MessageLabel()
        col.addWidget(self.message)
        events.listen(lambda _c: self._show_current())
        self._show_current()
        self.preview(self.choice.currentText())

    def _show_current(self) -> None:
        p = self.table.profile
        note = (" A session is under way: the profile can change once it ends."
                if self.table.session is not None else "")
        self.current.setText(f"In force: profile <b>{escape(p.name)}</b> ({escape(p.description)}"
                             f"), configuration {self.table.version[:12]}.{note}")

    def preview(self, name: str) -> None:
        p = self.profiles.get(name)
        if p is None:
            return
        rows = "".join(f"<tr><td style='padding-right:18px'>{escape(label)}</td>"
                       f"<td><b>{escape(value)}</b></td></tr>"
                       for label, value in profile_rows(p.to_data()))
        self.details.setHtml(f"<h3>{escape(p.name)}: {escape(p.description)}</h3>"
                             f"<table>{rows}</table>")

    def apply(self) -> None:
        """Ask why (the reasons for a configuration change, or Other… typed), then apply the
        chosen profile."""
        if self.session.user is None:
            self._say("Sign in first.", "bad")
            return
        name = self.choice.currentText()
        self.reason_sheet = ask_reason(
            self.apply_button, "config_change", f"Apply the rule profile {name}: why?",
            lambda reason: self.apply_with(name, reason),
            note="The profile and the reason are recorded.")

    def apply_with(self, name: str, reason: str) -> None:
        """Apply the profile ``name`` for ``reason``."""
        user = self.session.user
        if user is None:
            self._say("Sign in first.", "bad")
            return
        p = self.profiles[name]
        try:
            version = self.table.change_profile(user, p, reason)
        except StationError as exc:
            self._say(f"Not applied: {exc}", "bad")
            return
        self._say(f"Profile {p.name} in force (configuration {version[:12]}), recorded by "
                  f"{user.actor}, for “{reason}”.", "good")

    def _say(self, text: str, tone: str) -> None:
        self.message.say(text, tone)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._show_current()
