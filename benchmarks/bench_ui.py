"""Dealer station UI benchmark: a card's frame on the line to its settled stage on screen, and
start-up time.

Run: ``.venv/bin/python benchmarks/bench_ui.py [--rounds 170] [--baud 9600]`` (offscreen; no
display needed).

1. Card to screen. A shoe emulator (``dealer-station emulate shoe``, in a process of its
   own, speaking the wire protocol on the master side of a real pseudo-terminal) and the
   station's shoe opened with the ``serial`` backend on the terminal's path, exactly as a
   real shoe is opened. Each round: 35 wagers over 7 seats, then three cards. For each card
   the clock starts when the frame's last byte is written (the emulator's ``--stamp``,
   on the system's monotonic clock, which both processes read) and stops once the
   dealer screen shows the card and that stage's payouts and has been painted: right after
   the screen took the update, Qt's own next steps are run there and then (the layout
   requests and the window's repaint, which the event loop would run next), and the felt
   and the payout list must each have been painted by them. In between: the driver
   reads and checks the frame and hands the card to the table's worker, which settles the
   stage and commits it to a SQLite journal (durable) and acknowledges the frame; the
   update is queued to the GUI thread, and the screen redraws.
   A pseudo-terminal does not pace bytes at the baud rate, so the frame's own time on a real
   wire (8N1: 10 bits a byte) comes before the measured span and is printed separately:
   every figure measured is time beyond the wire time. Target: p99 at most 20 ms beyond the
   wire time (one 60 Hz frame plus a durable commit).
   Measured twice: on the usual round above, and on the worst cards the table's
   configuration allows (``dealer_station/games/lapaire/ui/worst_card.py``: seven seats, every
   spot that wins on the card at the table maximum and a losing spot of every kind; the
   round with the most winning spots and the round with the largest amounts, in turn, their
   cards sent by the emulator's ``card`` command). On those the payout list runs to pages.
2. Start-up to a ready window: opening the table on its journal (SQLite, configuration,
   recovery), starting the simulated devices, building the window and showing it. Target:
   under 2 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, QTimer

from dealer_station.app import Station, fast_hasher, open_station
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.games.lapaire.events import StageSettled
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.ui.worst_card import WorstRound, worst_rounds
from dealer_station.hardware import protocol as p
from dealer_station.hardware.config import DeviceConfig
from dealer_station.ui.app import make_app, settle_memory
from dealer_station.ui.main_window import MainWindow

ROUNDS = 170                 # three cards a round: 510 cards
WORST_ROUNDS = 60            # the worst rounds, in turn: 180 cards
WARM_UP_ROUNDS = 3
STARTS = 5
BAUD = 9600
CARD_TARGET_MS = 20.0        # p99 beyond the frame's wire time
TAPS_TARGET = 12
START_TARGET_S = 2.0
WAIT_S = 10.0
IDLE_MS = 50                 # the GUI's idle between cards (a dealer's are seconds)
DEALER = "dealer/dealer"


def wagers() -> list[Wager]:
    """35 wagers over 7 seats."""
    out = []
    for seat in range(1, 8):
        out += [Wager(seat, "straight", (str(seat + 1),), 500),
                Wager(seat, "split", ("2", "8"), 100), Wager(seat, "red", (), 100),
                Wager(seat, "lapaire", ("9",), 100), Wager(seat, "poker", (), 100)]
    return out


def wire_ms(nbytes: int, baud: int) -> float:
    return nbytes * 10 / baud * 1000          # 8N1: 10 bits a byte


def longest_card_frame() -> int:
    """Bytes in the longest CARD frame the shoe sends (a ten, a four-digit seq)."""
    return len(p.encode("SHOE1", 9999, p.CARD, "10H"))


class PaintLog(QObject):
    """Every paint event the felt and the payout list receive, with what the list said."""

    def __init__(self, felt: Any, payouts: Any) -> None:
        super().__init__()
        self.felt, self.payouts = felt, payouts
        self.paints: list[tuple[str, str]] = []
        felt.installEventFilter(self)
        payouts.installEventFilter(self)

    def eventFilter(self, watched: Any, event: Any) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints.append(("felt", "") if watched is self.felt
                               else ("payouts", self.payouts.text()))
        return False

    def shows(self, since: int) -> bool:
        """Whether, since paint number ``since``, both were painted, the list as it is now
        (the screen changes both at once, and one repaint of the window paints both)."""
        done = self.paints[since:]
        return ("payouts", self.payouts.text()) in done and any(w == "felt" for w, _ in done)


class Rig:
    """A station on its own SQLite journal whose shoe is the device emulator in a process of
    its own (``dealer-station emulate shoe``) on a pseudo-terminal, as a real shoe is a
    device of its own; the station's window offscreen with the dealer signed in."""

    def __init__(self, tmp: Path, baud: int) -> None:
        self.app = make_app()
        link = tmp / "shoe"
        self.emulator = subprocess.Popen(
            [sys.executable, "-m", "dealer_station", "emulate", "shoe", "--link", str(link),
             "--device-id", "SHOE1", "--seed", "3", "--baud", str(baud), "--quiet",
             "--stamp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            cwd=Path(__file__).resolve().parents[1],
            # A real shoe has a processor of its own: the emulator yields the station's
            # two cores to the station when both want them.
            preexec_fn=lambda: os.nice(10))
        # When each CARD frame's last byte was written, by the emulator's own clock (the
        # system's monotonic clock, which this process reads too); a re-send keeps the first.
        self.card_written: dict[str, float] = {}
        self._stamps_lock = threading.Lock()
        threading.Thread(target=self._read_stamps, daemon=True).start()
        deadline = time.perf_counter() + WAIT_S
        while not link.exists():
            if time.perf_counter() > deadline or self.emulator.poll() is not None:
                raise RuntimeError("the shoe emulator did not start")
            time.sleep(0.02)
        self.db = open_database(f"sqlite:///{tmp / 'cards.db'}")
        journal = Journal(self.db, create_key(tmp / "cards.key"))
        cfg = DeviceConfig("shoe", "serial", str(link), baud, "SHOE1")
        self.station: Station = open_station(journal, devices={"shoe": cfg},
                                             hasher=fast_hasher(), demo_users=True)
        self.station.closers.append(self.db.close)
        if not MONITOR:          # --no-monitor: the same cards without the live monitor
            self.station.table.protection = None
        self.window = MainWindow(self.station)
        self.window.show()
        self.window.session.sign_in("dealer", "1111")
        settle_memory()          # as run_station does once the window is up
        self.screen: Any = self.window.screens["dealer"]
        self.table: Any = self.station.table
        # Runs on the GUI thread right after the dealer screen has taken the same update
        # (slots run in the order they were connected): Qt's own repaint of the window is
        # run there and then rather than on the next turn of the event loop.
        self.painted_at: dict[int, float] = {}
        self.paints = PaintLog(self.screen.layout_view, self.screen.payouts)
        self.dealt_at_paint = 0          # how many paints there were when the card was dealt
        self.window.events.listen(self._paint_now)
        self.station.devices["shoe"].wait_connected()
        # Something always happens within the wait: a condition is never missed for want of
        # an event to wake the GUI thread.
        self._tick = QTimer()
        self._tick.start(100)
        self.paged = 0                   # worst cards whose payout list ran to pages

    def _read_stamps(self) -> None:
        assert self.emulator.stdout is not None
        for line in self.emulator.stdout:
            words = line.split()
            if len(words) == 6 and words[:2] == ["wrote", "CARD"]:
                with self._stamps_lock:
                    self.card_written.setdefault(words[3], float(words[5]))
                    self.last_card_seq = words[3]

    def _command(self, line: str) -> None:
        assert self.emulator.stdin is not None
        self.emulator.stdin.write(line + "\n")
        self.emulator.stdin.flush()

    def _paint_now(self, update: Any) -> None:
        for stage in update.of(StageSettled):
            # What the event loop runs next: the posted layout requests, then the window's
            # update request, which paints every part of the window the update changed.
            # (Now and then the event loop has already run it between two listeners; the
            # time taken now is then a little later than the paint.)
            QCoreApplication.sendPostedEvents()
            if not self.paints.shows(self.dealt_at_paint):
                raise RuntimeError(f"card {stage.stage} was shown but not painted")
            self.painted_at[stage.stage] = time.monotonic()

    def settle_down(self) -> None:
        """Until nothing is owed: the table's worker idle (the last card committed and
        acknowledged), the GUI drained (the dealer looks at the screen for seconds before
        the next card)."""
        self.table.worker.drain(WAIT_S)
        # The event loop left to run for a moment, as it runs for the seconds a dealer
        # looks at the screen: what a change set going (a layout request passed up from
        # widget to parent, one turn of the loop a step) runs to its end here, not on the
        # next card's time.
        loop = QEventLoop()
        QTimer.singleShot(IDLE_MS, loop.quit)
        loop.exec()

    def wait_until(self, done: Any, what: str) -> None:
        deadline = time.perf_counter() + WAIT_S
        while not done():
            if time.perf_counter() > deadline:
                raise RuntimeError(f"not on screen within {WAIT_S:.0f} s: {what}")
            # Sleeps until an event arrives (the queued change), as the GUI thread does.
            self.app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)

    def card(self, n: int, code: str | None = None) -> float:
        """Deal card ``n`` (0-2) of the open round (from the shoe, or the card ``code``);
        ms from the last byte of its frame on the line (the emulator's stamp) to painted."""
        screen = self.screen
        self.painted_at.pop(n + 1, None)
        with self._stamps_lock:
            before = getattr(self, "last_card_seq", None)
        self.dealt_at_paint = len(self.paints.paints)
        self._command(f"card {code}" if code else "deal")
        self.wait_until(lambda: n + 1 in self.painted_at, f"card {n + 1} and its stage")
        assert screen.card_views[n].card is not None and n + 1 in screen.view.stages
        deadline = time.perf_counter() + WAIT_S
        while True:    # the stamp line may come a moment after the card is on screen
            with self._stamps_lock:
                seq = getattr(self, "last_card_seq", None)
                if seq is not None and seq != before:
                    return (self.painted_at[n + 1] - self.card_written[seq]) * 1000
            if time.perf_counter() > deadline:
                raise RuntimeError("the emulator did not say when it wrote the card")
            time.sleep(0.001)

    def round(self, worst: WorstRound | None = None) -> list[float]:
        """A round of the usual wagers dealt from the shoe, or a worst round and its cards."""
        self.table.place_many(list(worst.wagers) if worst else wagers(), actor=DEALER)
        self._command("shoe")
        times = []
        for n in range(3):
            self.settle_down()
            times.append(self.card(n, worst.cards[n] if worst else None))
            if worst is not None and len(self.screen.payouts.pages) > 1:
                self.paged += 1
            for stage in self.table.unconfirmed():
                self.table.confirm_payout(stage, actor=DEALER)
        self.settle_down()
        return times

    def close(self) -> None:
        self._tick.stop()
        self.window.shutdown()
        self.window.close()
        self.station.close()
        self._command("quit")
        try:
            self.emulator.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.emulator.kill()


def card_to_screen(tmp: Path, rounds: int, worst: int, baud: int
                   ) -> tuple[list[float], list[float], int, str]:
    """The usual rounds' card times, the worst rounds' card times, how many of the worst
    cards' payout lists ran to pages, and what the worst rounds were."""
    rig = Rig(tmp, baud)
    try:
        for _ in range(WARM_UP_ROUNDS):
            rig.round()
        times: list[float] = []
        for _ in range(rounds):
            times += rig.round()
        heavy = worst_rounds(rig.table.config)
        for i in range(WARM_UP_ROUNDS):
            rig.round(heavy[i % len(heavy)])
        rig.paged = 0
        worst_times: list[float] = []
        for i in range(worst):
            worst_times += rig.round(heavy[i % len(heavy)])
        what = ", ".join(f"{'-'.join(r.cards)} with {len(r.wagers)} wagers" for r in heavy)
        return times, worst_times, rig.paged, what
    finally:
        rig.close()


def summary(times: list[float]) -> tuple[float, float, float]:
    """p50, p99 and the largest of ``times``."""
    q = statistics.quantiles(times, n=100, method="inclusive")
    return statistics.median(times), q[98], max(times)


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


def standard_round_taps(tmp: Path) -> tuple[int, int]:
    """The standard 4-seat round of 9 wagers
    (dealer_station/games/lapaire/ui/standard_round.py) placed by
    touch on the real window, as tests/test_ui_taps.py does: (the round's taps, from the
    first touch for its first wager to its last, and the taps before it)."""
    from dealer_station.games.lapaire.ui import standard_round
    qapp = make_app()
    db = open_database(f"sqlite:///{tmp / 'taps.db'}")
    journal = Journal(db, create_key(tmp / "taps.key"))
    station = open_station(journal, simulate=True, hasher=fast_hasher(), seed=1)
    station.closers.append(db.close)
    window = MainWindow(station)
    window.resize(1280, 800)
    window.show()
    window.session.sign_in("dealer", "1111")
    screen: Any = window.screens["dealer"]
    table: Any = station.table
    try:
        table.place_many([Wager(s.seat, s.bet, s.values, s.amount)
                          for s in standard_round.SEAT_4_LAST_ROUND], actor=DEALER)
        for card in ("2C", "3D", "4S"):
            table.deal(card, actor=DEALER)
            for stage in table.unconfirmed():
                table.confirm_payout(stage, actor=DEALER)
        for _ in range(5):
            qapp.processEvents()
        presses = standard_round.Presses()
        qapp.installEventFilter(presses)
        marks: list[int] = []
        standard_round.play(screen, on_first_wager=lambda: marks.append(presses.count))
        qapp.removeEventFilter(presses)
        with table.lock:
            placed = standard_round.on_the_table(table.current.engine.wagers.values())
        if placed != standard_round.intended():
            raise RuntimeError(f"the standard round was not placed as intended: {placed}")
        return presses.count - marks[0], marks[0]
    finally:
        window.shutdown()
        window.close()
        station.close()


#: Whether the table's game-protection monitor watches the measured cards (--no-monitor).
MONITOR = True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=ROUNDS, help="measured rounds of 3 cards")
    ap.add_argument("--baud", type=int, default=BAUD, help="the shoe's line speed")
    ap.add_argument("--worst-rounds", type=int, default=WORST_ROUNDS,
                    help="measured worst rounds of 3 cards")
    ap.add_argument("--no-monitor", action="store_true",
                    help="deal without the game-protection monitor (to measure what it adds)")
    args = ap.parse_args()
    global MONITOR
    MONITOR = not args.no_monitor
    make_app()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        starts = [start_up(tmp, i) for i in range(STARTS)]
        times, worst_times, paged, heavy = card_to_screen(tmp, args.rounds, args.worst_rounds,
                                                   args.baud)
        taps, before_first = standard_round_taps(tmp)
    frame_bytes = longest_card_frame()
    wire = wire_ms(frame_bytes, args.baud)
    print(f"card frame on the line -> settled stage painted on the dealer screen (SQLite "
          f"journal, shoe on a pseudo-terminal, serial backend, {args.baud} baud):")
    print(f"  wire time of one {frame_bytes}-byte CARD frame at {args.baud} baud (8N1): "
          f"{wire:.1f} ms (before the frame's last byte; a pseudo-terminal does not pace bytes)")
    card_ok = True
    for what, measured in (
            (f"usual card ({len(times)} cards, 35 wagers a round over 7 seats)", times),
            (f"worst card ({len(worst_times)} cards; rounds {heavy}, in turn, over 7 "
             f"seats; {paged} of the lists in pages)",
             worst_times)):
        p50, p99, worst = summary(measured)
        ok = p99 <= CARD_TARGET_MS
        card_ok &= ok
        print(f"  {what}:")
        print(f"    beyond wire time, from the last byte to painted: p50 {p50:.1f} ms, p99 "
              f"{p99:.1f} ms, max {worst:.1f} ms; on a real line, first byte to painted: "
              f"p99 {wire + p99:.1f} ms")
        print(f"    p99 beyond wire time {p99:.1f} ms against the target of "
              f"{CARD_TARGET_MS:.0f} ms: " + ("within target" if ok else "OVER TARGET"))
    start_ok = max(starts) < START_TARGET_S
    print(f"start-up to a ready window ({STARTS} starts, simulated devices): first "
          f"{starts[0]:.2f} s, median {statistics.median(starts):.2f} s, max "
          f"{max(starts):.2f} s (target < {START_TARGET_S:.0f} s): "
          + ("within target" if start_ok else "OVER TARGET"))
    taps_ok = taps <= TAPS_TARGET
    print(f"taps for the standard 4-seat round: {taps} (9 wagers over 4 seats, the counted "
          f"stacks included; {before_first} more before it, on a fresh screen, to choose the "
          f"chip and turn Count chips on, which stay so from round to round) against the "
          f"target of {TAPS_TARGET}: " + ("within target" if taps_ok else "OVER TARGET"))
    return 0 if card_ok and start_ok and taps_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
