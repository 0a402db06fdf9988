"""The station's window: who is signed in, the devices, the stop banner and the screens.

```
 +--------------------------------------------------------------------------------+
 | Table T1 · La Pair'e   Shoe ● READY  Reader ● READY   Dana  [Dealer][Super..]  |
 |                                                         dealer                 |
 | [ ROUND STOPPED — the shoe is jammed ...                       (Supervisor) ]  |
 |                                                                                |
 |   sign-in  |  dealer screen  |  supervisor  |  operator    (one at a time)     |
 |                                                                                |
 | [demo strip, with --simulate]                                                  |
 +--------------------------------------------------------------------------------+
```

The stop banner goes across the top of the screen in view, except where the screen offers it
a room of its own (:class:`~dealer_station.ui.banner.BannerRoom`): the La Pair'e dealer screen
offers its controls under the felt, which cannot act while play is stopped, and the banner
covers them there, so the felt keeps its size and place whatever the banner says.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QRect, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station import registry as games
from dealer_station.app import Station
from dealer_station.audit.users import User
from dealer_station.events.table import CardHeld, ClockJumped, DeviceFaulted, device_name
from dealer_station.integrity import start_gate
from dealer_station.table.base import Update
from dealer_station.ui import theme
from dealer_station.ui.banner import BannerRoom, HaltBanner
from dealer_station.ui.devices_bar import DevicesBar
from dealer_station.ui.login import LoginPanel
from dealer_station.ui.parts import SCREENS
from dealer_station.ui.session import DEFAULT_LOCK_AFTER, SignInSession
from dealer_station.ui.signals import TableEvents
from dealer_station.ui.supervisor import IntegrityTiltScreen, SupervisorScreen
from dealer_station.ui.supervisor_visit import VISIT_SIGN_IN, SupervisorSignIn, may_call_supervisor
from dealer_station.ui.while_away import WhileAwayNote

if TYPE_CHECKING:
    from dealer_station.integrity import IntegrityReport

#: The screens each role may open, the first being where a sign-in lands.
ROLE_SCREENS = {
    "dealer": ("dealer",),
    "supervisor": ("supervisor", "dealer"),
    "operator": ("operator", "supervisor", "dealer"),
}
SCREEN_TITLES = {"dealer": "Dealer", "supervisor": "Supervisor", "operator": "Operator"}
SCREEN_KEYS = {"dealer": "F2", "supervisor": "F3", "operator": "F4"}
CLOCK_CHECK_MS = 5000


def _game_screens(station: Station, events: TableEvents, session: SignInSession
                  ) -> tuple[QWidget, QWidget, QWidget | None]:
    """(dealer screen, operator screen, demo panel) for the station's game (the registry's
    ``screens`` part)."""
    screens: tuple[QWidget, QWidget, QWidget | None] = games.game(station.game).part(
        SCREENS)(station, events, session)
    return screens


class MainWindow(QMainWindow):
    def __init__(self, station: Station, *, lock_after: float = DEFAULT_LOCK_AFTER,
                 integrity: IntegrityReport | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._closing = False
        self.station = station
        self.table = station.table
        # The software check of this start (``integrity``: a report made elsewhere, for tests),
        # journaled before anyone can sign in; a mismatch holds the tilt screen.
        self.integrity = start_gate(station.table, integrity)
        self.setWindowTitle(f"Dealer Station — table {station.table_id} · {station.game_name}")
        self.events = TableEvents(station.table, self)
        self.session = SignInSession(station.users, station.table_id, lock_after=lock_after,
                                     table=station.table, parent=self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.session)
        self.session.user_changed.connect(self._user_changed)
        self.session.locked.connect(self._locked)

        central = QWidget()
        self.setCentralWidget(central)
        col = QVBoxLayout(central)
        col.setContentsMargins(8, 6, 8, 6)
        col.setSpacing(6)
        self._col = col
        col.addWidget(self._build_header())
        # Over its slot in the column under the header, or over a screen's room for it
        # (_place_banner); never in the column itself, where all it says would set the
        # window's least height.
        self.banner_slot = QWidget()
        self.banner_slot.hide()
        col.addWidget(self.banner_slot)
        self.banner = HaltBanner(central)
        self.banner.supervisor_requested.connect(lambda: self.show_screen("supervisor"))
        self.banner.changed.connect(self._place_banner)
        # Placing it again once a screen has laid itself out (a timer of the window's own:
        # it goes with the window).
        self._placer = QTimer(self)
        self._placer.setSingleShot(True)
        self._placer.setInterval(0)
        self._placer.timeout.connect(self._place_banner)
        self.banner_slot.installEventFilter(self)

        self.stack = QStackedWidget()
        self.stack.currentChanged.connect(lambda _=0: self._place_banner())
        col.addWidget(self.stack, 1)
        # What happened while nobody was signed in, told to whoever signs in next.
        self.while_away = WhileAwayNote(self.stack)
        self.session.while_away.connect(self.while_away.show_lines)
        self.login = LoginPanel(self.session, f"Table {station.table_id} · {station.game_name}")
        self.visit_sign_in = SupervisorSignIn(self.session)
        self.visit_sign_in.cancelled.connect(lambda: self.show_screen("dealer"))
        dealer, operator, demo = _game_screens(station, self.events, self.session)
        self.screens: dict[str, QWidget] = {
            "login": self.login,
            "dealer": dealer,
            "supervisor": SupervisorScreen(station.table, self.events, self.session,
                                           station.journal, integrity=self.integrity),
            "operator": operator,
            VISIT_SIGN_IN: self.visit_sign_in,
        }
        self.tilt_screen: IntegrityTiltScreen | None = None
        if self.integrity.report.tilt:
            self.tilt_screen = IntegrityTiltScreen(self.integrity, self.session)
            self.tilt_screen.acknowledged.connect(lambda: self._user_changed(self.session.user))
            self.tilt_screen.sign_in_requested.connect(lambda: self.show_screen("login"))
            self.screens["tilt"] = self.tilt_screen
        for w in self.screens.values():
            self.stack.addWidget(w)
            if isinstance(w, BannerRoom):
                w.installEventFilter(self)      # its room moves as it is laid out
        self.demo = demo
        if demo is not None:
            col.addWidget(demo)

        for name, key in SCREEN_KEYS.items():
            QShortcut(QKeySequence(key), self, lambda n=name: self.show_screen(n))
        QShortcut(QKeySequence("Ctrl+L"), self, self.lock)

        self.events.listen(self._on_change)
        # Devices report from the moment they open: catch up with what was said before the
        # window listened.
        self.devices_bar.sync(self.station.devices, self.table.device_state)
        self._clock = QTimer(self)
        self._clock.timeout.connect(self._check_clock)
        self._clock.start(CLOCK_CHECK_MS)
        self.resize(*theme.WINDOW_SIZE)
        now = self.table.view()
        self.banner.show_halt(now.halt, now.devices)
        self._user_changed(None)

    # -- header ----------------------------------------------------------------------------

    def _build_header(self) -> QFrame:
        bar = QFrame()
        bar.setObjectName("panel")
        row = QHBoxLayout(bar)
        row.setContentsMargins(14, 4, 10, 4)
        row.setSpacing(12)
        title = QLabel(f"Table {self.station.table_id} · {self.station.game_name}")
        title.setObjectName("title")
        title.setStyleSheet("font-size: 21px;")
        row.addWidget(title)
        self.devices_bar = DevicesBar(self.station.devices, self.table.device_state)
        if self.station.forwarder is not None:
            self.devices_bar.follow_floor(self.station.forwarder)
        if self.station.pusher is not None:
            self.devices_bar.follow_witness(self.station.pusher)
        # A pill touched says all it knows (its last fault in the device's words).
        self.devices_bar.touched.connect(self.banner_notice)
        row.addWidget(self.devices_bar)
        row.addStretch(1)
        # Who is signed in, and under the name the role (and whose session a supervisor is
        # visiting), both read from a metre.
        self.user_label = QLabel("")
        self.user_label.setStyleSheet(f"font-size: {theme.LEAST_PX}px;")
        row.addWidget(self.user_label)
        self.nav: dict[str, QPushButton] = {}
        for name in ("dealer", "supervisor", "operator"):
            b = QPushButton(SCREEN_TITLES[name])
            b.setObjectName("nav")
            b.setCheckable(True)
            b.clicked.connect(lambda _=False, n=name: self.show_screen(n))
            self.nav[name] = b
            row.addWidget(b)
        self.lock_button = QPushButton("Lock")
        self.lock_button.setObjectName("nav")
        self.lock_button.clicked.connect(self.lock)
        row.addWidget(self.lock_button)
        # A supervisor signed in over the dealer's session hands the station back.
        self.back_button = QPushButton("Back to dealer")
        self.back_button.setObjectName("primary")
        # As high as the header's other buttons: a taller header would take the banner's
        # room from the supervisor's screen.
        self.back_button.setStyleSheet(f"min-height: {theme.TARGET_PX - 4}px; padding: 1px 14px;")
        self.back_button.clicked.connect(lambda: self.session.end_visit())
        row.addWidget(self.back_button)
        return bar

    # -- signing in and out ----------------------------------------------------------------

    @property
    def user(self) -> User | None:
        return self.session.user

    def allowed(self) -> tuple[str, ...]:
        user = self.session.user
        if self.integrity.tilted:
            return ()
        return ROLE_SCREENS.get(user.role, ()) if user is not None else ()

    def _user_changed(self, user: User | None) -> None:
        allowed = self.allowed()
        visiting = self.session.visiting
        tilted = self.integrity.tilted
        for name, b in self.nav.items():
            # A dealer's Supervisor button calls a supervisor; during the visit the way back
            # to the dealer's screen is "Back to dealer".
            b.setVisible((name in allowed and not (visiting and name == "dealer"))
                         or (name == "supervisor" and not tilted
                             and may_call_supervisor(self.session)))
        self.lock_button.setVisible(user is not None and not visiting)
        self.back_button.setVisible(visiting)
        if self.tilt_screen is not None:
            self.tilt_screen.refresh()
        if user is None:
            self.while_away.hide()
            self.user_label.setText(f"<span style='color:{theme.MUTED}'>nobody signed in</span>")
            self.show_screen("tilt" if tilted else "login")
            return
        if user.role == "dealer":
            # Rounds opened from now on name this dealer.
            self.table.set_dealer(user.actor)
        over = self.session.dealer
        # Name over role: two short lines leave the header room for the devices and the floor.
        role = user.role + (f" · for {over.name}" if over else "")
        self.user_label.setText(f"<b>{escape(user.name)}</b><br><span style='color:"
                                f"{theme.GOLD}; font-size: {theme.LEAST_PX}px'>"
                                f"{escape(role)}</span>")
        self.show_screen("tilt" if tilted else allowed[0])

    def _locked(self, user_id: str) -> None:
        minutes = self.session.lock_after / 60
        span = f"{minutes:g} minutes" if minutes >= 1 else f"{self.session.lock_after:g} s"
        self.login.reset(f"Locked after {span} without activity ({user_id} was signed in). "
                         f"Sign in again.")

    def lock(self) -> None:
        self.session.sign_out()
        self.login.reset()

    def show_screen(self, name: str) -> None:
        if name == "supervisor" and may_call_supervisor(self.session):
            name = VISIT_SIGN_IN    # a dealer calls a supervisor: their PIN, over the dealer's
        if self.integrity.tilted and name != "login":
            name = "tilt"   # nothing else opens until the mismatch is acknowledged
        elif name not in ("login", VISIT_SIGN_IN) and name not in self.allowed():
            if self.session.user is None:
                name = "login"
            else:
                return
        self.stack.setCurrentWidget(self.screens[name])
        for n, b in self.nav.items():
            b.setChecked(n == name)
        # The banner calls the supervisor; not while the supervisor's screen is the one in view.
        self.banner.set_call_shown(name in ("dealer", "operator"))
        if name == "login":
            self.login.reset(self.login.notice.text())
        elif name == VISIT_SIGN_IN:
            self.visit_sign_in.reset()
        elif name == "dealer":
            self.screens["dealer"].setFocus()

    @property
    def current_screen(self) -> str:
        w = self.stack.currentWidget()
        return next(n for n, s in self.screens.items() if s is w)

    # -- the stop banner -------------------------------------------------------------------

    def banner_notice(self, text: str) -> None:
        self.banner.show_notice(text)

    def _banner_room(self) -> QRect:
        """Where the banner goes over the screen in view, in the central widget's
        coordinates (an empty rectangle: across the top instead)."""
        screen = self.stack.currentWidget()
        if not isinstance(screen, BannerRoom) or self.banner.isHidden():
            return QRect()
        room = screen.banner_room()
        if room.isEmpty():
            return QRect()
        central = self.centralWidget()
        return QRect(screen.mapTo(central, room.topLeft()), room.size())

    def _place_banner(self) -> None:
        """The banner over the room the screen in view offers, else over its slot under the
        header, the slot as tall as all the banner says, wrapped."""
        if self.banner.isHidden():
            self.banner_slot.hide()
            return
        room = self._banner_room()
        if not room.isEmpty():
            self.banner_slot.hide()
            self.banner.set_stacked(True)
            self.banner.setGeometry(room)
        else:
            # As tall as all it says, as far as the screen under it can give (beyond that
            # the banner's words scroll, their scroll bar in sight).
            self.banner.set_stacked(False)
            margins = self._col.contentsMargins()
            central = self.centralWidget()
            assert central is not None
            width = central.width() - margins.left() - margins.right()
            spacing = self._col.spacing()
            held = self.banner_slot.height() + spacing if not self.banner_slot.isHidden() else 0
            spare = self.stack.height() + held - self.stack.minimumSizeHint().height() - spacing
            self.banner_slot.setFixedHeight(max(theme.TARGET_PX + 12,
                                                min(self.banner.needed_height(width), spare)))
            self.banner_slot.show()
            self.banner.setGeometry(self.banner_slot.geometry())
        self.banner.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._closing:
            return False
        kind = event.type()
        if watched is self.banner_slot and kind in (QEvent.Type.Resize, QEvent.Type.Move):
            if not self.banner_over_screen:
                self.banner.setGeometry(self.banner_slot.geometry())
        elif kind in (QEvent.Type.Resize, QEvent.Type.LayoutRequest) and \
                watched is self.stack.currentWidget():
            self._placer.start()       # once the screen has laid itself out
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._closing:
            self._placer.start()

    @property
    def banner_over_screen(self) -> bool:
        """Whether the banner lies over the screen in view (not across its top)."""
        return self.banner_slot.isHidden()

    # -- following the table ---------------------------------------------------------------

    def _on_change(self, update: Update) -> None:
        self.devices_bar.on_change(update)
        if update.problem:
            self.banner.show_notice(update.problem)
        if update.view.halt is None:
            # A device's fault that stopped nothing (no round in play): its own words, said.
            for fault in update.of(DeviceFaulted):
                self.banner.show_notice(f"{device_name(fault.device).capitalize()} reported "
                                        f"a fault: {fault.detail}")
        if update.view.halt != self.banner.halt:
            self.banner.show_halt(update.view.halt, update.view.devices)
        else:
            self.banner.follow_devices(update.view.devices)
        for held in update.of(CardHeld):
            self.banner.card_held(held.card)
        for jump in update.of(ClockJumped):
            self.banner.show_notice(f"The station clock jumped by "
                                    f"{jump.milliseconds / 1000:+.0f} s (recorded)")

    def _check_clock(self) -> None:
        try:
            self.table.check_clock()
        except Exception as exc:  # a journal write that failed must not stop the timer
            self.banner.show_notice(f"could not record a clock check: {exc}")

    # -- closing ---------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop listening before the devices' threads go away."""
        self._closing = True
        self._placer.stop()
        self._clock.stop()
        self.events.close()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.session)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)


__all__ = ["ROLE_SCREENS", "MainWindow"]

