"""Bourré's screenshots (the registry's ``screenshots`` part): a seat named on the keyboard,
a hand in play, and the same hand settled (the shared scene and its helpers are
``ui/screenshots.py``'s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dealer_station.ui.screenshots import _save, scene, wait_for


def bourre_scenes(out: Path) -> list[Path]:
    """The registry's ``screenshots`` part: every Bourré scene, saved into ``out``."""
    from dealer_station.games.bourre.ui.demo import screenshot_scene

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
