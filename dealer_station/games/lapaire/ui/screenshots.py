"""La Pair'e's screenshots (the registry's ``screenshots`` part): the sign-in, the betting,
the results, the stop banner, the supervisor's recall, events and chips, the operator's
change, a seven-seat round, the worst cards and typing by touch, each driven through the
real window (the shared scene and its helpers are ``ui/screenshots.py``'s)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer_station.app import Station
from dealer_station.games.lapaire.events import CODEC, RoundVoided
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.ui.screenshots import _save, production_scene, scene, wait_for


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
    """The registry's ``screenshots`` part: every La Pair'e scene, saved into ``out``."""
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
    saved += protection_scene(out)
    saved += touch_scenes(out)
    return saved


def protection_scene(out: Path) -> list[Path]:
    """A shoe that deals the 7 first more often than the deck allows: the monitor's alert
    on the supervisor's Protection tab, and its evidence page."""
    import random

    from dealer_station.events.table import ProtectionAlerted

    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    deck = [r + s for r in ranks for s in "HDSC"] + ["JK"]
    rng = random.Random(5)
    with scene() as (app, station, w):
        t: Any = station.table
        for n in range(60):
            others = rng.sample([c for c in deck if not c.startswith("7")], 3)
            first = f"7{'HDSC'[n % 4]}" if rng.random() < 0.4 else others[0]
            t.place_many([Wager(1, "straight", ("K",), 500), Wager(3, "split", ("6", "7"),
                                                                   1000),
                          Wager(5, "corner", ("2", "3", "8", "9"), 500),
                          Wager(5, "red", (), 500)], actor="dealer/dealer")
            for card in (first, others[1], others[2]):
                t.deal(card)
                for stage in t.unconfirmed():
                    t.confirm_payout(stage, actor="dealer/dealer")
            if list(station.journal.records(t.table_id, kinds=[ProtectionAlerted.KIND])):
                break
        w.session.sign_in("super", "2222")
        w.while_away.hide()
        sup: Any = w.screens["supervisor"]
        w.show_screen("supervisor")
        sup.tabs.setCurrentWidget(sup.protection)
        wait_for(app, lambda: sup.protection.table.rowCount() > 0)
        saved = [_save(app, w, out / "supervisor-protection.png")]
        sup.protection.open_row(0)
        saved.append(_save(app, w, out / "supervisor-protection-evidence.png"))
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


def worst_card_scenes(out: Path) -> list[Path]:
    """The heaviest cards the table allows (``games/lapaire/ui/worst_card.py``): seven seats on
    every spot that wins, at the table maximum. Card 1 on a 2 (seven winning spots a seat): its
    first page and its last, Confirm on only there; card 2 of the Joker round (La Pair'e Card
    on the Joker, 13,000.00 a seat)."""
    from dealer_station.games.lapaire.ui.worst_card import worst_rounds

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
        row = next(i for i, r in enumerate(events.model.rows)
                   if isinstance(CODEC.decode(r.record.kind, r.record.payload), RoundVoided))
        events.list.open_row(row)
        saved.append(_save(app, w, out / "supervisor-event-detail.png"))
        return saved


def _play_rounds(station: Station) -> None:
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
