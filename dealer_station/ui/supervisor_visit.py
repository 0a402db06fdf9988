"""A supervisor called to the dealer's station: the supervisor's sign-in, layered over the
dealer's session.

The dealer presses Supervisor (F3, the header's button or the stop banner's): this screen asks
for a supervisor's (or operator's) name and PIN. Signed in, the supervisor has their screen;
"Back to dealer" (or signing out, or the inactivity lock) signs the supervisor out and gives the
station back to the dealer, still signed in, on the dealer's screen. See SignInSession's
``sign_in_over`` and ``end_visit``; both sign-ins and the hand-back are journaled.

A visit costs: Supervisor, a name, the PIN, Sign in, (the supervisor's action), Back to dealer.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from dealer_station.audit.users import PRIVILEGED
from dealer_station.ui.login import LoginPanel
from dealer_station.ui.session import SignInSession

#: The supervisor's sign-in's name among the window's screens.
VISIT_SIGN_IN = "supervisor sign-in"


def may_call_supervisor(session: SignInSession) -> bool:
    """Whether pressing Supervisor calls a supervisor over the signed-in user's session: a
    dealer is signed in and no supervisor is already there."""
    user = session.user
    return user is not None and user.role not in PRIVILEGED and not session.visiting


class SupervisorSignIn(LoginPanel):
    """The supervisor's sign-in over the dealer's session: only supervisors and operators are
    listed, and a dealer's PIN is refused here."""

    roles = PRIVILEGED
    notice_text = "Supervisor: tap your name, then enter your PIN"
    #: The dealer pressed Supervisor by mistake: back to the dealer's screen (nothing signed).
    cancelled = Signal()

    def __init__(self, session: SignInSession, parent: QWidget | None = None) -> None:
        super().__init__(session, "Supervisor sign-in", parent)

    def _extra(self, col: QVBoxLayout) -> None:
        self.cancel_button = QPushButton("Back to dealer")
        self.cancel_button.setMinimumHeight(56)
        self.cancel_button.clicked.connect(self.cancelled)
        col.addWidget(self.cancel_button)

    def reset(self, notice: str | None = None) -> None:
        dealer = self.session.user
        if notice is None and dealer is not None:
            notice = (f"{dealer.name} stays signed in. Supervisor: tap your name, then enter "
                      f"your PIN")
        super().reset(notice)

    def attempt(self, user_id: str, pin: str) -> None:
        self.session.sign_in_over(user_id, pin)
