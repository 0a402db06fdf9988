"""The count team's sign-in, and the PINs its members type to verify a count.

The sign-in is the station's own (``login.LoginPanel``): the names, here only the active
accounting users, and the PIN pad. Each member of the team, two to six people, taps their
name and types their PIN in turn; each sign-in is checked and journaled as any other, in the
station's chain. A member already on the team is marked so on their name. Refused, in
words, with nobody added to the team: a wrong PIN, the same person twice, a user who is not
an accounting user (typed by user id: signed straight out again, journaled), a seventh
member. *Start the count* opens the count room once two or more are signed in.

The signatures of a count and of a disposition are asked on sheets over the window, one after
the other: each member of the team types their PIN (``ask_team_pins``); two accounting users
each choose their name, then type their PIN (``ask_two_signers``). ``verify`` then checks
each PIN as a sign-in at the box's table (journaled in that table's chain), naming whoever's
PIN was wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from dealer_station.audit.users import (
    AuthError,
    PermissionDenied,
    User,
    Users,
    WrongPin,
    attempts_left_text,
)
from dealer_station.errors import StationError
from dealer_station.events.wording import ROLE_WORDS
from dealer_station.table.count_room import MAX_TEAM
from dealer_station.ui import theme
from dealer_station.ui.chips_signing import names_of, people_for, signed_in
from dealer_station.ui.login import LoginPanel
from dealer_station.ui.session import SignInSession
from dealer_station.ui.touch_keyboard import open_keypad
from dealer_station.ui.touch_sheet import choose

NOTICE = "Each member of the count team in turn: tap your name, then type your PIN."
#: Two to six accounting users count a box and verify it.
MIN_TEAM = 2
ON_TEAM = "✓ on the count team"


def names_in_words(names: Sequence[str]) -> str:
    """"Amy", "Amy and Ben", "Amy, Ben and Ava"."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


class TeamSignIn(LoginPanel):
    """The count team signs in (see the module). ``team`` is the signed-in team, in the
    order they signed in; ``joined(user)`` is called for each member added."""

    roles = ("accounting",)
    notice_text = NOTICE

    def __init__(self, session: SignInSession, team: list[User],
                 joined: Callable[[User], Any], start: Callable[[], Any],
                 parent: QWidget | None = None) -> None:
        self.team = team
        self.joined = joined
        self.start = start
        super().__init__(session, "The count team signs in", parent)

    def _extra(self, col: QVBoxLayout) -> None:
        self.start_button = QPushButton("Start the count")
        self.start_button.setObjectName("primary")
        self.start_button.setMinimumHeight(theme.TOUCH_PX + 20)
        self.start_button.setStyleSheet("font-size: 21px;")
        self.start_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.start_button.clicked.connect(lambda: self.start())
        col.addWidget(self.start_button)

    def refresh_names(self) -> None:
        super().refresh_names()
        team = getattr(self, "team", [])
        for u in team:
            b = self.name_buttons.get(u.user_id)
            if b is not None:
                b.setText(f"{u.name}\n{ON_TEAM}")
                b.setStyleSheet(b.styleSheet() + f" color: {theme.GOOD};")
        button = getattr(self, "start_button", None)
        if button is not None:
            n = len(team)
            button.setText(f"Start the count\n{n} signed in" if n else "Start the count")

    def attempt(self, user_id: str, pin: str) -> None:
        """One more member: refused in words (nobody added) or added to the team."""
        uid = user_id.strip()
        names = names_of(self.session.users)
        if any(u.user_id == uid for u in self.team):
            self._forget()
            raise StationError(f"{names.get(uid, uid)} is already on the count team: each "
                               f"member signs in once")
        if len(self.team) >= MAX_TEAM:
            raise StationError(f"the count team is {MIN_TEAM} to {MAX_TEAM} people; "
                               f"{MAX_TEAM} are signed in")
        user = self.session.users.authenticate(uid, pin)
        if user.role != "accounting":
            self._forget()
            self.session.users.sign_out(user, "not an accounting user: refused from the "
                                              "count team")
            raise PermissionDenied(f"{user.name} is a {ROLE_WORDS.get(user.role, user.role)}: "
                                   f"the count team is accounting users")
        self.team.append(user)
        self.joined(user)
        n = len(self.team)
        self.reset(f"{user.name} is on the count team ({n} signed in). Next member: tap your "
                   f"name, then your PIN" + (", or touch Start the count." if n >= MIN_TEAM
                                             else "."))

    def _forget(self) -> None:
        """A refused person's user id is not left for the next one to type after."""
        self.user_edit.clear()
        self._pick(None)

    def refuse(self, text: str) -> None:
        """Say ``text`` on the sign-in's message line, in the colour of what is wrong."""
        self._error(text)


def ask_team_pins(anchor: QWidget, title: str, team: Sequence[User], note: str,
                  on_done: Callable[[list[tuple[str, str]]], Any]) -> None:
    """Each member of ``team`` types their PIN on a keypad sheet, in turn; ``on_done(pairs)``
    once all have (Cancel on any sheet: nothing)."""
    pairs: list[tuple[str, str]] = []
    n = len(team)

    def ask(i: int) -> None:
        if i == n:
            on_done(list(pairs))
            return
        user = team[i]

        def typed(pin: str) -> None:
            pairs.append((user.user_id, pin))
            ask(i + 1)

        open_keypad(anchor, f"{user.name}'s PIN ({i + 1} of {n})", typed, mode="pin",
                    required=True, placeholder="PIN", max_length=12,
                    note=f"{title}: {user.name} verifies. {note}")

    ask(0)


def ask_two_signers(anchor: QWidget, title: str, users: Users, note: str,
                    on_signed: Callable[[list[tuple[str, str]]], Any]) -> None:
    """Two accounting users sign, one after the other: each touches their name (the first
    is not offered again), then types their PIN; ``on_signed(pairs)`` once both have."""
    pairs: list[tuple[str, str]] = []

    def ask(i: int) -> None:
        if i == 2:
            on_signed(list(pairs))
            return
        taken = {uid for uid, _ in pairs}
        options = [(u.name, u) for u in people_for(users, "accounting")
                   if u.user_id not in taken]

        def picked(user: User) -> None:
            def typed(pin: str) -> None:
                pairs.append((user.user_id, pin))
                ask(i + 1)

            open_keypad(anchor, f"{user.name}'s PIN", typed, mode="pin", required=True,
                        placeholder="PIN", max_length=12,
                        note=f"{title}: {user.name} signs ({i + 1} of 2).")

        choose(anchor, f"{title}: who signs? ({i + 1} of 2)", options, picked,
               note=f"An accounting user touches their name, then types their PIN. {note}",
               empty="No other active accounting user: an operator adds one "
                     "(dealer-station users add).")

    ask(0)


def verify(users: Users, pairs: Sequence[tuple[str, str]], table: str,
           action: str) -> list[User]:
    """Each PIN checked as a sign-in at ``table`` (journaled there), in order; a refusal
    names whose PIN it was. One person twice is refused before any PIN is checked."""
    names = names_of(users)
    ids = [uid for uid, _ in pairs]
    for uid in ids:
        if ids.count(uid) > 1:
            raise StationError(f"{names.get(uid, uid)} cannot sign twice: {action} needs "
                               f"different people")
    out: list[User] = []
    for uid, pin in pairs:
        name = names.get(uid, uid)
        try:
            out += signed_in(users, [(uid, pin)], table, action, present=out)
        except WrongPin as exc:
            raise StationError(f"wrong PIN for {name} ({attempts_left_text(exc.attempts_left)} "
                               f"before a {exc.lockout_minutes}-minute lockout)") from None
        except AuthError as exc:
            raise StationError(f"{name} cannot sign: {exc}") from None
    return out


__all__ = ["MIN_TEAM", "NOTICE", "ON_TEAM", "TeamSignIn", "ask_team_pins", "ask_two_signers",
           "names_in_words", "verify"]
