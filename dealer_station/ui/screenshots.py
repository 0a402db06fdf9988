"""Screenshots of the station's main screens, made by driving the real window.

Each scene builds a station on a throw-away journal with simulated devices, brings the window
(1280x800) into one state through the same calls a dealer's touches make, and saves a PNG.
``dealer-station screenshots --out DIR`` runs them; docs/ui.md shows the results.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from dealer_station.app import Station, fast_hasher, open_station
from dealer_station.ui import theme
from dealer_station.ui.app import delete_later_now, make_app
from dealer_station.ui.main_window import MainWindow

SETTLE_SECONDS = 5.0


def wait_for(app: QApplication, condition: Callable[[], bool],
             timeout: float = SETTLE_SECONDS) -> None:
    """Run the event loop until ``condition()`` holds (the simulated devices are threads)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the station did not reach the state for a screenshot")
        app.processEvents()
        time.sleep(0.002)
    for _ in range(5):
        app.processEvents()


@contextmanager
def scene(game: str = "lapaire") -> Iterator[tuple[QApplication, Station, MainWindow]]:
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key

    app = make_app()
    with tempfile.TemporaryDirectory(prefix="dealer-station-shots-") as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        journal = Journal(db, create_key(Path(tmp) / "journal.key"))
        station = open_station(journal, game=game, simulate=True, hasher=fast_hasher(),
                               seed=11)
        station.closers.append(db.close)
        window = MainWindow(station)
        window.setFixedSize(*theme.WINDOW_SIZE)
        window.show()
        try:
            wait_for(app, lambda: all(h.state.value == "connected"
                                      for h in station.devices.values()))
            yield app, station, window
        finally:
            window.shutdown()
            window.close()
            station.close()
            window.deleteLater()
            delete_later_now(app)


def _save(app: QApplication, window: MainWindow, path: Path) -> Path:
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(path))
    return path


def _place(screen: Any, seat: int, chip_value: int, bet: str, values: tuple[str, ...] = ()
           ) -> None:
    screen.select_seat(seat)
    screen.select_chip(chip_value)
    screen.place_on(bet, values)


def _betting(screen: Any) -> None:
    _place(screen, 1, 500, "straight", ("K",))
    _place(screen, 1, 500, "red")
    _place(screen, 1, 100, "poker")
    _place(screen, 2, 2500, "corner", ("2", "3", "8", "9"))
    _place(screen, 2, 100, "lapaire", ("9",))
    _place(screen, 3, 100, "split", ("9", "10"))
    _place(screen, 3, 500, "three", ("7", "K", "JK"))
    _place(screen, 3, 100, "any_pair")
    _place(screen, 5, 10000, "straight", ("JK",))
    _place(screen, 6, 500, "split", ("Q", "K"))
    _place(screen, 6, 100, "black")


def lapaire_scenes(out: Path) -> list[Path]:
    saved: list[Path] = []
    with scene() as (app, _station, w):
        saved.append(_save(app, w, out / "login.png"))

    with scene() as (app, station, w):
        w.session.sign_in("dealer", "1111")
        screen: Any = w.screens["dealer"]
        _betting(screen)
        _place(screen, 4, 500, "red")                  # refused: explained on the spot
        screen.pad.set_counting(True)                  # a stack of four counted, not placed
        screen.pad.press("4")
        wait_for(app, lambda: screen.model.rowCount() == 11)
        saved.append(_save(app, w, out / "lapaire-betting.png"))

    with scene() as (app, station, w):
        w.session.sign_in("dealer", "1111")
        screen = w.screens["dealer"]
        _betting(screen)
        shoe = station.simulator("shoe")
        shoe.set_order(["9H", "9D", "9S"])
        for n in (1, 2, 3):
            w.demo.deal()  # type: ignore[union-attr]

            def shown(n: int = n) -> bool:
                return screen.card_views[n - 1].card is not None

            def confirmed(n: int = n) -> bool:
                return n in screen.view.confirmed

            wait_for(app, shown)
            if n < 3:
                screen.confirm()
                wait_for(app, confirmed)
        saved.append(_save(app, w, out / "lapaire-results.png"))

    with scene() as (app, station, w):
        w.session.sign_in("dealer", "1111")
        screen = w.screens["dealer"]
        _betting(screen)
        shoe = station.simulator("shoe")
        shoe.set_order(["4C", "QD", "2H"])
        w.demo.deal()  # type: ignore[union-attr]
        wait_for(app, lambda: screen.card_views[0].card is not None)
        w.demo.status("JAM")  # type: ignore[union-attr]
        wait_for(app, lambda: w.banner.isVisible() and w.devices_bar.text("shoe") == "JAM")
        saved.append(_save(app, w, out / "fault-banner.png"))

    with scene() as (app, station, w):
        _play_rounds(station)
        w.session.sign_in("super", "2222")
        w.while_away.hide()       # the supervisor has read what happened meanwhile
        sup: Any = w.screens["supervisor"]
        sup.tabs.setCurrentIndex(1)
        wait_for(app, lambda: sup.recall_model.rowCount() > 0)
        sup.recall_view.selectRow(1)
        wait_for(app, lambda: "Round 2" in sup.recall_detail.toPlainText())
        saved.append(_save(app, w, out / "supervisor-recall.png"))

    saved += operator_scenes(out)
    saved += seven_seat_scenes(out)
    saved += worst_card_scenes(out)
    saved += long_fault_scene(out)
    saved += supervisor_events_scene(out)
    saved += touch_scenes(out)
    return saved


def operator_scenes(out: Path) -> list[Path]:
    """The operator's change: the form with a limit on the keypad, then its par sheet."""
    from dealer_station.ui.touch_sheet import close_sheets

    saved: list[Path] = []
    with scene() as (app, _station, w):
        w.session.sign_in("operator", "3333")
        op: Any = w.screens["operator"]
        op.kind_boxes["black"].setChecked(False)
        op.spot_boxes["split 7-JK"].setChecked(True)
        op.paytable.setCurrentText("alternative")
        limit = op.limit_boxes["straight"][1]
        sheet = limit.open_input()                     # what a touch on the limit opens
        for key in "150":
            sheet.pad.keys[key].click()
        saved.append(_save(app, w, out / "operator-limit-keypad.png"))
        sheet.done_button.click()
        close_sheets(w)
        op.preview()
        op.par_view.scrollToBottom()                   # the optional wagers and poker
        saved.append(_save(app, w, out / "operator-parsheet.png"))
    return saved


#: The review's seven-seat round: every seat on a straight on the Joker, a split, red,
#: La Pair'e Joker, Any Pair'e and poker, at amounts a busy table plays.
def _seven_seat_wagers() -> list[Any]:
    from dealer_station.settlement.lapaire import Wager

    out = []
    for seat in range(1, 8):
        big = 2500 if seat % 2 else 10000    # the table maximum: a pay of 2,500.00
        out += [Wager(seat, "straight", ("JK",), big), Wager(seat, "split", ("2", "8"), 500),
                Wager(seat, "red", (), 1000), Wager(seat, "lapaire", ("JK",), 500),
                Wager(seat, "any_pair", (), 500), Wager(seat, "poker", (), 500)]
    return out


def seven_seat_scenes(out: Path) -> list[Path]:
    """A seven-seat La Pair'e round at each stage: wagers placed, then each card awaiting
    payment."""
    saved: list[Path] = []
    with scene() as (app, station, w):
        w.session.sign_in("dealer", "1111")
        screen: Any = w.screens["dealer"]
        t: Any = station.table
        t.place_many(_seven_seat_wagers(), actor="dealer/dealer")
        wait_for(app, lambda: screen.model.rowCount() > 0)
        saved.append(_save(app, w, out / "lapaire-7seats-betting.png"))
        for n, card in enumerate(("JK", "JK", "9S"), start=1):
            t.deal(card)
            def shown(n: int = n) -> bool:
                return screen.card_views[n - 1].card is not None and n in screen.view.stages

            wait_for(app, shown)
            saved.append(_save(app, w, out / f"lapaire-7seats-card{n}.png"))
            for stage in t.unconfirmed():
                t.confirm_payout(stage, actor="dealer/dealer")
    return saved


@contextmanager
def production_scene() -> Iterator[tuple[QApplication, Station, MainWindow, Any]]:
    """The station as a table runs it: no demo strip, the shoe opened with the serial
    backend on a pseudo-terminal (a simulated shoe speaks the wire protocol at its other
    end, as ``dealer-station emulate shoe`` does), and the card reader configured on a port
    with nothing plugged in. Yields (app, station, window, the shoe at the far end)."""
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key
    from dealer_station.hardware.config import DeviceConfig
    from dealer_station.hardware.ptyport import PtyWire
    from dealer_station.hardware.simulator import SimulatedDevice

    app = make_app()
    with tempfile.TemporaryDirectory(prefix="dealer-station-shots-") as tmp:
        shoe = SimulatedDevice("shoe", device_id="SHOE1", cards=["JK", "9S", "4C"],
                               heartbeat=0.5)
        wire = PtyWire()
        shoe.attach(wire)
        devices = {
            "shoe": DeviceConfig("shoe", "serial", wire.path, 9600, "SHOE1"),
            "reader": DeviceConfig("reader", "serial", str(Path(tmp) / "dealer-reader"),
                                   9600, "READER1"),
        }
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        journal = Journal(db, create_key(Path(tmp) / "journal.key"))
        station = open_station(journal, devices=devices, demo_users=True,
                               hasher=fast_hasher())
        station.closers.append(db.close)
        window = MainWindow(station)
        window.setFixedSize(*theme.WINDOW_SIZE)
        window.show()
        try:
            wait_for(app, lambda: station.devices["shoe"].state.value == "connected")
            yield app, station, window, shoe
        finally:
            window.shutdown()
            window.close()
            station.close()
            shoe.close()
            wire.close()
            window.deleteLater()
            delete_later_now(app)


def worst_card_scenes(out: Path) -> list[Path]:
    """The heaviest cards the table allows (``ui/worst_card.py``): seven seats on every
    spot that wins, at the table maximum. Card 1 on a 2 (seven winning spots a seat): its
    first page and its last, Confirm on only there; card 2 of the Joker round (La Pair'e Card
    on the Joker, 13,000.00 a seat)."""
    from dealer_station.ui.worst_card import worst_rounds

    saved: list[Path] = []
    with scene() as (app, station, w):
        w.session.sign_in("dealer", "1111")
        screen: Any = w.screens["dealer"]
        t: Any = station.table
        for worst in worst_rounds(t.config):
            t.place_many(list(worst.wagers), actor="dealer/dealer")
            for n, card in enumerate(worst.cards, start=1):
                t.deal(card)

                def shown(n: int = n) -> bool:
                    return bool(screen.view.to_confirm == n and screen.payouts.key == (
                        screen.view.round_no, n))

                wait_for(app, shown)
                if (worst.name, n) == ("most", 1):
                    saved.append(_save(app, w, out / "lapaire-worst-card1.png"))
                    while screen.payouts.next_button.isEnabled():
                        screen.payouts.next_button.click()
                    saved.append(_save(app, w, out / "lapaire-worst-card1-last.png"))
                if (worst.name, n) == ("widest", 2):
                    saved.append(_save(app, w, out / "lapaire-worst-card2.png"))
                for stage in t.unconfirmed():
                    t.confirm_payout(stage, actor="dealer/dealer")
            wait_for(app, lambda: screen.view.round_no is None)
    return saved


def long_fault_scene(out: Path) -> list[Path]:
    """The longest stop a dealer meets mid-round, in production (a serial shoe, no demo
    strip) on the full 1280x800 screen: the shoe reports its own error (E42) after card 1 of
    a seven-seat round, while the card reader is unplugged."""
    with production_scene() as (app, station, w, shoe):
        w.session.sign_in("dealer", "1111")
        screen: Any = w.screens["dealer"]
        t: Any = station.table
        t.place_many(_seven_seat_wagers(), actor="dealer/dealer")
        shoe.deal()
        wait_for(app, lambda: screen.card_views[0].card is not None)
        shoe.report_error("E42", "card jammed at the reader head; feed motor stalled twice")
        wait_for(app, lambda: w.banner.isVisible() and "E42" in w.banner.text)
        return [_save(app, w, out / "fault-banner-long.png")]


def _tap_keys(sheet: Any, text: str) -> None:
    """Type ``text`` on an open keyboard sheet, key by key, as fingers would."""
    for key in sheet.keyboard.buttons_for(text):
        key.click()


def touch_scenes(out: Path) -> list[Path]:
    """Typing by touch: the reasons for resuming a round stopped by a jam, the keyboard open
    on "Other…", and the keypad on a count of the Chips tab (with the day's slips listed)."""
    from dealer_station.settlement.lapaire import Wager
    from dealer_station.ui.touch_sheet import current_sheet

    saved: list[Path] = []
    with scene() as (app, station, w):
        w.session.sign_in("dealer", "1111")
        screen: Any = w.screens["dealer"]
        t: Any = station.table
        t.place_many([Wager(1, "straight", ("K",), 500), Wager(2, "split", ("2", "3"), 1000)],
                     actor="dealer/dealer")
        shoe = station.simulator("shoe")
        shoe.set_order(["KH", "2C", "9D"])
        w.demo.deal()  # type: ignore[union-attr]
        wait_for(app, lambda: screen.card_views[0].card is not None)
        w.demo.status("JAM")  # type: ignore[union-attr]
        wait_for(app, lambda: w.banner.isVisible() and t.halt is not None)
        w.demo.status("READY")  # type: ignore[union-attr]
        wait_for(app, lambda: w.devices_bar.text("shoe") == "READY")
        w.banner.button.click()                           # Supervisor: a visit
        visit = w.visit_sign_in
        visit.name_buttons["super"].click()
        for d in "2222":
            visit.pad.keys[d].click()
        assert visit.sign_in_button is not None
        visit.sign_in_button.click()
        wait_for(app, lambda: w.current_screen == "supervisor")
        sup: Any = w.screens["supervisor"]
        sup.resume_button.click()
        wait_for(app, lambda: current_sheet(w) is not None)
        saved.append(_save(app, w, out / "supervisor-reason.png"))
        sheet: Any = current_sheet(w)
        sheet.other_button.click()
        wait_for(app, lambda: current_sheet(w) is not None and current_sheet(w) is not sheet)
        _tap_keys(current_sheet(w), "Shoe swapped, cards checked by hand")
        saved.append(_save(app, w, out / "supervisor-reason-keyboard.png"))

    with scene() as (app, station, w):
        _play_rounds(station)
        w.session.sign_in("super", "2222")
        w.while_away.hide()
        sup = w.screens["supervisor"]
        sup.tabs.setCurrentWidget(sup.chips)
        chips: Any = sup.chips
        chips.printer = ""
        wait_for(app, lambda: chips.isVisible())

        def count(action: str, counts: dict[int, str]) -> None:
            chips.action_buttons[action].click()
            for denom, text in counts.items():
                chips.fields[denom].setText(text)
            chips.set_dealer("dealer")
            chips.dealer_pin.setText("1111")
            chips.record_button.click()

        count("opener", {100: "200", 500: "200", 2500: "120", 10000: "40"})
        count("fill", {2500: "20", 10000: "10"})
        count("credit", {10000: "5"})
        count("fill", {500: "40"})
        saved.append(_save(app, w, out / "supervisor-chips.png"))
        chips.action_buttons["credit"].click()
        chips.fields[100].open_input()                   # a touch on the 1.00 chips' count
        wait_for(app, lambda: current_sheet(w) is not None)
        pad: Any = current_sheet(w)
        for d in "150":
            pad.pad.keys[d].click()
        saved.append(_save(app, w, out / "supervisor-chips-keypad.png"))
    return saved


def supervisor_events_scene(out: Path) -> list[Path]:
    """The supervisor's Events tab after a troubled round: a jam resumed, a misread
    corrected, an error of the shoe's own and a void, a PIN mistyped; then one event touched
    open, its whole detail on the panel."""
    from dealer_station.audit.users import AuthError
    from dealer_station.settlement.lapaire import Wager

    with scene() as (app, station, w):
        t: Any = station.table
        shoe = station.simulator("shoe")
        session = w.session
        session.sign_in("dealer", "1111")

        def visit(action: Callable[[Any], object]) -> None:
            action(session.sign_in_over("super", "2222"))
            session.end_visit()

        t.place_many([Wager(1, "straight", ("K",), 500), Wager(1, "red", (), 1000)],
                     actor="dealer/dealer")
        shoe.set_status("JAM")
        wait_for(app, lambda: t.halt is not None)
        shoe.set_status("READY")
        wait_for(app, lambda: not t.resume_blockers())
        visit(lambda sup: t.resume(sup, "shoe jam cleared"))
        w.demo.misread()  # type: ignore[union-attr]
        wait_for(app, lambda: t.halt is not None)
        visit(lambda sup: t.correct_card(sup, "QD", "misread: card checked by hand"))
        shoe.report_error("E42", "card jammed at the reader head; feed motor stalled")
        wait_for(app, lambda: t.halt is not None)
        with contextlib.suppress(AuthError):
            session.sign_in_over("super", "2221")           # a mistyped PIN, refused
        sup = session.sign_in_over("super", "2222")
        t.void(sup, "player dispute: seat 2 says the queen was exposed; video checked, "
                    "wagers returned")
        w.while_away.hide()
        screen: Any = w.screens["supervisor"]
        w.show_screen("supervisor")
        screen.tabs.setCurrentWidget(screen.events_tab)
        events = screen.events_tab
        wait_for(app, lambda: events.model.rowCount() > 0)
        saved = [_save(app, w, out / "supervisor-events.png")]
        row = next(i for i, r in enumerate(events.model.rows) if r.record.kind == "void")
        events.list.open_row(row)
        saved.append(_save(app, w, out / "supervisor-event-detail.png"))
        return saved


def _play_rounds(station: Station) -> None:
    from dealer_station.settlement.lapaire import Wager

    t: Any = station.table
    rounds = (["KH", "2C", "9D"], ["7S", "JK", "KC"], ["AD", "AS", "3H"])
    for i, cards in enumerate(rounds):
        t.place_many([Wager(1, "straight", ("K",), 500), Wager(2, "split", ("2", "8"), 1000),
                      Wager(2, "any_pair", (), 100), Wager(3, "three", ("A", "2", "8"), 2500),
                      Wager(3, "poker", (), 200)], actor="dealer/dealer")
        for n, card in enumerate(cards, start=1):
            if i == 1 and n == 2:
                t.void(station.users.authenticate("super", "2222", table_id=t.table_id),
                       "seat 2 disputed the first card; video checked")
                break
            t.deal(card)
            for stage in t.unconfirmed():
                t.confirm_payout(stage, actor="dealer/dealer")


def bourre_scenes(out: Path) -> list[Path]:
    from dealer_station.ui.bourre_demo import screenshot_scene

    with scene("bourre") as (app, station, w):
        # A seat named before the session: the station's keyboard over the table.
        w.session.sign_in("dealer", "1111")
        screen0: Any = w.screens["dealer"]
        screen0.name_seat(3)
        sheet = screen0.name_sheet
        for key in sheet.keyboard.buttons_for("Noelie Guidr"):
            key.click()
        naming = _save(app, w, out / "bourre-name-keyboard.png")
        sheet.cancel()
        w.session.sign_out()
    with scene("bourre") as (app, station, w):
        saved = [naming,
                 screenshot_scene(app, station, w, out / "bourre-play.png", _save, wait_for)]
        # The same hand played out (a renege was announced in it): its settlement.
        t: Any = station.table
        screen: Any = w.screens["dealer"]
        demo: Any = w.demo
        for _ in range(40):
            if "Next pot" in screen.result.toPlainText():
                break
            hand = t.hand
            if hand is None or hand.phase.value != "play":
                wait_for(app, lambda: "Next pot" in screen.result.toPlainText())
                break
            played = len(hand.current_trick) + 5 * hand.trick_number
            demo.play()

            def moved(h: Any = hand, b: int = played) -> bool:
                return (h is not t.hand or h.phase.value != "play"
                        or len(h.current_trick) + 5 * h.trick_number != b)

            wait_for(app, moved)
        wait_for(app, lambda: "Next pot" in screen.result.toPlainText())
        saved.append(_save(app, w, out / "bourre-settled.png"))
        return saved


def take_screenshots(out: Path, chosen: tuple[str, ...] | None = None) -> list[Path]:
    """The screenshots of each chosen game (default every game), each the registry's
    ``screenshots`` part of that game."""
    from dealer_station import games
    from dealer_station.ui.parts import SCREENSHOTS

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    for name in chosen if chosen is not None else games.names():
        saved.extend(games.game(name).part(SCREENSHOTS)(out))
    return saved
