"""Signatures at the table, by touch: each signer chooses their name and types their PIN.

- :class:`SignerRow`: one signature on a form (the Chips tab's dealer, or whoever else the
  jurisdiction's receipt needs): a large button with the signer's name, which, touched, lists
  the people who may sign it by name and then opens the PIN pad; and the PIN field.
- :func:`ask_signers`: signatures asked one after another on sheets (a void's two signers,
  e.g. a supervisor and a cage cashier who came to the table): for each, the people who may
  sign it by name (anyone already chosen is left out), then that person's PIN pad. The
  callback gets the ``(user id, PIN)`` pairs once every signature is given; Cancel on any
  sheet gives nothing.
- :func:`signed_in`: the pairs checked, in words, then each PIN checked as at the sign-in
  screen (each check is journaled, a wrong PIN too).

Who may sign which signature is the accounting's rule (``cage_settings.may_sign``); the lists
only spare people a name that would be refused. The rules themselves are decided by the
table's accounting and the cage's desk, which refuse a wrong signer whatever a screen offers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QPushButton, QWidget

from dealer_station.accounting.cage_settings import may_sign
from dealer_station.audit.users import User, Users
from dealer_station.errors import StationError
from dealer_station.events.wording import ROLE_WORDS
from dealer_station.ui import theme
from dealer_station.ui.touch_fields import TouchPinField
from dealer_station.ui.touch_keyboard import open_keypad
from dealer_station.ui.touch_sheet import choose

#: A signer's name on their button (a longer one ends in "…").
NAME_CHARS = 16
#: ...and no wider than this (the form's signature row shares the column with its button).
NAME_PX = 132
PIN_PX = 90
BUTTON_TEXT_PX = 18
COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def role_words(slot: str) -> str:
    """A signature's role in words: "dealer", "cage cashier", "security officer"."""
    return ROLE_WORDS.get(slot, slot)


def people_for(users: Users, slot: str) -> list[User]:
    """The active users who may sign a ``slot`` signature, by name."""
    try:
        listed = users.list()
    except StationError:
        return []
    return sorted((u for u in listed if u.active and may_sign(u.role, slot)),
                  key=lambda u: u.name.lower())


def names_of(users: Users) -> dict[str, str]:
    """Every user's name by user id (empty when the users cannot be read)."""
    try:
        return {u.user_id: u.name for u in users.list()}
    except StationError:
        return {}


def short(name: str, button: QPushButton | None = None) -> str:
    """A name as its button can show it: at most NAME_CHARS characters, and no wider than
    the button's NAME_PX (a longer one ends in "…")."""
    name = name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"
    if button is None:
        return name
    font = QFont(button.font())
    font.setPixelSize(BUTTON_TEXT_PX)
    font.setBold(True)                  # as the theme draws a button's text
    return QFontMetrics(font).elidedText(name, Qt.TextElideMode.ElideRight, NAME_PX)


class SignerRow:
    """One signature on a form: the signer's button and their PIN field (see the module).
    ``slot`` is the role the signature is for; ``user_id`` the person chosen ("" none)."""

    def __init__(self, users: Users, slot: str, parent: QWidget,
                 on_enter: Callable[[], Any]) -> None:
        self.users = users
        self.slot = slot
        self.user_id = ""
        self.button = QPushButton(parent)
        self.button.setMinimumHeight(theme.TOUCH_PX)
        self.button.setFixedWidth(NAME_PX + 18)
        self.button.setStyleSheet(f"padding: 2px 8px; font-size: {BUTTON_TEXT_PX}px;")
        self.button.clicked.connect(self.choose)
        self.pin = TouchPinField(parent=parent)
        self.pin.setFixedWidth(PIN_PX)
        self.pin.setMinimumHeight(theme.TOUCH_PX)
        self.pin.setStyleSheet("font-size: 24px;")
        self.pin.returnPressed.connect(on_enter)
        self.set_user("")

    def set_slot(self, slot: str) -> None:
        """The signature is for ``slot`` now: whoever was chosen for another role goes."""
        if slot != self.slot:
            self.slot = slot
            self.set_user("")

    def set_user(self, user_id: str) -> None:
        """The person who signs (by user id); their PIN is typed again."""
        self.user_id = user_id
        self.pin.clear()
        words = role_words(self.slot)
        name = names_of(self.users).get(user_id, user_id) if user_id else ""
        self.button.setText(f"{words.capitalize()}:\n{short(name, self.button)}" if user_id
                            else f"Choose\nthe {words}")
        self.button.setAccessibleName(f"The {words} who signs" + (f": {name}" if name else ""))
        self.pin.prompt = f"{name}'s PIN" if user_id else f"The {words}'s PIN"
        self.pin.setAccessibleName(f"{words.capitalize()} PIN")

    def name(self) -> str:
        return names_of(self.users).get(self.user_id, self.user_id)

    def choose(self) -> None:
        """The people who may sign, by name; then the chosen one's PIN on the pad."""
        words = role_words(self.slot)

        def chosen(user_id: str) -> None:
            self.set_user(user_id)
            self.pin.open_input()

        choose(self.button, f"Who signs as the {words}?",
               [(u.name, u.user_id) for u in people_for(self.users, self.slot)], chosen,
               note=f"The {words} chooses their name, then types their PIN.",
               empty=f"No active {words}: an operator adds one (dealer-station users add).")

    def given(self, action: str) -> tuple[str, str]:
        """The ``(user id, PIN)`` given, or a refusal in words naming what is missing."""
        words = role_words(self.slot)
        if not self.user_id:
            raise StationError(f"{action} needs the {words}'s signature: choose the {words}, "
                               f"then their PIN")
        if not self.pin.text():
            raise StationError(f"{action} needs {self.name()}'s PIN")
        return self.user_id, self.pin.text()


def ask_signers(anchor: QWidget, title: str, slots: Sequence[str], users: Users,
                on_signed: Callable[[list[tuple[str, str]]], Any], *,
                note: str = "") -> None:
    """Ask each of ``slots``' signatures in turn on sheets over ``anchor``'s window (see the
    module); ``on_signed(pairs)`` runs once all are given."""
    pairs: list[tuple[str, str]] = []
    n = len(slots)

    def ask(i: int) -> None:
        if i == n:
            on_signed(list(pairs))
            return
        slot = slots[i]
        words = role_words(slot)
        taken = {user_id for user_id, _ in pairs}
        options = [(u.name, u) for u in people_for(users, slot) if u.user_id not in taken]

        def picked(user: User) -> None:
            def typed(pin: str) -> None:
                pairs.append((user.user_id, pin))
                ask(i + 1)

            open_keypad(anchor, f"{user.name}'s PIN", typed, mode="pin", required=True,
                        placeholder="PIN", max_length=12,
                        note=f"{title}: {user.name} signs as the {words}.")

        choose(anchor, f"{title}: who signs as the {words}?" + (f" ({i + 1} of {n})"
                                                                  if n > 1 else ""),
               options, picked, note=note,
               empty=f"No other active {words}: an operator adds one "
                     f"(dealer-station users add).")

    ask(0)


def signed_in(users: Users, pairs: Sequence[tuple[str, str]], table_id: str,
              action: str, *, present: Sequence[User] = ()) -> list[User]:
    """The signers, each PIN checked (journaled as a sign-in is); refused in words before any
    PIN is checked when one person would sign twice (``present``: those who sign already
    signed in, e.g. the supervisor at the screen)."""
    names = names_of(users)
    seen = {u.user_id for u in present}
    for user_id, _ in pairs:
        if user_id in seen:
            n = len(pairs) + len(present)
            raise StationError(f"{names.get(user_id, user_id)} cannot sign twice: {action} "
                               f"needs {COUNT_WORDS.get(n, str(n))} different people")
        seen.add(user_id)
    return [users.authenticate(user_id, pin, table_id=table_id) for user_id, pin in pairs]


__all__ = ["SignerRow", "ask_signers", "names_of", "people_for", "role_words", "signed_in"]
