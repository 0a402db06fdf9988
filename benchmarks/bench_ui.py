"""Dealer station UI benchmark: card event to settled stage on screen, and start-up time.

Run: ``.venv/bin/python benchmarks/bench_ui.py`` (offscreen; no display needed).

1. Card to screen: a simulated shoe deals (the card crosses the in-memory serial link, the
   real driver reads it, the table service settles and journals the stage on SQLite, the
   change is queued to the GUI thread) until the dealer screen shows the card and that
   stage's payouts, painted. Target: under 50 ms.
2. Start-up to a ready window: opening the table on its journal (SQLite, configuration,
   recovery), starting the simulated devices, building the window and showing it. Target:
   under 2 s.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.settlement.lapaire import Wager
from dealer_station.ui.app import make_app
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.station import fast_hasher, open_station

ROUNDS = 25
STARTS = 5
CARD_TARGET_MS = 50.0
START_TARGET_S = 2.0


def wagers() -> list[Wager]:
    out = []
    for seat in range(1, 8):
        out += [Wager(seat, "straight", (str(seat + 1),), 500),
                Wager(seat, "split", ("2", "8"), 100), Wager(seat, "red", (), 100),
                Wager(seat, "lapaire", ("9",), 100), Wager(seat, "poker", (), 100)]
    return out


def card_to_screen(app: object, tmp: Path) -> list[float]:
    db = open_database(f"sqlite:///{tmp / 'cards.db'}")
    journal = Journal(db, create_key(tmp / "cards.key"))
    station = open_station(journal, simulate=True, hasher=fast_hasher(), seed=3)
    station.closers.append(db.close)
    window = MainWindow(station)
    window.show()
    qapp = make_app()
    window.session.sign_in("dealer", "1111")
    screen = window.screens["dealer"]
    table = station.table
    shoe = station.simulator("shoe")
    times: list[float] = []
    try:
        for _ in range(ROUNDS):
            table.place_many(wagers(), actor="dealer/dealer")  # type: ignore[attr-defined]
            shoe.new_shoe()
            for n in range(3):
                qapp.processEvents()
                start = time.perf_counter()
                shoe.deal()
                while not (screen.card_views[n].card is not None and n + 1 in screen.view.stages):
                    qapp.processEvents()
                screen.repaint()          # painted, not only laid out
                times.append((time.perf_counter() - start) * 1000)
                for stage in table.unconfirmed():  # type: ignore[attr-defined]
                    table.confirm_payout(stage, actor="dealer/dealer")  # type: ignore
            qapp.processEvents()
    finally:
        window.shutdown()
        window.close()
        station.close()
    return times


def start_up(tmp: Path, i: int) -> float:
    qapp = make_app()
    db_url = f"sqlite:///{tmp / f'start{i}.db'}"
    create_key(tmp / f"start{i}.key")
    start = time.perf_counter()
    db = open_database(db_url)
    from dealer_station.audit.keys import load_key
    journal = Journal(db, load_key(tmp / f"start{i}.key"))
    station = open_station(journal, simulate=True, hasher=fast_hasher(), seed=i)
    station.closers.append(db.close)
    window = MainWindow(station)
    window.show()
    qapp.processEvents()
    took = time.perf_counter() - start
    window.shutdown()
    window.close()
    station.close()
    return took


def main() -> int:
    app = make_app()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        starts = [start_up(tmp, i) for i in range(STARTS)]
        times = card_to_screen(app, tmp)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"card event -> settled stage on screen ({len(times)} cards, 35 wagers a round, "
          f"SQLite journal): median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
          f"max {max(times):.1f} ms (target < {CARD_TARGET_MS:.0f} ms)")
    print(f"start-up to a ready window ({STARTS} starts, simulated devices): first "
          f"{starts[0]:.2f} s, median {statistics.median(starts):.2f} s, max "
          f"{max(starts):.2f} s (target < {START_TARGET_S:.0f} s)")
    ok = p95 < CARD_TARGET_MS and max(starts) < START_TARGET_S
    print("within targets" if ok else "OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
