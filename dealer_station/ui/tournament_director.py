"""The director's session: the tournament loaded from its journal, who is signed in, and one
way to act on it.

Every page of the director's screen reads the tournament's read models and acts through
:meth:`Director.act`, which runs the engine's action as the signed-in director (the journal's
actor) and says the engine's refusal word for word; ``changed`` tells every page to redraw.
The pages never decide a rule: they ask ``can_x`` / ``verify_x`` and show the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from dealer_station.audit.journal import Journal
from dealer_station.audit.users import PRIVILEGED, Users, require_role
from dealer_station.errors import StationError
from dealer_station.tournament import journaled
from dealer_station.tournament.tournament import Tournament

#: Who a director signed in by name is, when the journal has no users of its own.
DIRECTOR_ROLE = "director"


class Director(QObject):
    changed = Signal()
    #: (text, tone): what an action came to, for the window's message line.
    said = Signal(str, str)

    def __init__(self, journal: Journal, name: str, *, users: Users | None = None) -> None:
        super().__init__()
        self.journal = journal
        self.name = name
        self.users = users if users is not None else Users(journal)
        self.stream = journaled.stream(name)
        self.t: Tournament = journaled.load(journal, name)
        self.seen = self._last_seq()
        self.actor: str | None = None
        self.who = ""

    # -- who acts --

    @property
    def signed_in(self) -> bool:
        return self.actor is not None

    def needs_pin(self) -> bool:
        """The journal's own users sign in with their PIN; a journal without users (a
        tournament kept on its own) takes the director's name."""
        return self.users.has_users()

    def sign_in(self, user_id: str, pin: str = "") -> bool:
        user_id = user_id.strip()
        try:
            if self.needs_pin():
                user = self.users.authenticate(user_id, pin)
                require_role(user, *PRIVILEGED, action="direct a tournament")
                self.actor, self.who = user.actor, f"{user.name} ({user.role})"
            else:
                if not user_id or "/" in user_id or len(user_id) > 40:
                    raise StationError("give the director's name (up to 40 characters, "
                                       "no '/')")
                self.actor, self.who = f"{user_id}/{DIRECTOR_ROLE}", f"{user_id} (director)"
        except StationError as exc:
            self.said.emit(str(exc), "bad")
            return False
        self.said.emit(f"{self.who} signed in: every change is journaled in your name", "good")
        self.changed.emit()
        return True

    def sign_out(self) -> None:
        self.actor = None
        self.who = ""
        self.said.emit("signed out", "info")
        self.changed.emit()

    # -- acting --

    def act(self, what: Callable[..., Any], *args: Any, done: str = "", **kwargs: Any) -> bool:
        """Run the engine's action ``what`` as the director; on a refusal say its reason and
        change nothing (the engine journals only what it accepts)."""
        if self.actor is None:
            self.said.emit("sign in first: every change is journaled with who made it", "bad")
            return False
        if self._last_seq() != self.seen:
            # Changed elsewhere (the command line, another screen): never act on a stale
            # tournament; show the journal's and let the director look again.
            self.reload()
            self.said.emit("the tournament was changed elsewhere since this screen read it: "
                           "it is shown again as the journal has it; check, then try again",
                           "bad")
            return False
        try:
            what(*args, by=self.actor, **kwargs)
        except StationError as exc:
            self.seen = self._last_seq()
            self.said.emit(str(exc), "bad")
            return False
        self.seen = self._last_seq()
        if done:
            self.said.emit(done, "good")
        self.changed.emit()
        return True

    def reload(self) -> None:
        """Read the tournament again from its journal (another director's changes)."""
        self.t = journaled.load(self.journal, self.name)
        self.seen = self._last_seq()
        self.changed.emit()

    def _last_seq(self) -> int:
        last = self.journal.last(self.stream)
        return last.seq if last is not None else 0
